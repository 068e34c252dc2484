"""Variable-length binary values in the Arrow layout: one data buffer plus offsets.

Every BYTE_ARRAY encoder and decoder (PLAIN, DELTA_LENGTH_BYTE_ARRAY,
DELTA_BYTE_ARRAY, dictionary) exchanges values as :class:`ByteArrays` so that
no layer ever materializes one Python object per value unless asked to.
:class:`ByteArraysBuilder` gathers the values of a column chunk's pages into
one ByteArrays, copying each value once (:func:`copy_ranges`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from parquet_codec.memory import default_pool

# Scratch index arrays are 8 bytes per gathered byte; bound them per chunk.
_GATHER_CHUNK_BYTES = 1 << 22
# ByteArrays.take copies values of one length as rows when it takes at least
# this many values per distinct one.
_ROW_TAKE_REPEATS = 4
# copy_ranges moves values as void items (about _VALUE_NS each, whatever
# their length; more when sorted into length classes, _CLASS_NS a class)
# instead of byte by byte through an index (_BYTE_NS a byte) when this
# model, measured, says it pays. Items are never shorter than
# _MIN_ITEM_BYTES. When at least _WINDOW_SHARE of a sample has one length
# (up to _MAX_WINDOW), all values are first copied at that length. Length
# classes are found with one comparison each when they span less than
# _SCAN_WIDTHS, else by a sort.
_VALUE_NS = 20
_CLASS_NS = 10_000
_BYTE_NS = 1.7
_MIN_ITEM_BYTES = 8
_WINDOW_SHARE = 0.75
_MAX_WINDOW = 256
_WINDOW_PASSES = 8
_SCAN_WIDTHS = 4
_SAMPLE = 256
# ByteArraysBuilder sizes its first block as this many parts of the first
# part's size (pages of a chunk are alike), or from the first part's bytes
# per value when the values to come are counted, with _EXPECTED_SLACK to
# spare; at most _FIRST_BLOCK_BYTES: memory never written costs nothing and
# the block is trimmed at the end.
_GUESSED_PARTS = 64
_EXPECTED_SLACK = 1.125
_FIRST_BLOCK_BYTES = 1 << 28
# A block from the memory pool cannot be trimmed: it is returned as it is when
# at least 1 / _KEPT_SHARE of it is used, else what is used is copied out.
_KEPT_SHARE = 2


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
        width = self._row_width(len(idx))
        if width is not None:
            # Values of one length (a dictionary of codes, say) are rows of a
            # 2-D array, taken whole: a copy per row, no index per byte.
            offsets = np.arange(len(idx) + 1, dtype=np.int64)
            offsets *= width
            return ByteArrays(offsets, self._as_rows(width).take(idx, axis=0).reshape(-1))
        starts = self.offsets[:-1][idx]
        return ByteArrays(*gather_ranges(self.data, starts, self.offsets[1:][idx] - starts))

    def taken_size(self, indices: np.ndarray) -> int:
        """The bytes :meth:`take` copies for ``indices``."""
        width = self._row_width(len(indices))
        return width * len(indices) if width is not None else int(self.lengths()[indices].sum())

    def _row_width(self, taken: int) -> int | None:
        """The length all values share when taking ``taken`` of them is worth
        copying rows (several per value); None otherwise."""
        lengths = self.lengths()
        if not len(lengths) or taken < _ROW_TAKE_REPEATS * len(lengths) or lengths.min() != lengths.max():
            return None
        return int(lengths[0])

    def _as_rows(self, width: int) -> np.ndarray:
        """The values, all ``width`` bytes long, as the rows of a 2-D array."""
        first = int(self.offsets[0])
        return self.data[first : first + width * len(self)].reshape(len(self), width)


def spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions ``starts[i] .. starts[i] + lengths[i] - 1`` for all ``i``, concatenated
    (the index of the ranges :func:`gather_ranges` copies)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths
    return np.repeat(np.asarray(starts, dtype=np.int64) - first, lengths) + np.arange(total, dtype=np.int64)


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
    if total and lengths.min() == lengths.max():
        # One length: the values are rows, moved whole straight into the result.
        rows = _rows(np.ascontiguousarray(data, dtype=np.uint8).reshape(-1), int(lengths[0]))
        return offsets, rows[starts].view(np.uint8)
    out = np.empty(total, dtype=np.uint8)
    copy_ranges(data, starts, lengths, offsets, out)
    return offsets, out


def copy_ranges(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, offsets: np.ndarray,
                out: np.ndarray) -> None:
    """Copy ``data[starts[i] : starts[i] + lengths[i]]`` to ``out[offsets[i] : offsets[i + 1]]``
    for all ``i`` (``offsets``: the running sum of ``lengths`` from 0, n + 1 entries).

    The caller guarantees the ranges lie inside ``data`` and ``out``; bytes
    of ``out`` past ``offsets[-1]`` may be overwritten. Where it pays (see
    _VALUE_NS), values move as void items, one per value: all at their
    commonest length, then exactly those it did not fit; or length class by
    length class. Otherwise they move byte by byte through an index.
    """
    data = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    total = int(offsets[-1])
    if total == 0:
        return
    width = _window_width(lengths, total, len(data))
    if width:
        redo = _copy_windows(data, starts, lengths, offsets, out, width)
        if len(redo):
            _copy_by_length(data, starts[redo], lengths[redo], out, offsets[redo])
        return
    if _classes_pay(lengths, total):
        _copy_by_length(data, starts, lengths, out, offsets)
        return
    # Chunk by output bytes so the int64 index scratch stays bounded (and is
    # reused: fresh large allocations cost page faults on every chunk).
    cuts = np.searchsorted(offsets, np.arange(0, total, _GATHER_CHUNK_BYTES), side="right") - 1
    bounds = np.unique(np.append(cuts, len(lengths)))
    scratch = np.empty(min(total, _GATHER_CHUNK_BYTES), dtype=np.int64)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        a, b = int(offsets[lo]), int(offsets[hi])
        index = scratch[: b - a] if b - a <= len(scratch) else np.empty(b - a, dtype=np.int64)
        np.take(data, _range_index(starts[lo:hi], lengths[lo:hi], index), out=out[a:b])


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


def _window_width(lengths: np.ndarray, total: int, available: int) -> int:
    """The commonest length in a sample of ``lengths``, when copying every
    value as that many bytes and then the others again pays; else 0."""
    count = len(lengths)
    if total < count * _MIN_ITEM_BYTES:
        return 0
    sample = lengths[:: max(count // _SAMPLE, 1)]
    counts = np.bincount(np.minimum(sample, _MAX_WINDOW + 1))  # (longer ones all count as one)
    width = int(np.argmax(counts))
    if counts[width] < _WINDOW_SHARE * len(sample) or not _MIN_ITEM_BYTES <= width <= min(available, _MAX_WINDOW):
        return 0
    return width


def _copy_windows(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, offsets: np.ndarray,
                  out: np.ndarray, width: int) -> np.ndarray:
    """Copy every value as the ``width`` bytes at its start, one void item
    each; return the positions of the values still to copy, exactly.

    A shorter value spills into the values after it, which are then copied
    again the same way, and so on (up to _WINDOW_PASSES times): a byte two
    windows of one pass wrote is written again later, so the order of the
    writes is moot. Left to copy exactly: the values longer than ``width``,
    those whose window would pass the end of ``out`` (the last few) or of
    ``data`` (short ones: they read the last ``width`` bytes instead), and
    those still spilled into.
    """
    at = offsets[:-1]
    fits = int(np.searchsorted(at, len(out) - width, side="right"))
    last_start = len(data) - width
    sources = np.minimum(starts[:fits], last_start)
    short = lengths[:fits] < width
    _copy_width_class(data, sources, out, at[:fits], width)
    copied = _spilled_into(at[:fits], np.flatnonzero(short), width)
    for _ in range(_WINDOW_PASSES):
        if not len(copied):
            break
        _copy_width_class(data, sources[copied], out, at[copied], width)
        copied = _spilled_into(at[:fits], copied[short[copied]], width)
    unfit = (lengths[:fits] > width) | (starts[:fits] > last_start)
    return np.concatenate((np.flatnonzero(unfit), copied, np.arange(fits, len(lengths))))


def _spilled_into(at: np.ndarray, spilling: np.ndarray, width: int) -> np.ndarray:
    """The values (ascending) after ``spilling`` (ascending, values shorter
    than ``width``) that start before the end of their ``width``-byte
    windows (written at ``at``)."""
    ends = at[spilling] + width
    after_next = at[np.minimum(spilling + 2, len(at) - 1)]
    if not np.any((after_next < ends) & (spilling + 2 < len(at))):
        # The usual case: a window spills into the next value at most.
        return spilling[: np.searchsorted(spilling, len(at) - 1)] + 1
    # The values from each one's next up to the first its window misses,
    # minus those the window before already reached (windows end in order).
    reach = np.searchsorted(at, ends)
    begin = spilling + 1
    np.maximum(begin[1:], reach[:-1], out=begin[1:])
    counts = np.maximum(reach - begin, 0)
    firsts = np.repeat(begin - (np.cumsum(counts) - counts), counts)
    return firsts + np.arange(len(firsts))


def _copy_by_length(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, out: np.ndarray,
                    at: np.ndarray) -> None:
    """Copy ``data[starts[i] : starts[i] + lengths[i]]`` to ``out[at[i] :]``, the
    values of each length as void items."""
    for width, chosen in _length_classes(lengths):
        _copy_width_class(data, starts[chosen], out, at[chosen], width)


def _copy_width_class(data: np.ndarray, starts: np.ndarray, out: np.ndarray, at: np.ndarray, width: int) -> None:
    """Copy ``data[starts[i] : starts[i] + width]`` to ``out[at[i] : at[i] + width]``:
    each value one void item (no index per byte), through a scratch of at most
    ``_GATHER_CHUNK_BYTES``; longer values one slice each (so no scratch)."""
    if width > _GATHER_CHUNK_BYTES:
        for start, to in zip(starts.tolist(), at.tolist(), strict=True):
            out[to : to + width] = data[start : start + width]
        return
    source, target = _rows(data, width), _rows(out, width)
    step = _GATHER_CHUNK_BYTES // width
    for lo in range(0, len(starts), step):
        target[at[lo : lo + step]] = source[starts[lo : lo + step]]


def _rows(buffer: np.ndarray, width: int) -> np.ndarray:
    """Every ``width`` bytes of ``buffer`` (at each position) as one void item."""
    return np.ndarray((len(buffer) - width + 1,), dtype=f"V{width}", buffer=buffer, strides=(1,))


def _length_classes(lengths: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(length, positions of the values of that length) for every nonzero length."""
    if not len(lengths):
        return []
    low, high = int(lengths.min()), int(lengths.max())
    if high - low < _SCAN_WIDTHS:
        widths = range(max(low, 1), high + 1)
        return [(w, chosen) for w in widths if len(chosen := np.flatnonzero(lengths == w))]
    key = lengths - low
    if high - low < 1 << 16:
        key = key.astype(np.uint16)  # sorted by radix
    order = np.argsort(key, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(key[order])) + 1)
    return [(w, group) for group in groups if (w := int(lengths[group[0]]))]


def _classes_pay(lengths: np.ndarray, total: int) -> bool:
    """Whether copying by length class beats an index per byte: a sample's
    lengths count the classes (twice that, as the sample misses some)."""
    count = len(lengths)
    if total < count * _MIN_ITEM_BYTES:
        return False
    classes = 2 * len(np.unique(lengths[:: max(count // _SAMPLE, 1)]))
    return classes * _CLASS_NS + count * _VALUE_NS < total * _BYTE_NS


class ByteArraysBuilder:
    """ByteArrays appended part by part (a column chunk's pages), each part
    copied once, straight into place: :meth:`finish` joins nothing unless
    the parts outgrew the first guess of their size, or ``count`` values of
    ``size`` bytes when those are given (then allocated exactly). With
    ``expected`` values (at most) to come, the data is guessed from that count."""

    def __init__(self, count: int = 0, size: int = 0, *, expected: int = 0) -> None:
        self._data = _Blocks(np.uint8, size)
        self._offsets = _Blocks(np.int64, count + 1 if count else expected + 1 if expected else 0)
        self._size = 0
        self._expected = 0 if count else expected

    def append_ranges(self, data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        """Append ``data[starts[i] : starts[i] + lengths[i]]`` for all ``i`` (ranges inside ``data``)."""
        offsets = np.empty(len(lengths) + 1, dtype=np.int64)
        offsets[0] = 0
        np.cumsum(lengths, out=offsets[1:])
        # Room past the part lets the last values be copied as windows too.
        copy_ranges(data, starts, lengths, offsets, self._claim(offsets[1:], spare=_MAX_WINDOW))

    def claim(self, lengths: np.ndarray) -> np.ndarray:
        """Append values of ``lengths`` bytes: the data bytes (uint8) they
        need, which the caller fills."""
        return self._claim(np.cumsum(lengths, dtype=np.int64))

    def append(self, values: ByteArrays) -> None:
        """Append all of ``values``."""
        first, last = int(values.offsets[0]), int(values.offsets[-1])
        self._claim(values.offsets[1:] - first)[:] = values.data[first:last]

    def append_take(self, values: ByteArrays, indices: np.ndarray) -> None:
        """Append ``values.take(indices)``, without the intermediate copy
        (``indices`` must lie in range: they are not checked)."""
        idx = np.asarray(indices, dtype=np.intp)
        width = values._row_width(len(idx))
        if width is None:
            starts = values.offsets[:-1][idx]
            self.append_ranges(values.data, starts, values.offsets[1:][idx] - starts)
            return
        ends = np.arange(1, len(idx) + 1, dtype=np.int64)
        ends *= width
        slots = self._claim(ends).reshape(len(idx), width)
        values._as_rows(width).take(idx, axis=0, out=slots, mode="clip")  # "raise" would copy through a buffer

    def _claim(self, ends: np.ndarray, spare: int = 0) -> np.ndarray:
        """Record values ending at ``ends`` (relative to the current end); the
        data bytes they need, to be filled by the caller, and up to ``spare``
        bytes after them that it may overwrite."""
        lead = 0 if self._offsets.blocks else 1  # the offsets begin with a 0
        slots = self._offsets.claim(len(ends) + lead)
        slots[:lead] = 0
        np.add(ends, self._size, out=slots[lead:])
        total = int(ends[-1]) if len(ends) else 0
        if self._expected and not self._data.blocks and len(ends):
            guess = total / len(ends) * self._expected * _EXPECTED_SLACK
            self._data.expect(min(int(guess), _FIRST_BLOCK_BYTES) + spare)
        self._size += total
        return self._data.claim(total, spare)

    def finish(self) -> ByteArrays:
        """The values appended, as ByteArrays (the builder is spent)."""
        if not self._offsets.blocks:
            return ByteArrays(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8))
        return ByteArrays(self._offsets.finish(), self._data.finish())


class _Blocks:
    """A 1-D array filled front to back in parts, none of which moves once
    written: a part that does not fit the current block starts a new one,
    twice as large. The first block holds ``capacity`` slots, or is guessed
    from the first part (as if all were its size); :meth:`finish` trims it
    (in place, or by copying out a pooled block's used part: _KEPT_SHARE),
    or joins several."""

    def __init__(self, dtype: type, capacity: int = 0) -> None:
        self._dtype = np.dtype(dtype)
        self.blocks: list[np.ndarray] = []
        self._used = 0  # slots filled in the last block
        self._capacity = capacity  # of the first block, when known

    def expect(self, capacity: int) -> None:
        """Size the first block (not made yet) for ``capacity`` slots."""
        self._capacity = capacity

    def claim(self, count: int, spare: int = 0) -> np.ndarray:
        """The next ``count`` slots, to be filled by the caller, and up to
        ``spare`` free slots after them, which the next claim reuses."""
        if not self.blocks or count > len(self.blocks[-1]) - self._used:
            self._start(count)
        start, self._used = self._used, self._used + count
        return self.blocks[-1][start : self._used + spare]

    def _start(self, count: int) -> None:
        if self.blocks and not self._used:
            self.blocks.pop()  # it holds nothing
        if self.blocks:
            self.blocks[-1] = self.blocks[-1][: self._used]
            capacity = max(count, 2 * len(self.blocks[-1]))
        else:
            guess = self._capacity or min(count * _GUESSED_PARTS, _FIRST_BLOCK_BYTES // self._dtype.itemsize)
            capacity = max(count, guess)
        self.blocks.append(default_pool().empty(capacity, self._dtype))
        self._used = 0

    def finish(self) -> np.ndarray:
        """Everything claimed, as one array (the blocks are spent)."""
        if not self.blocks:
            return np.empty(0, dtype=self._dtype)
        last = self.blocks.pop()
        if self.blocks:
            return np.concatenate([*self.blocks, last[: self._used]])
        if last.base is not None:  # pooled: what is returned holds the whole block
            return last[: self._used] if self._used * _KEPT_SHARE >= len(last) else last[: self._used].copy()
        try:
            last.resize(self._used)  # shrinking gives the unused tail back, copying nothing
        except ValueError:  # referenced elsewhere after all: leave it whole
            return last[: self._used]
        return last


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
