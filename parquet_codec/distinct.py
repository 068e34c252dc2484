"""Distinct values of a column chunk, for dictionary encoding (Encodings.md,
"Dictionary Encoding").

Every value gets a 64-bit *key*: numbers use their own bit pattern (so -0.0
and +0.0, or two NaN payloads, stay distinct values), byte strings and
fixed-length rows a hash of their bytes computed word by word over all values
at once. Strings of similar lengths are first laid out as a matrix of
zero-padded 8-byte words (:func:`word_matrix`: a plain reshape when all have
one length), so hashing is a few passes over its columns and verification
a gather and compare per column; very uneven lengths are walked word by word.
Keys are numbered block by block: each block is looked up in a hash table of
the entries found so far, probed with array operations (linear time, where a
binary search costs ~100 ns per value), and only the keys missing from it
are sorted into new entries. Hashed keys are then verified byte for byte
against the representative of their key, and a collision (never seen in
practice) falls back to an exact comparison of the bytes.

Entries are numbered in order of first appearance, as parquet-java and
pyarrow number dictionary entries, and each records where it first appears
(:attr:`Distinct.first`), so the dictionary size after any prefix of the
values is known; a count given a size limit stops soon after the dictionary
outgrows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from parquet_codec.encodings.byte_arrays import TAIL_MASKS, unaligned_words, words_at

_MULT = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


@dataclass
class Distinct:
    """``ids[i]`` is the dictionary entry of value ``i``; entry ``k`` first
    appears at value ``first[k]``."""

    ids: np.ndarray
    first: np.ndarray

    @property
    def size(self) -> int:
        return len(self.first)


def word_matrix(offsets: np.ndarray, data: np.ndarray) -> np.ndarray | None:
    """Each byte string as a zero-padded row of little-endian uint64 words,
    ``(n, ceil(longest / 8))``; None when padding to the longest string would
    more than double the words (lengths too uneven)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    n = len(lengths)
    longest = int(lengths.max()) if n else 0
    width = -(-longest // 8)
    if n == 0 or width == 0:
        return np.zeros((n, 0), dtype=np.uint64)
    if width * n > 2 * int(((lengths + 7) // 8).sum()) + n:
        return None
    shortest = int(lengths.min())
    if shortest == longest:  # one length: a reshape of the data
        rows = np.asarray(data[int(offsets[0]) : int(offsets[-1])], dtype=np.uint8).reshape(n, longest)
        if longest % 8:
            rows = np.concatenate((rows, np.zeros((n, 8 * width - longest), dtype=np.uint8)), axis=1)
        return np.ascontiguousarray(rows).view("<u8")
    out = np.empty((width, n), dtype=np.uint64)
    for k in range(width):
        out[k] = words_at(data, offsets[:-1] + 8 * k)
        if shortest < 8 * (k + 1):  # some strings end within this word: zero what follows them
            _mask_tails(out[k], lengths - 8 * k)
    return out.T


def _mask_tails(words: np.ndarray, remaining: np.ndarray) -> None:
    """Keep only the first ``remaining[i]`` bytes (all when 8 or more) of ``words[i]``."""
    short = np.flatnonzero(remaining < 8)
    if len(short) > len(words) // 4:  # most words: one pass over all
        words &= TAIL_MASKS[np.clip(remaining, 0, 8)]
    else:
        words[short] &= TAIL_MASKS[np.maximum(remaining[short], 0)]


def _matrix_keys(lengths: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash per row of words, seeded with the string's length."""
    keys = lengths.astype(np.uint64) * _MULT
    for k in range(rows.shape[1]):
        keys ^= rows[:, k]
        keys *= _MIX
        keys ^= keys >> np.uint64(31)
    return keys


def byte_keys(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """A 64-bit hash per byte string ``data[offsets[i]:offsets[i+1]]``: its
    length, then each 8-byte word (masked to the string) mixed in; each round
    touches only the strings long enough to have that word."""
    offsets = np.asarray(offsets, dtype=np.int64)
    rows = word_matrix(offsets, data)
    if rows is not None:
        return _matrix_keys(offsets[1:] - offsets[:-1], rows)
    starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
    words = unaligned_words(data)
    keys = lengths.astype(np.uint64) * _MULT
    idx = np.flatnonzero(lengths > 0)
    k = 0
    while len(idx):
        remaining = lengths[idx] - 8 * k
        word = words[starts[idx] + 8 * k] & TAIL_MASKS[np.minimum(remaining, 8)]
        mixed = (keys[idx] ^ word) * _MIX
        keys[idx] = mixed ^ (mixed >> np.uint64(31))
        idx = idx[remaining > 8]
        k += 1
    return keys


def numeric_keys(values: np.ndarray) -> np.ndarray:
    """Numbers by bit pattern: an unsigned view of the same width."""
    values = np.ascontiguousarray(values)
    return values.view(f"u{values.dtype.itemsize}")


def _same_rows(lengths: np.ndarray, rows: np.ndarray, found: Distinct) -> bool:
    """Whether every value ``found`` covers has the length and word matrix row of
    its entry's first value. The entries' rows are gathered first, so the
    per-value gather reads from a few rows that stay in cache."""
    covered = len(found.ids)
    ids = found.ids.astype(np.intp)  # once, rather than on every take

    def same(column: np.ndarray) -> bool:
        return np.array_equal(column[:covered], np.take(column[found.first], ids, axis=0))

    if not same(lengths):
        return False
    if rows.flags.c_contiguous:  # rows laid out one after another: whole rows at once
        return same(rows)
    return all(same(column) for column in rows.T)


def _same_bytes(offsets: np.ndarray, data: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether strings ``a[i]`` and ``b[i]`` are equal for every ``i``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    if not np.array_equal(lengths[a], lengths[b]):
        return False
    words = unaligned_words(data)
    keep = np.flatnonzero((lengths[a] > 0) & (a != b))
    a, b, la = a[keep], b[keep], lengths[a[keep]]
    k = 0
    while len(a):
        remaining = la - 8 * k
        mask = TAIL_MASKS[np.minimum(remaining, 8)]
        if ((words[offsets[a] + 8 * k] ^ words[offsets[b] + 8 * k]) & mask).any():
            return False
        more = remaining > 8
        a, b, la = a[more], b[more], la[more]
        k += 1
    return True


# Odd multipliers of the successive levels of a _Table.
_LEVEL_MULTS = tuple(np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                            0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53))


@dataclass
class _Level:
    """One level of a _Table: each key sits in its home slot or not at all."""

    mult: np.uint64
    bits: int
    keys: np.ndarray
    ids: np.ndarray

    def slots(self, keys: np.ndarray) -> np.ndarray:
        slot = keys * self.mult
        slot >>= np.uint64(64 - self.bits)
        return slot.view(np.int64)  # in place: allocations dominate at these sizes


class _Table:
    """A hash table of distinct uint64 keys, built and probed with array
    operations: a cascade of levels (load factor at most 1/4) where a key whose
    home slot is taken moves to the next level, hashed anew. A query stops at
    the first level whose home slot is empty or holds it, so there is no
    probing loop: each level touches only the keys still unresolved."""

    def __init__(self, keys: np.ndarray) -> None:
        self.levels: list[_Level] = []
        ids = np.arange(len(keys), dtype=np.int32)
        depth = 0
        while len(ids):
            mult = _LEVEL_MULTS[depth] if depth < len(_LEVEL_MULTS) else _odd_mult(depth)
            bits = max(4, (4 * len(ids)).bit_length())
            level = _Level(mult, bits, np.zeros(1 << bits, dtype=np.uint64), np.full(1 << bits, -1, dtype=np.int32))
            pending = keys[ids]
            slot = level.slots(pending)
            level.ids[slot] = ids  # among equal slots one write wins
            won = level.ids[slot] == ids
            level.keys[slot[won]] = pending[won]
            self.levels.append(level)
            ids = ids[~won]
            depth += 1

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Entry id of each key, -1 where absent."""
        out = np.full(len(keys), -1, dtype=np.int32) if not self.levels else None
        todo: np.ndarray | None = None  # None: every key
        for level in self.levels:
            query = keys if todo is None else keys[todo]
            slot = level.slots(query)
            ids = level.ids[slot]
            # An empty slot holds key 0 and id -1, so a match there still reads -1: absent.
            found = level.keys[slot] == query
            taken = ids >= 0  # home slot taken by another key: look further down
            taken &= ~found
            if todo is None:
                out = np.where(found, ids, np.int32(-1))
                todo = np.flatnonzero(taken)
            else:
                out[todo[found]] = ids[found]
                todo = todo[taken]
            if not len(todo):
                break
        return out


def _odd_mult(depth: int) -> np.uint64:
    """A further odd multiplier for deep levels (never needed in practice)."""
    return np.uint64(((0x9E3779B97F4A7C15 * (2 * depth + 1)) | 1) & 0xFFFFFFFFFFFFFFFF)


#: Values in the first block of a distinct count (later blocks double): enough to
#: hold every key of a low-cardinality column, small enough that sorting it costs little.
TABLE_SAMPLE = 16384

#: The dictionary bytes of the entries first seen at the given value positions.
EntryBytes = Callable[[np.ndarray], int]


def distinct(keys: np.ndarray, probe: int = 65536, *, entry_bytes: EntryBytes | None = None,
             limit: float | None = None) -> Distinct:
    """Number equal keys in order of first appearance (as parquet-java and
    pyarrow number dictionary entries).

    The keys are taken in blocks, the first of ``min(probe, TABLE_SAMPLE)``
    values and each next one twice as large: a block's keys are looked up in
    a hash table of the entries found so far and only the missing ones are
    sorted into new entries. With ``entry_bytes`` and ``limit`` the count stops
    after the block in which the entries' sizes pass ``limit``, so a
    dictionary that will be abandoned is never built for the whole chunk;
    ``ids`` then covers only the values up to there.
    """
    keys = np.asarray(keys).astype(np.uint64, copy=False)
    n = len(keys)
    ids = np.empty(n, dtype=np.int32)
    known, first = np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    table, stale = None, False
    start, block, grown = 0, max(1, min(probe, TABLE_SAMPLE)), 0
    while start < n and (limit is None or grown <= limit):
        if stale:  # entries were added: the next block looks them up too
            table, stale = _Table(known), False
        stop = min(n, start + block)
        new_keys, new_first = _number_block(keys[start:stop], table, len(known), ids[start:stop])
        if len(new_keys):
            new_first += start
            known, first = np.concatenate((known, new_keys)), np.concatenate((first, new_first))
            grown += 0 if entry_bytes is None else entry_bytes(new_first)
            stale = True
        start, block = stop, 2 * block
    return Distinct(ids[:start], first)


def _number_block(keys: np.ndarray, table: _Table | None, known: int,
                  out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Write each key's entry into ``out``: its entry in ``table``, or a new one
    numbered from ``known`` on in order of first appearance. Returns the new
    entries' keys and where in ``keys`` each first appears."""
    out[:] = -1 if table is None else table.lookup(keys)
    miss = np.flatnonzero(out < 0)
    if not len(miss):
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    new_keys, at, inverse = np.unique(keys[miss], return_index=True, return_inverse=True)
    order = np.argsort(at, kind="stable")
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(known, known + len(order), dtype=np.int32)
    out[miss] = rank[inverse.reshape(-1)]
    return new_keys[order], miss[at[order]].astype(np.int64)


def distinct_bytes(offsets: np.ndarray, data: np.ndarray, probe: int = 65536, *,
                   entry_bytes: EntryBytes | None = None, limit: float | None = None) -> Distinct:
    """Distinct byte strings, hashed then verified; exact on a hash collision
    (see :func:`distinct` for ``entry_bytes`` and ``limit``)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    rows = word_matrix(offsets, data)
    if rows is None:
        found = distinct(byte_keys(offsets, data), probe, entry_bytes=entry_bytes, limit=limit)
        same = _same_bytes(offsets, data, np.arange(len(found.ids)), found.first[found.ids])
    else:
        found = distinct(_matrix_keys(lengths, rows), probe, entry_bytes=entry_bytes, limit=limit)
        same = _same_rows(lengths, rows, found)
    return found if same else _distinct_exact(offsets, data)


def _distinct_exact(offsets: np.ndarray, data: np.ndarray) -> Distinct:
    raw = np.asarray(data).tobytes()
    bounds = np.asarray(offsets).tolist()
    table: dict[bytes, int] = {}
    ids = np.empty(len(bounds) - 1, dtype=np.int32)
    first: list[int] = []
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        key = raw[a:b]
        entry = table.get(key)
        if entry is None:
            entry = table[key] = len(first)
            first.append(i)
        ids[i] = entry
    return Distinct(ids, np.array(first, dtype=np.int64))


def distinct_values(values: np.ndarray, probe: int = 65536, *, entry_bytes: EntryBytes | None = None,
                    limit: float | None = None) -> Distinct:
    """Distinct numbers (1-D) or fixed-length byte rows (2-D ``(n, width)`` uint8)
    (see :func:`distinct` for ``entry_bytes`` and ``limit``)."""
    stop_at = {"entry_bytes": entry_bytes, "limit": limit}
    if values.ndim == 1:
        return distinct(numeric_keys(values), probe, **stop_at)
    n, width = values.shape
    if width in (1, 2, 4, 8):
        return distinct(np.ascontiguousarray(values).view(f"<u{width}").reshape(n), probe, **stop_at)
    offsets = np.arange(n + 1, dtype=np.int64) * width
    return distinct_bytes(offsets, np.ascontiguousarray(values).reshape(-1), probe, **stop_at)


__all__ = ["Distinct", "byte_keys", "word_matrix", "distinct", "distinct_bytes", "distinct_values", "numeric_keys"]
