"""Distinct values of a column chunk, for dictionary encoding (Encodings.md,
"Dictionary Encoding").

Every value gets a 64-bit *key*: numbers use their own bit pattern (so -0.0
and +0.0, or two NaN payloads, stay distinct values), byte strings and
fixed-length rows a hash of their bytes computed word by word over all values
at once. Strings of similar lengths are first laid out as a matrix of
zero-padded 8-byte words (:func:`word_matrix`: a plain reshape when all have
one length), so hashing is a few passes over its columns and verification
one row gather and compare; very uneven lengths are walked word by word.
Keys are matched against the distinct keys of a first slice of the
values in a hash table probed with array operations (linear time, where a
binary search costs ~100 ns per value); only keys missing from that slice
are sorted. Hashed keys are then verified byte for byte against the
representative of their key, and a collision (never seen in practice) falls
back to an exact comparison of the bytes.

Each entry records where it first appears (:attr:`Distinct.first`), so the
dictionary size after any prefix of the values is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parquet_codec.encodings.byte_arrays import TAIL_MASKS, unaligned_words

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
    if int(lengths.min()) == longest:  # one length: a reshape of the data
        rows = np.asarray(data[int(offsets[0]) : int(offsets[-1])], dtype=np.uint8).reshape(n, longest)
        if longest % 8:
            rows = np.concatenate((rows, np.zeros((n, 8 * width - longest), dtype=np.uint8)), axis=1)
        return np.ascontiguousarray(rows).view("<u8")
    words = unaligned_words(data)
    out = np.empty((width, n), dtype=np.uint64)
    for k in range(width):
        np.take(words, np.minimum(offsets[:-1] + 8 * k, len(words) - 1), out=out[k])
        out[k] &= TAIL_MASKS[np.clip(lengths - 8 * k, 0, 8)]
    return out.T


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


def _same_rows(lengths: np.ndarray, rows: np.ndarray, rep: np.ndarray) -> bool:
    """Whether every row of a word matrix holds the same string as row ``rep[i]``."""
    if not np.array_equal(lengths, np.take(lengths, rep)):
        return False
    return bool((rows == np.take(rows, rep, axis=0)).all())  # take: far faster than rows[rep] on 2-D


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


#: Most values whose distinct keys seed the hash table: enough to hold every key of a
#: low-cardinality column, small enough that sorting it costs little.
TABLE_SAMPLE = 16384


def distinct(keys: np.ndarray, probe: int = 65536) -> Distinct:
    """Number equal keys: the distinct keys of the first ``min(probe, TABLE_SAMPLE)``
    values go into a hash table, keys missing from it are sorted out separately."""
    keys = np.asarray(keys).astype(np.uint64, copy=False)
    n = len(keys)
    if n == 0:
        return Distinct(np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64))
    m = min(n, probe, TABLE_SAMPLE)
    if m == n:  # everything is the probe: one sort does it
        known, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return Distinct(inverse.astype(np.int32).reshape(-1), first.astype(np.int64))
    known, first = np.unique(keys[:m], return_index=True)
    ids = _Table(known).lookup(keys)
    miss = np.flatnonzero(ids < 0)
    if len(miss):
        _, extra_first, extra_ids = np.unique(keys[miss], return_index=True, return_inverse=True)
        ids[miss] = len(known) + extra_ids
        first = np.concatenate((first, miss[extra_first]))
    return Distinct(ids, first.astype(np.int64))


def distinct_bytes(offsets: np.ndarray, data: np.ndarray, probe: int = 65536) -> Distinct:
    """Distinct byte strings, hashed then verified; exact on a hash collision."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    rows = word_matrix(offsets, data)
    if rows is None:
        found = distinct(byte_keys(offsets, data), probe)
        same = _same_bytes(offsets, data, np.arange(len(found.ids)), found.first[found.ids])
    else:
        found = distinct(_matrix_keys(lengths, rows), probe)
        same = _same_rows(lengths, rows, found.first[found.ids])
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


def distinct_values(values: np.ndarray, probe: int = 65536) -> Distinct:
    """Distinct numbers (1-D) or fixed-length byte rows (2-D ``(n, width)`` uint8)."""
    if values.ndim == 1:
        return distinct(numeric_keys(values), probe)
    n, width = values.shape
    if width in (1, 2, 4, 8):
        return distinct(np.ascontiguousarray(values).view(f"<u{width}").reshape(n), probe)
    offsets = np.arange(n + 1, dtype=np.int64) * width
    return distinct_bytes(offsets, np.ascontiguousarray(values).reshape(-1), probe)


__all__ = ["Distinct", "byte_keys", "word_matrix", "distinct", "distinct_bytes", "distinct_values", "numeric_keys"]
