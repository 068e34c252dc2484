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
from parquet_codec.encodings.rle import _chain, _little_endian, _varints


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
    header, hlen = _varints(data)
    packed = (header & 1).astype(np.bool_)
    body = (header >> 1).astype(np.int64)
    covers = np.where(packed, body * 8, body)
    after = np.arange(n, dtype=np.int64) + hlen + np.where(packed, body * bit_width, (bit_width + 7) // 8)
    after[hlen == 0] = n + 1  # no header can start here: the chain ends (and is rejected) if it gets here
    path = _chain(np.append(np.minimum(after, n), n), np.append(covers, 0), n, np.iinfo(np.int64).max)
    runs = _stream_runs(path, hlen, after, bounds)
    if runs is None:
        return None
    take = _takes(covers[path], runs, counts)
    if take is None:
        return None
    return _materialize(data, path, hlen[path], packed[path], take, bit_width, dtype or output_dtype(bit_width))


def _stream_runs(path: np.ndarray, hlen: np.ndarray, after: np.ndarray, bounds: np.ndarray) -> np.ndarray | None:
    """Index in ``path`` of each stream's first run, provided the chain is made
    of well-formed headers, ends exactly at the end and passes every stream start."""
    if not len(path) or (hlen[path] == 0).any() or after[path[-1]] != bounds[-1]:
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
