"""Variable-length binary values in the Arrow layout: one data buffer plus offsets.

Every BYTE_ARRAY encoder and decoder (PLAIN, DELTA_LENGTH_BYTE_ARRAY,
DELTA_BYTE_ARRAY, dictionary) exchanges values as :class:`ByteArrays` so that
no layer ever materializes one Python object per value unless asked to.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

# Scratch index arrays are 8 bytes per gathered byte; bound them per chunk.
_GATHER_CHUNK_BYTES = 1 << 22
# ByteArrays.take copies values of one length as rows when it takes at least
# this many values per distinct one.
_ROW_TAKE_REPEATS = 4


class ByteArrays(NamedTuple):
    """``n`` byte strings: value ``i`` is ``data[offsets[i]:offsets[i + 1]]``.

    ``offsets`` is int64 of length ``n + 1`` starting at 0 and non-decreasing;
    ``data`` is uint8.
    """

    offsets: np.ndarray
    data: np.ndarray

    @classmethod
    def from_pylist(cls, values: Iterable[bytes | bytearray | memoryview | str]) -> ByteArrays:
        """Build from Python byte strings (``str`` is encoded as UTF-8)."""
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
        return cls.from_lengths(np.fromiter(map(len, items), dtype=np.int64, count=len(items)), b"".join(items))

    @classmethod
    def from_lengths(cls, lengths: np.ndarray, data: object) -> ByteArrays:
        """Build from per-value lengths and the concatenated bytes (copied)."""
        lengths = np.asarray(lengths, dtype=np.int64)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        buf = np.array(np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data, dtype=np.uint8)
        if offsets[-1] != len(buf):
            raise ValueError(f"lengths sum to {offsets[-1]} but data has {len(buf)} bytes")
        return cls(offsets, buf.reshape(-1))

    @classmethod
    def from_fixed(cls, values: np.ndarray) -> ByteArrays:
        """View an ``(n, width)`` uint8 array (FIXED_LEN_BYTE_ARRAY values) as ByteArrays."""
        values = np.ascontiguousarray(values, dtype=np.uint8)
        if values.ndim != 2:
            raise ValueError(f"expected an (n, width) array, got shape {values.shape}")
        n, width = values.shape
        return cls(np.arange(n + 1, dtype=np.int64) * width, values.reshape(-1))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    # A NamedTuple compares as a tuple, which is ambiguous for arrays; compare contents.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ByteArrays):
            return NotImplemented
        a, b = self.lengths(), other.lengths()
        return bool(
            np.array_equal(a, b)
            and np.array_equal(self.data[self.offsets[0] : self.offsets[-1]], other.data[other.offsets[0] : other.offsets[-1]])
        )

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def lengths(self) -> np.ndarray:
        """Byte length of each value (int64)."""
        return np.diff(self.offsets)

    def to_pylist(self) -> list[bytes]:
        """The values as a list of ``bytes``."""
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        return [raw[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def take(self, indices: np.ndarray) -> ByteArrays:
        """Values at ``indices`` (no bounds check beyond numpy's), as new ByteArrays."""
        idx = np.asarray(indices, dtype=np.intp)
        lengths = self.lengths()
        if len(lengths) and len(idx) >= _ROW_TAKE_REPEATS * len(lengths) and lengths.min() == lengths.max():
            # Values of one length (a dictionary of codes, say) are rows of a
            # 2-D array, taken whole: a copy per row, no index per byte.
            width = int(lengths[0])
            offsets = np.arange(len(idx) + 1, dtype=np.int64) * width
            first = int(self.offsets[0])
            rows = self.data[first : first + width * len(lengths)].reshape(len(lengths), width)
            return ByteArrays(offsets, rows.take(idx, axis=0).reshape(-1))
        starts = self.offsets[:-1][idx]
        return ByteArrays(*gather_ranges(self.data, starts, self.offsets[1:][idx] - starts))


def gather_ranges(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate ``data[starts[i] : starts[i] + lengths[i]]`` for all ``i``, vectorized.

    Returns (offsets int64 of length n + 1, the concatenated uint8 bytes).
    The caller guarantees the ranges lie inside ``data``.
    """
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    out = np.empty(total, dtype=np.uint8)
    if total == 0:
        return offsets, out
    if len(lengths) and lengths.min() == lengths.max():
        # Equal lengths: copy rows of a sliding window, no per-byte index array.
        width = int(lengths[0])
        windows = np.lib.stride_tricks.sliding_window_view(data, width)
        out.reshape(-1, width)[:] = windows[starts]
        return offsets, out
    # Chunk by output bytes so the int64 index scratch stays bounded (and is
    # reused: fresh large allocations cost page faults on every chunk).
    cuts = np.searchsorted(offsets, np.arange(0, total, _GATHER_CHUNK_BYTES), side="right") - 1
    bounds = np.unique(np.append(cuts, len(lengths)))
    scratch = np.empty(min(total, _GATHER_CHUNK_BYTES), dtype=np.int64)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        a, b = int(offsets[lo]), int(offsets[hi])
        index = scratch[: b - a] if b - a <= len(scratch) else np.empty(b - a, dtype=np.int64)
        np.take(data, _range_index(starts[lo:hi], lengths[lo:hi], index), out=out[a:b])
    return offsets, out


def _range_index(starts: np.ndarray, lengths: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Fill ``index`` with the source position of every byte of the concatenated
    ranges: a cumsum of ones with a jump at each range start."""
    keep = lengths > 0
    starts, lengths = starts[keep], lengths[keep]
    index.fill(1)
    first = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=first[1:])
    jumps = starts.copy()
    # At each range start, jump from the previous range's last byte to this start.
    jumps[1:] -= starts[:-1] + lengths[:-1] - 1
    index[first] = jumps
    return np.cumsum(index, out=index)


#: ``TAIL_MASKS[r]`` keeps the first ``r`` bytes (0..8) of a little-endian uint64 word.
TAIL_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def unaligned_words(data: np.ndarray) -> np.ndarray:
    """``words[p]`` = the 8 bytes at ``data[p:p+8]`` as a little-endian uint64
    (zero past the end), for comparing and hashing byte strings a word at a time."""
    padded = np.concatenate((np.asarray(data, dtype=np.uint8).reshape(-1), np.zeros(8, dtype=np.uint8)))
    return np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))


def words_at(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The 8 bytes at each of ``positions`` (non-negative) of ``data`` as
    little-endian uint64, zero past the end: ``unaligned_words(data)[positions]``
    without copying all of ``data`` first."""
    data = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    last = len(data) - 8  # the last position with 8 bytes after it
    if last < 0:
        return unaligned_words(data)[np.minimum(positions, len(data))]
    view = np.ndarray((last + 1,), dtype="<u8", buffer=data, strides=(1,))
    words = view[np.minimum(positions, last)]
    late = np.flatnonzero(positions > last)
    if len(late):
        words[late] = unaligned_words(data[last:])[np.minimum(positions[late] - last, 8)]
    return words
