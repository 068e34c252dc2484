"""Distinct values of a column chunk, for dictionary encoding (Encodings.md,
"Dictionary Encoding").

Every value gets a 64-bit *key*: numbers use their own bit pattern (so -0.0
and +0.0, or two NaN payloads, stay distinct values), byte strings and
fixed-length rows a hash of their bytes computed word by word over all values
at once. Keys are matched against the distinct keys of a first slice of the
values in an open-addressing hash table probed with array operations
(linear time, where a binary search costs ~100 ns per value); only keys
missing from that slice are sorted. Hashed keys are then verified byte for byte against the
representative of their key, and a collision (never seen in practice) falls
back to an exact comparison of the bytes.

Each entry records where it first appears (:attr:`Distinct.first`), so the
dictionary size after any prefix of the values is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


def _unaligned_words(data: np.ndarray) -> np.ndarray:
    """``words[p]`` = the 8 bytes at ``data[p:p+8]`` as a little-endian uint64 (zero past the end)."""
    padded = np.concatenate((np.asarray(data, dtype=np.uint8).reshape(-1), np.zeros(8, dtype=np.uint8)))
    return np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))


def byte_keys(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """A 64-bit hash per byte string ``data[offsets[i]:offsets[i+1]]``: its
    length, then each 8-byte word (masked to the string) mixed in; each round
    touches only the strings long enough to have that word."""
    offsets = np.asarray(offsets, dtype=np.int64)
    starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
    words = _unaligned_words(data)
    keys = lengths.astype(np.uint64) * _MULT
    idx = np.flatnonzero(lengths > 0)
    k = 0
    while len(idx):
        remaining = lengths[idx] - 8 * k
        word = words[starts[idx] + 8 * k]
        short = remaining < 8
        if short.any():
            bits = (remaining[short] * 8).astype(np.uint64)
            word[short] &= (np.uint64(1) << bits) - np.uint64(1)
        keys[idx] = ((keys[idx] ^ word) * _MIX) ^ (keys[idx] >> np.uint64(29))
        idx = idx[remaining > 8]
        k += 1
    return keys


def numeric_keys(values: np.ndarray) -> np.ndarray:
    """Numbers by bit pattern: an unsigned view of the same width."""
    values = np.ascontiguousarray(values)
    return values.view(f"u{values.dtype.itemsize}")


def _same_bytes(offsets: np.ndarray, data: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether strings ``a[i]`` and ``b[i]`` are equal for every ``i``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    if not np.array_equal(lengths[a], lengths[b]):
        return False
    words = _unaligned_words(data)
    keep = np.flatnonzero((lengths[a] > 0) & (a != b))
    a, b, la = a[keep], b[keep], lengths[a[keep]]
    k = 0
    while len(a):
        wa, wb = words[offsets[a] + 8 * k], words[offsets[b] + 8 * k]
        remaining = la - 8 * k
        short = remaining < 8
        mask = np.full(len(a), np.uint64(0xFFFFFFFFFFFFFFFF))
        mask[short] = (np.uint64(1) << (remaining[short] * 8).astype(np.uint64)) - np.uint64(1)
        if ((wa ^ wb) & mask).any():
            return False
        more = remaining > 8
        a, b, la = a[more], b[more], la[more]
        k += 1
    return True


class _Table:
    """An open-addressing hash table of distinct uint64 keys, built and probed
    with array operations (linear probing, load factor at most 1/4)."""

    def __init__(self, keys: np.ndarray) -> None:
        self.bits = max(4, (4 * len(keys)).bit_length())
        size = 1 << self.bits
        self.keys = np.zeros(size, dtype=np.uint64)
        self.ids = np.full(size, -1, dtype=np.int32)
        pending = np.arange(len(keys), dtype=np.int32)
        slot = self.slots(keys)
        while len(pending):
            free = self.ids[slot] == -1
            self.ids[slot[free]] = pending[free]  # among equal slots one write wins
            won = np.zeros(len(pending), dtype=bool)
            won[free] = self.ids[slot[free]] == pending[free]
            self.keys[slot[won]] = keys[pending[won]]
            pending, slot = pending[~won], (slot[~won] + 1) & (size - 1)

    def slots(self, keys: np.ndarray) -> np.ndarray:
        slot = keys * _MULT
        slot >>= np.uint64(64 - self.bits)
        return slot.view(np.int64)  # in place: allocations dominate at these sizes

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Entry id of each key, -1 where absent."""
        slot = self.slots(keys)
        ids = self.ids[slot]
        hit = self.keys[slot] == keys
        if hit.all():
            return ids
        out = np.where(hit & (ids >= 0), ids, -1)
        todo = np.flatnonzero(~hit & (ids >= 0))  # slot taken by another key: probe on
        mask = len(self.ids) - 1
        while len(todo):
            slot[todo] = (slot[todo] + 1) & mask
            ids, found = self.ids[slot[todo]], self.keys[slot[todo]] == keys[todo]
            out[todo[found & (ids >= 0)]] = ids[found & (ids >= 0)]
            todo = todo[~found & (ids >= 0)]
        return out


def distinct(keys: np.ndarray, probe: int = 65536) -> Distinct:
    """Number equal keys: the distinct keys of the first ``probe`` values go
    into a hash table, keys missing from it are sorted out separately."""
    keys = np.asarray(keys).astype(np.uint64, copy=False)
    n = len(keys)
    if n == 0:
        return Distinct(np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64))
    m = min(n, probe)
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
    found = distinct(byte_keys(offsets, data), probe)
    if _same_bytes(offsets, data, np.arange(len(found.ids)), found.first[found.ids]):
        return found
    return _distinct_exact(offsets, data)


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


__all__ = ["Distinct", "byte_keys", "distinct", "distinct_bytes", "distinct_values", "numeric_keys"]
