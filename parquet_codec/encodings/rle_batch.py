"""Decoding the RLE / bit-packing hybrid streams of many pages in one pass.

A column chunk of small pages holds one short level stream per page, and
the fixed cost of decoding each with array operations (tens of numpy calls)
outweighs the work. Laid end to end, regular streams form one long stream:
the run after a stream's last run is the next stream's first. So the run
headers of all of them are found in one pass (ULEB128 at every position,
pointer doubling over the run chain, as :mod:`.rle` does for one stream),
and then each stream's runs are told apart by position.

Only the regular form is handled here: every stream non-empty, its runs
ending exactly at its end, none of them after the one holding its last
value. Anything else (truncated or trailing runs, bad headers, values too
wide) answers None, and the caller decodes stream by stream with
:class:`.rle.RleBitPackedHybrid`, which reports the exact error.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.bitpack import output_dtype, unpack
from parquet_codec.encodings.rle import _UNBOUNDED, _chain, _little_endian, _varints


def decode_streams(data: np.ndarray, bounds: np.ndarray, counts: np.ndarray, bit_width: int,
                   dtype: type | None = None) -> np.ndarray | None:
    """The values of the streams ``data[bounds[i]:bounds[i + 1]]`` (``counts[i]``
    values each, ``bit_width`` 1..32 bits), concatenated, as ``dtype`` (by
    default bitpack.output_dtype; a narrower one must hold every value of the
    width); None when they are not all of the regular form (see the module
    docstring)."""
    n = len(data)
    if not 1 <= bit_width <= 32 or len(bounds) < 2 or bounds[0] != 0 or bounds[-1] != n:
        return None
    if (np.diff(bounds) <= 0).any() or (counts <= 0).any():
        return None
    value, hlen = _varints(data)
    packed = (value & 1).astype(np.bool_)
    body = value >> 1
    # Bytes from each position to the header after the run it would start.
    value_bytes = (bit_width + 7) // 8
    step = hlen + value_bytes + packed * (body * bit_width - value_bytes)  # arithmetic: masks are slow
    nxt = np.empty(n + 1, dtype=np.int64)
    np.add(np.arange(n, dtype=np.int64), step, out=nxt[:n])
    nxt[n] = n
    np.minimum(nxt, n, out=nxt)
    nxt[:n][hlen == 0] = n  # no header can start here: the chain ends (and is rejected) if it gets here
    path = _chain(nxt, None, n, _UNBOUNDED)
    runs = _stream_runs(path, hlen, step, bounds)
    if runs is None:
        return None
    packed, hlen, body = packed[path], hlen[path], body[path]
    take = _takes(np.where(packed, body * 8, body), runs, counts)
    if take is None:
        return None
    if bit_width == 1:
        return _materialize_bits(data, path, hlen, packed, take, int(counts.sum()), dtype or np.uint32)
    return _materialize(data, path, hlen, packed, take, bit_width, dtype or output_dtype(bit_width))


def _stream_runs(path: np.ndarray, hlen: np.ndarray, step: np.ndarray, bounds: np.ndarray) -> np.ndarray | None:
    """Index in ``path`` of each stream's first run, provided the chain is made
    of well-formed headers, ends exactly at the end and passes every stream start."""
    if not len(path) or (hlen[path] == 0).any() or path[-1] + step[path[-1]] != bounds[-1]:
        return None
    first = np.searchsorted(path, bounds[:-1])
    if (first >= len(path)).any() or (path[first] != bounds[:-1]).any():
        return None
    return first


def _takes(covers: np.ndarray, first: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Values taken from each run: all it covers, but the last run of a stream
    only up to the stream's count. None when a stream covers too few values
    or has runs after its last value."""
    totals = np.add.reduceat(covers, first)
    last = np.append(first[1:], len(covers)) - 1
    surplus = totals - counts
    if (surplus < 0).any() or (surplus >= covers[last]).any():
        return None
    take = covers.copy()
    take[last] -= surplus
    return take


def _materialize(data: np.ndarray, path: np.ndarray, hlen: np.ndarray, packed: np.ndarray, take: np.ndarray,
                 bit_width: int, dtype: type) -> np.ndarray | None:
    payload = path + hlen
    values = np.zeros(len(path), dtype=np.uint64)
    rle = ~packed
    values[rle] = _little_endian(data, payload[rle], (bit_width + 7) // 8)
    if (values >= (1 << bit_width)).any():
        return None
    out = np.repeat(values.astype(dtype), take)
    if packed.any():
        out[np.repeat(packed, take)] = _unpack_runs(data, payload[packed], take[packed], bit_width)
    return out


def _materialize_bits(data: np.ndarray, path: np.ndarray, hlen: np.ndarray, packed: np.ndarray,
                      take: np.ndarray, count: int, dtype: type) -> np.ndarray | None:
    """:func:`_materialize` for width 1, where every value is a bit: the runs
    are laid into one LSB-first bitmap, a byte per 8 values, and unpacked once
    at the end. A bit-packed run's bytes land ``start % 8`` bits into their
    first byte; an RLE run of ones sets its bit range. Runs own disjoint bits,
    so the bytes they share are summed (``np.bincount``) to combine them.

    (Selections go through index arrays: numpy's boolean indexing is several
    times slower on masks as irregular as run kinds.)"""
    payload = path + hlen
    start = np.cumsum(take) - take  # first value (bit) of each run
    bp, rle = np.flatnonzero(packed), np.flatnonzero(~packed)
    repeated = data.take(payload.take(rle))
    if len(repeated) and repeated.max() > 1:
        return None
    size = (count + 7) // 8 + 1
    index, weight = _packed_bits(data, payload.take(bp), start.take(bp), take.take(bp))
    ones = np.compress(repeated.view(np.bool_), rle)
    fill_index, fill_weight, full = _set_bits(start.take(ones), take.take(ones), size)
    bitmap = np.bincount(np.concatenate((index, fill_index)), np.concatenate((weight, fill_weight)),
                         minlength=size).astype(np.uint8)
    bitmap |= full.view(np.uint8) * np.uint8(0xFF)
    return np.unpackbits(bitmap, count=count, bitorder="little").astype(dtype, copy=False)


def _packed_bits(data: np.ndarray, payload: np.ndarray, start: np.ndarray, take: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Bitmap byte and bits contributed by each byte of the bit-packed runs read
    (``take`` values from ``payload``, to bit ``start``): a byte shifted by
    ``start % 8`` spills into the next one."""
    nbytes = (take + 7) >> 3
    src = _spans(payload, nbytes)
    first = np.cumsum(nbytes) - nbytes
    bits = data.take(src).astype(np.int64)
    partial = np.flatnonzero(take & 7)  # the last run of a stream may stop inside a byte: drop the rest
    bits[(first + nbytes - 1).take(partial)] &= (1 << (take.take(partial) & 7)) - 1
    dest = np.repeat(start - 8 * first, nbytes) + 8 * np.arange(len(src), dtype=np.int64)
    shifted = bits << (dest & 7)
    at = dest >> 3
    return np.concatenate((at, at + 1)), np.concatenate((shifted & 0xFF, shifted >> 8)).astype(np.float64)


def _set_bits(start: np.ndarray, length: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bits ``[start, start + length)`` of a ``size``-byte bitmap, for disjoint
    non-empty ranges: (edge bytes, their bits) to add, and a mask of the bytes set whole."""
    stop = start + length - 1  # last bit
    first, last = start >> 3, stop >> 3
    head = (0xFF << (start & 7)) & 0xFF
    tail = (2 << (stop & 7)) - 1
    one = first == last
    head &= np.where(one, tail, 0xFF)
    apart = np.flatnonzero(~one)
    edges = np.concatenate((first, last.take(apart)))
    bits = np.concatenate((head, tail.take(apart))).astype(np.float64)
    inner = np.flatnonzero(last - first > 1)
    runs = np.bincount(first.take(inner) + 1, minlength=size + 1) - np.bincount(last.take(inner), minlength=size + 1)
    return edges, bits, np.cumsum(runs[:size]) > 0


def _unpack_runs(data: np.ndarray, starts: np.ndarray, take: np.ndarray, bit_width: int) -> np.ndarray:
    """The first ``take[i]`` values of each bit-packed run whose data starts at
    ``starts[i]``, concatenated. Whole groups of 8 are unpacked; the unread
    tail of a group (at most one per stream) is dropped afterwards."""
    groups = -(-take // 8)
    unpacked = unpack(data[_in_ranges(len(data), starts, starts + groups * bit_width)], bit_width,
                      int(groups.sum()) * 8)
    cut = np.flatnonzero(take != groups * 8)
    if not len(cut):
        return unpacked
    tail_end = np.cumsum(groups * 8)[cut]
    tail_len = groups[cut] * 8 - take[cut]
    return np.delete(unpacked, _spans(tail_end - tail_len, tail_len))


def _in_ranges(size: int, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Bool mask of ``size`` positions: inside some ``[starts[i], stops[i])`` (disjoint ranges)."""
    edges = np.bincount(starts, minlength=size + 1) - np.bincount(stops, minlength=size + 1)
    return np.cumsum(edges[:size]) > 0


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    first = np.cumsum(lengths) - lengths
    return np.repeat(starts - first, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)


__all__ = ["decode_streams"]
