"""Cutting the length prefixes out of a PLAIN BYTE_ARRAY page, four bytes at a time.

Spec, Encodings, "Plain": a BYTE_ARRAY value is a 4-byte little-endian length
followed by its bytes. Once the values' places are known (plain.py), Arrow's
layout wants their bytes back to back: the page less its prefixes. For pages
of values of 4 to 255 bytes (text, mostly) that is done on the page read as
uint32 words, without copying value by value: every word but the one holding
each prefix's length byte is kept. The value before a prefix may end inside
that word, in the bytes before the length byte; the word after starts with
the prefix's last bytes, zeros, as many as those. So those bytes are first
OR-ed into the word after, and the kept words, taken in order, are the values'
bytes exactly (plus the page's last 0-3 bytes, which end the last value).

The words to drop are marked by a byte mask of the length bytes: made from
the values' starts (:func:`strip_prefixes`), or, for text, the very mask that
found them (:func:`strip_marked`, from :func:`.prefix_walk.length_bytes`).
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.byte_arrays import ByteArrays
from parquet_codec.memory import default_pool

#: Values of 4 to 255 bytes: then no word holds two length bytes, and a
#: prefix's bytes after its length byte are zeros.
_SHORTEST, _LONGEST = 4, 255


def strip_prefixes(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> ByteArrays | None:
    """The values ``arr[starts[i] : starts[i] + lengths[i]]`` of a PLAIN page
    (``arr`` from its first prefix: ``starts[0] == 4``, each value's prefix
    right after the value before) as ByteArrays; None when they are not all
    of 4 to 255 bytes (the caller copies them range by range)."""
    count = len(lengths)
    if not count or starts[0] != 4 or lengths.min() < _SHORTEST or lengths.max() > _LONGEST:
        return None
    ends = starts + lengths
    size = int(ends[-1])
    marks = default_pool().empty(size, np.uint8)
    marks[: 4 * (size // 4)].fill(0)
    marks[starts - 4] = 1  # the length bytes (the last lies at least 8 bytes before the end)
    return _strip(arr[:size], marks, ends)


def strip_marked(arr: np.ndarray, found: np.ndarray, ends: np.ndarray, marks: np.ndarray) -> ByteArrays | None:
    """The values of the PLAIN page ``arr`` (from its first prefix to its last
    value's end) as ByteArrays, cut with the mask of length bytes that found
    them (:func:`.prefix_walk.length_bytes` gives ``found``, ``ends`` and
    ``marks``); None when some value is under 4 bytes or the mask marks more
    than the length bytes (the caller then copies the values range by range)."""
    count = len(found)
    lengths = ends - found
    lengths -= 4
    if lengths.min() < _SHORTEST or np.count_nonzero(marks) != count:
        return None
    return _strip(arr, marks.view(np.uint8), ends)


def _strip(page: np.ndarray, marks: np.ndarray, ends: np.ndarray) -> ByteArrays:
    """The values of ``page`` (of ``size`` bytes) whose length bytes are the
    ones set to 1 in ``marks`` (0 elsewhere, in its first ``size // 4`` words)
    and which end at ``ends``."""
    size, count = len(page), len(ends)
    whole, total = size // 4, size - 4 * count
    # The temporaries (and the output) from the pool: fresh memory for each
    # page costs more in page faults than the work done in it.
    pool = default_pool()
    scratch = pool.empty(9 * whole + size, np.uint8)
    if page.ctypes.data % 4:  # word-wise reads of unaligned memory are several times slower
        aligned = scratch[9 * whole :]
        aligned[:] = page
        page = aligned
    words = page[: 4 * whole].view(np.uint32)
    flags = marks[: 4 * whole].view(np.uint32)
    flagged = np.not_equal(flags, 0, out=scratch[8 * whole : 9 * whole].view(np.bool_))
    before = np.subtract(flags, flagged, out=scratch[: 4 * whole].view(np.uint32))  # a flag at byte j: the j bytes before it
    before &= words
    moved = scratch[4 * whole : 8 * whole].view(np.uint32)
    moved[0] = words[0]
    np.bitwise_or(words[1:], before[:-1], out=moved[1:])
    kept = np.flatnonzero(np.logical_not(flagged, out=flagged))
    out = pool.empty((total + 3) // 4, np.uint32)
    np.take(moved, kept, out=out[: whole - count], mode="clip")  # (kept lie in range: no bounds check)
    data = out.view(np.uint8)
    tail = size - 4 * whole
    if tail:
        data[total - tail : total] = page[size - tail :]
    offsets = np.empty(count + 1, dtype=np.int64)
    offsets[0] = 0
    # Value i ends at ends[i] in the page, after i + 1 prefixes of 4 bytes.
    np.subtract(ends, np.arange(4, 4 * count + 1, 4, dtype=np.int64), out=offsets[1:])
    return ByteArrays(offsets, data[:total])


__all__ = ["strip_marked", "strip_prefixes"]
