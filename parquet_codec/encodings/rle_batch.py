"""Decoding the RLE / bit-packing hybrid streams of many pages in one pass.

A column chunk of small pages holds one short level stream per page, and
the fixed cost of decoding each with array operations (tens of numpy calls)
outweighs the work. Laid end to end, regular streams form one long stream:
the run after a stream's last run is the next stream's first. So the run
headers of all of them are found in one pass (:mod:`.run_chain`), and then
each stream's runs are told apart by position. Levels of 1 bit are laid a
run at a time (:mod:`.rle_bits`); of 2, 4 or 8 bits packed, runs at their bit
offsets, and expanded once.

Only the regular form is handled here: every stream non-empty, its runs
ending exactly at its end, none of them after the one holding its last
value. Anything else (truncated or trailing runs, bad headers, values too
wide) answers None, and the caller decodes stream by stream with
:class:`.rle.RleBitPackedHybrid`, which reports the exact error.

Streams of few long runs (dictionary indices) are better served by
:func:`decode_parsed_streams`: their headers are read stream by stream, as
:class:`.rle.RleBitPackedHybrid` reads them, and only the unpacking, whose
fixed cost is the larger, is done once for all of them.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from parquet_codec.encodings.bitpack import output_dtype, unpack
from parquet_codec.encodings.byte_arrays import spans
from parquet_codec.encodings.rle import (
    _SLICED_RANGES,
    _interleave,
    _join_ranges,
    _little_endian,
    _parse_runs,
    _varints,
)
from parquet_codec.encodings.rle_bits import decode_bit_streams, materialize_bits
from parquet_codec.encodings.run_chain import (
    FAR,
    header_tables,
    prefix_chain,
    ramp,
    run_starts,
    stream_chain,
    takes,
)
from parquet_codec.encodings.varint import Buffer, views


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
    if n <= _SINGLE_RUN_BYTES * (len(bounds) - 1):
        single = _single_runs(data, bounds, counts, bit_width, dtype or output_dtype(bit_width))
        if single is not None:
            return single
    if bit_width == 1:
        bits = decode_bit_streams(data, bounds, counts)
        if bits is not None:
            return bits.astype(dtype or np.uint32, copy=False)
        # It read the short headers already: any other answer needs a longer one.
        runs = _any_header_runs(data, bounds, bit_width)
    else:
        runs = _short_header_runs(data, bounds, bit_width) or _any_header_runs(data, bounds, bit_width)
    if runs is None:
        return None
    take = takes(runs.covers, runs.first, counts)
    if take is None:
        return None
    if bit_width == 1:
        return materialize_bits(data, runs.payload, runs.packed, take, int(counts.sum()), dtype or np.uint32)
    if bit_width in _TILING_WIDTHS:
        return _materialize_tiling(data, runs.payload, runs.packed, take, int(counts.sum()), bit_width,
                                   dtype or np.uint32)
    return _materialize(data, runs.payload, runs.packed, take, bit_width, dtype or output_dtype(bit_width))


#: Streams of at most this many bytes on average may each be one RLE run.
_SINGLE_RUN_BYTES = 9


def _single_runs(data: np.ndarray, bounds: np.ndarray, counts: np.ndarray, bit_width: int, dtype: type
                 ) -> np.ndarray | None:
    """The values when every stream is one RLE run (the definition levels of
    pages without nulls, say): each stream's value repeated, without looking
    for run headers; None when some stream is anything else."""
    value_bytes = (bit_width + 7) // 8
    starts = bounds[:-1]
    header_bytes = np.diff(bounds) - value_bytes
    if (header_bytes < 1).any() or (header_bytes > 5).any():
        return None
    padded = np.zeros(len(data) + 5, dtype=np.uint8)
    padded[: len(data)] = data
    header = np.zeros(len(starts), dtype=np.int64)
    for k in range(int(header_bytes.max())):  # ULEB128: the bytes before the last have the continuation bit
        byte = padded.take(starts + k).astype(np.int64)
        inside, last = k < header_bytes, k == header_bytes - 1
        if ((byte < 0x80) & inside & ~last).any() or ((byte >= 0x80) & last).any():
            return None
        header |= np.where(inside, (byte & 0x7F) << (7 * k), 0)
    if (header & 1).any() or ((header >> 1) < counts).any():
        return None  # a bit-packed run, or too few values
    values = _little_endian(padded, starts + header_bytes, value_bytes)
    if (values >> np.uint64(bit_width)).any():
        return None
    return np.repeat(values.astype(dtype), counts)


class _Runs(NamedTuple):
    """The runs of the streams laid end to end, in order."""

    payload: np.ndarray  # where each run's bit-packed bytes or repeated value start
    packed: np.ndarray  # bool: a bit-packed run
    covers: np.ndarray  # the values each run holds (bit-packed: 8 per group)
    first: np.ndarray  # the index of each stream's first run


def _short_header_runs(data: np.ndarray, bounds: np.ndarray, bit_width: int) -> _Runs | None:
    """The runs, with headers read through a table of two-byte prefixes; None
    when the chain of headers is not regular, or reaches a longer header
    (which only runs of over 8191 values or groups need)."""
    n = len(data)
    padded = np.empty(n + 2, dtype=np.uint8)  # reading two bytes at the last position
    padded[:n] = data
    padded[n:] = 0
    prefix = np.ndarray((n + 1,), dtype="<u2", buffer=padded, strides=(1,))  # the two bytes at every position
    steps, runs = header_tables(bit_width)
    chained = prefix_chain(prefix, steps, bounds)
    if chained is None:
        return None
    path, first, last, heads = chained
    found = runs.take(heads)
    payload = path + 1
    payload += (found >> 1) & 1
    return _Runs(payload, (found & 1).astype(np.bool_), found >> 2, first)


def _any_header_runs(data: np.ndarray, bounds: np.ndarray, bit_width: int) -> _Runs | None:
    """:func:`_short_header_runs` for headers of any length (ULEB128 at every position)."""
    n = len(data)
    value, hlen = _varints(data)
    packed = (value & 1).astype(np.bool_)
    body = value >> 1
    value_bytes = (bit_width + 7) // 8
    step = hlen + value_bytes + packed * (body * bit_width - value_bytes)  # arithmetic: masks are slow
    nxt = np.empty(n + 1, dtype=np.int64)
    np.add(np.arange(n, dtype=np.int64), step, out=nxt[:n])
    nxt[n] = n
    np.minimum(nxt, n, out=nxt)
    nxt[:n][hlen == 0] = n  # no header can start here: the chain ends (and is rejected) if it gets here
    step[hlen == 0] = FAR
    chained = stream_chain(nxt, bounds)
    if chained is None:
        return None
    path, first, last = chained
    if ((path.take(last) + step.take(path.take(last))) != bounds[1:]).any():
        return None
    covers = np.where(packed, body * 8, body)
    return _Runs(path + hlen.take(path), packed.take(path), covers.take(path), first)


def _materialize(data: np.ndarray, payload: np.ndarray, packed: np.ndarray, take: np.ndarray, bit_width: int,
                 dtype: type) -> np.ndarray | None:
    values = np.zeros(len(payload), dtype=np.uint64)
    rle = ~packed
    values[rle] = _little_endian(data, payload[rle], (bit_width + 7) // 8)
    if (values >= (1 << bit_width)).any():
        return None
    if not packed.any():
        return np.repeat(values.astype(dtype), take)
    return _interleave(values, packed, take, _unpack_runs(data, payload[packed], take[packed], bit_width), dtype)


#: Widths whose values tile a byte: their runs are laid into one packed array.
_TILING_WIDTHS = (2, 4, 8)


def _materialize_tiling(data: np.ndarray, payload: np.ndarray, packed: np.ndarray, take: np.ndarray, count: int,
                        bit_width: int, dtype: type) -> np.ndarray | None:
    """:func:`_materialize` for widths that tile a byte (levels up to 3, 15 or
    255; of 1 bit: :mod:`.rle_bits`): the runs are laid into one LSB-first
    array of ``bit_width`` bits per value and expanded once at the end. A
    bit-packed run's bytes land ``start * bit_width % 8`` bits into their
    first byte; an RLE run fills its bit range with its value repeated.

    (Selections go through index arrays: numpy's boolean indexing is several
    times slower on masks as irregular as run kinds.)"""
    start = run_starts(take)  # first value of each run
    bp, rle = np.flatnonzero(packed), np.flatnonzero(~packed)
    repeated = data.take(payload.take(rle))
    if len(repeated) and repeated.max() >> bit_width:
        return None
    start, take = start * bit_width, take * bit_width  # from values to bits
    bits = np.zeros((count * bit_width + 7) // 8 + 1, dtype=np.uint8)
    _lay_packed(bits, data, payload.take(bp), start.take(bp), take.take(bp))
    # Runs of zeros leave their bits as they are, and so do empty runs (a value
    # repeated no times). (flatnonzero is far faster on bools.)
    filled = np.flatnonzero((repeated != 0) & (take.take(rle) > 0))
    runs = rle.take(filled)
    tile = repeated.take(filled) * np.uint8(0xFF // ((1 << bit_width) - 1))
    _fill_bits(bits, start.take(runs), take.take(runs), tile)
    return _expand(bits, count, bit_width).astype(dtype, copy=False)


@functools.lru_cache(maxsize=4)
def _fields_by_byte(bit_width: int) -> np.ndarray:
    """The ``8 // bit_width`` values (LSB first) each byte holds."""
    byte = np.arange(256, dtype=np.uint8)[:, None]
    shifts = np.arange(0, 8, bit_width, dtype=np.uint8)
    return (byte >> shifts) & np.uint8((1 << bit_width) - 1)


def _expand(bits: np.ndarray, count: int, bit_width: int) -> np.ndarray:
    """The first ``count`` values of ``bit_width`` bits laid in ``bits``, one byte each."""
    if bit_width == 8:
        return bits[:count]
    return _fields_by_byte(bit_width).take(bits[: -(-count * bit_width // 8)], axis=0).reshape(-1)[:count]


def _lay_packed(bitmap: np.ndarray, data: np.ndarray, payload: np.ndarray, start: np.ndarray, take: np.ndarray
                ) -> None:
    """Write the bit-packed runs read (``take`` bits from ``payload``) at bits
    ``start`` of ``bitmap`` (zero there): a byte shifted by ``start % 8``
    spills into the next bitmap byte.

    The bitmap bytes the source bytes start in are all different, but for the
    last byte of a run that stops inside it (a stream's last) and the first
    of the next run; so the low halves are assigned, the high halves OR-ed
    after, and only those shared bytes go through ``np.add.at`` (runs own
    disjoint bits, so adding them ORs them; numpy's ``add.at`` is the fast one)."""
    nbytes = (take + 7) >> 3
    ends = np.cumsum(nbytes)
    first = ends - nbytes
    total = int(ends[-1]) if len(ends) else 0
    # Byte k of a run comes from payload + k and lands ``start - 8 * payload``
    # bits after 8 times that: one repeat carries both, packed in an int64.
    offset = start - 8 * payload
    if len(offset) and max(int(start[-1]), 8 * int(payload[-1])) >= 1 << 31:
        source, key = np.repeat(payload - first, nbytes), np.repeat(offset, nbytes)
    else:
        key = np.repeat((payload - first) << 32 | (offset + (1 << 31)), nbytes)
        source = key >> 32
        key &= 0xFFFFFFFF
        key -= 1 << 31
    source += ramp(total)
    at = key >> 3
    at += source
    shifted = data.take(source).astype(np.uint16)
    shifted <<= (key & 7).astype(np.uint16)
    partial = np.flatnonzero(take & 7)  # stops inside its last byte: drop the bits after
    if len(partial):
        last = ends.take(partial) - 1
        shifted[last] &= (np.uint16(1) << (take.take(partial) & 7) + (key.take(last) & 7)).astype(np.uint16) - 1
        spare = last[last + 1 < total]
        if len(spare) and (at.take(spare + 1) == at.take(spare)).any():
            np.add.at(bitmap, at, shifted.astype(np.uint8))
            np.add.at(bitmap, at + 1, (shifted >> 8).astype(np.uint8))
            return
    bitmap[at] = shifted.astype(np.uint8)
    at += 1
    bitmap[at] |= (shifted >> 8).astype(np.uint8)


def _fill_bits(bits: np.ndarray, start: np.ndarray, length: np.ndarray, tile: np.ndarray) -> None:
    """OR the byte ``tile[i]`` into bits ``[start[i], start[i] + length[i])``
    of ``bits``, for disjoint non-empty ranges in
    order: into their first and last bytes by adding (ranges shorter than a
    byte may share one; disjoint bits add as they OR), into the bytes between
    (which no other range touches) through a running sum of the tiles at
    range edges."""
    stop = start + length - 1  # last bit
    first, last = start >> 3, stop >> 3
    head = ((0xFF << (start & 7)) & 0xFF).astype(np.uint8)
    tail = ((2 << (stop & 7)) - 1).astype(np.uint8)
    one = first == last
    head &= np.where(one, tail, np.uint8(0xFF))
    head &= tile
    tail &= tile
    apart = np.flatnonzero(~one)
    np.add.at(bits, first, head)
    np.add.at(bits, last.take(apart), tail.take(apart))
    inner = np.flatnonzero(last - first > 1)
    if len(inner):
        # Modulo 256 the tile and its negative cancel at the range's last byte
        # (in int8: numpy's int8 running sum is several times its uint8 one).
        edges = np.zeros(len(bits) + 1, dtype=np.int8)
        edges[first.take(inner) + 1] = tile.take(inner).view(np.int8)
        edges[last.take(inner)] = np.negative(tile.take(inner)).view(np.int8)
        bits |= np.cumsum(edges[:-1], dtype=np.int8).view(np.uint8)


def decode_parsed_streams(streams: list[tuple[Buffer, int, int]], bit_width: int) -> np.ndarray:
    """The values of the streams ``(data, offset, count)`` of one width (1..32),
    concatenated: the runs of each are read as RleBitPackedHybrid.decode reads
    them (raising its DecodingError for a malformed one), then all the values
    are laid out together."""
    pieces, columns, base = [], {name: [] for name in ("lengths", "values", "packed", "packed_starts")}, 0
    for data, offset, count in streams:
        mv, arr = views(data)
        runs, stop = _parse_runs(mv, bit_width, count, offset)
        pieces.append(arr[offset:stop])
        for name, parts in columns.items():
            parts.append(runs.column(name))
        columns["packed_starts"][-1] += base - offset
        base += stop - offset
    # Zeros after the last stream: its last run's whole last group is read (and the surplus dropped).
    pieces.append(np.zeros((bit_width + 7) // 8 * 8, dtype=np.uint8))
    lengths, values, packed, starts = (np.concatenate(parts) for parts in columns.values())
    packed = packed.astype(np.bool_)
    dtype = output_dtype(bit_width)
    unpacked = _unpack_runs(np.concatenate(pieces), starts, lengths[packed], bit_width)
    if len(unpacked) == int(lengths.sum()):  # bit-packed runs only
        return unpacked.astype(dtype, copy=False)
    return _interleave(values, packed, lengths, unpacked, dtype)


def _unpack_runs(data: np.ndarray, starts: np.ndarray, take: np.ndarray, bit_width: int) -> np.ndarray:
    """The first ``take[i]`` values of each bit-packed run whose data starts at
    ``starts[i]``, concatenated. Whole groups of 8 are unpacked (they must lie
    inside ``data``); the unread tail of a group (a stream's last) is dropped
    afterwards."""
    if not len(take):
        return np.zeros(0, dtype=output_dtype(bit_width))
    groups = -(-take // 8)
    unpacked = unpack(_join_ranges(data, starts, groups * bit_width), bit_width, int(groups.sum()) * 8)
    cut = np.flatnonzero(take != groups * 8)
    if not len(cut):
        return unpacked
    tail_end = np.cumsum(groups * 8)[cut]
    tail_start = tail_end - (groups[cut] * 8 - take[cut])
    if len(cut) > _SLICED_RANGES:
        return np.delete(unpacked, spans(tail_start, tail_end - tail_start))
    # Few streams (the pages of a chunk): the kept stretches, joined.
    kept = zip([0, *tail_end.tolist()], [*tail_start.tolist(), len(unpacked)], strict=True)
    return np.concatenate([unpacked[a:b] for a, b in kept])


__all__ = ["decode_parsed_streams", "decode_streams"]
