"""DELTA_BINARY_PACKED (5), DELTA_LENGTH_BYTE_ARRAY (6) and DELTA_BYTE_ARRAY (7).

Spec, Encodings, "Delta Encoding", "Delta-length byte array" and "Delta
Strings". Deltas are computed and summed in unsigned arithmetic modulo
2**32 (INT32) or 2**64 (INT64), so overflowing differences such as
``INT64_MAX - INT64_MIN`` round-trip as the spec requires; numpy's unsigned
array arithmetic wraps silently, which is exactly that.

Decoding parses the block headers (min delta and miniblock widths) in a
Python loop, one iteration per block of (usually) 128 values, then unpacks
all miniblocks of equal bit width with one :func:`bitpack.unpack` call and
rebuilds the values with a single wrapping ``cumsum``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from parquet_codec.encodings.bitpack import bit_length, pack, packed_size, unpack
from parquet_codec.encodings.byte_arrays import TAIL_MASKS, ByteArrays, gather_ranges, spans, unaligned_words
from parquet_codec.encodings.plain import as_byte_arrays, as_fixed_rows, as_numeric, type_name
from parquet_codec.encodings.varint import (
    Buffer,
    decoding_error,
    encode_uleb128,
    encode_uleb128_array,
    read_uleb128,
    read_zigzag,
    views,
    zigzag_decode_array,
    zigzag_encode,
    zigzag_encode_array,
)
from parquet_codec.errors import ResourceLimitError
from parquet_codec.format.ttypes import Type
from parquet_codec.limits import reserve, reserve_items

_DBP = "DELTA_BINARY_PACKED"
_DLBA = "DELTA_LENGTH_BYTE_ARRAY"
_DBA = "DELTA_BYTE_ARRAY"
_INT_MAX = (1 << 31) - 1  # header fields are Java ints in the reference implementation
#: Default cap on the bytes DELTA_BYTE_ARRAY may expand to (shared prefixes can expand a lot).
DEFAULT_MAX_OUTPUT_BYTES = 1 << 31


class _Header(NamedTuple):
    block_size: int
    miniblocks: int
    total: int
    first: int
    end: int  # byte position after the header


class _Blocks(NamedTuple):
    min_deltas: np.ndarray  # zigzag-decoded, as unsigned two's complement
    widths: np.ndarray  # bit width of each miniblock that holds values
    starts: np.ndarray  # byte position of each such miniblock
    end: int  # byte position after the last block


def _int_types(physical_type: int, encoding: str) -> tuple[int, type, type]:
    if physical_type == Type.INT32:
        return 32, np.uint32, np.int32
    if physical_type == Type.INT64:
        return 64, np.uint64, np.int64
    raise decoding_error(encoding, f"{type_name(physical_type)} is not supported (only INT32, INT64)", 0)


def _check_block_shape(block_size: int, miniblocks: int) -> str | None:
    """Why ``block_size`` / ``miniblocks`` cannot be decoded, or None if they can.

    The spec asks for blocks of a multiple of 128 values and miniblocks of a
    multiple of 32, but its own examples use a block of 8; miniblocks only
    have to hold whole bytes, so multiples of 8 are accepted.
    """
    if not 0 < block_size <= _INT_MAX or block_size % 8:
        return f"block size {block_size} is not a positive multiple of 8 below 2**31"
    if not 0 < miniblocks <= block_size or block_size % miniblocks or (block_size // miniblocks) % 8:
        return f"{miniblocks} miniblocks do not split a block of {block_size} values into multiples of 8"
    return None


def _read_header(mv: memoryview, pos: int, count: int) -> _Header:
    start = pos
    block_size, pos = read_uleb128(mv, pos, _DBP, "block size")
    miniblocks, pos = read_uleb128(mv, pos, _DBP, "miniblock count")
    problem = _check_block_shape(block_size, miniblocks)
    if problem:
        raise decoding_error(_DBP, problem, start)
    total_at = pos
    total, pos = read_uleb128(mv, pos, _DBP, "value count")
    if total != count:
        raise decoding_error(_DBP, f"header declares {total} values, expected {count}", total_at)
    first, pos = read_zigzag(mv, pos, _DBP, "first value")
    return _Header(block_size, miniblocks, total, first, pos)


#: The widest miniblock, INT32 columns' too: DuckDB writes their deltas as
#: 64-bit differences (width 33 for INT32_MIN after INT32_MAX); taken modulo
#: 2**32, they give the same values.
_MAX_WIDTH = 64


def _read_blocks(mv: memoryview, h: _Header) -> _Blocks:
    """Walk the block headers; validate widths and sizes before anything is allocated."""
    deltas = h.total - 1
    per_mini = h.block_size // h.miniblocks
    n_blocks = -(-deltas // h.block_size)
    last_values = deltas - (n_blocks - 1) * h.block_size
    last_needed = -(-last_values // per_mini)  # miniblocks holding values in the last block
    raw_mins: list[int] = []
    width_at: list[int] = []
    end, m = len(mv), h.miniblocks
    try:
        pos = _walk_blocks(mv, h.end, n_blocks - 1, m, m, per_mini, raw_mins, width_at)
        # Widths of unused miniblocks in the last block are arbitrary (spec): not summed.
        padded_end = _walk_blocks(mv, pos, 1, m, last_needed, per_mini, raw_mins, width_at)
    except IndexError:  # the min delta of block len(width_at) runs past the end
        padded_end = None
    widths = _checked_widths(np.asarray(mv), np.array(width_at, dtype=np.int64), m, n_blocks, last_needed)
    if padded_end is None:
        raise decoding_error(_DBP, f"data ends inside block {len(width_at)} of {n_blocks}", end)
    if len(width_at) == n_blocks and width_at[-1] + m <= end:
        # Only the values of the last miniblock must be present, not its padding.
        last_width = int(widths[-1, last_needed - 1])
        tail = last_values - (last_needed - 1) * per_mini
        required = padded_end - (per_mini * last_width) // 8 + packed_size(tail, last_width)
    else:
        required = padded_end
    if required > end:
        block = len(width_at) - 1
        raise decoding_error(_DBP, f"data ends inside block {block} of {n_blocks}", width_at[block] if width_at else h.end)
    sizes = widths * (per_mini // 8)
    starts = (np.array(width_at, dtype=np.int64) + m)[:, None] + np.cumsum(sizes, axis=1) - sizes
    n_mini = -(-deltas // per_mini)
    return _Blocks(
        zigzag_decode_array(np.array(raw_mins, dtype=np.uint64)),
        widths.reshape(-1)[:n_mini],
        starts.reshape(-1)[:n_mini],
        min(padded_end, end),
    )


def _walk_blocks(
    buf: memoryview, pos: int, blocks: int, m: int, summed: int, per_mini: int, raw_mins: list, width_at: list
) -> int:
    """Skip ``blocks`` blocks, recording each raw min delta and widths position; return the end.

    The hot loop of DELTA_BINARY_PACKED decoding (one iteration per block),
    so it does no validation: reading past the end raises IndexError and the
    caller validates widths and sizes afterwards, vectorized.
    """
    for _ in range(blocks):
        start = pos
        byte = buf[pos]
        pos += 1
        raw = byte & 0x7F
        shift = 7
        while byte & 0x80:
            byte = buf[pos]
            pos += 1
            raw |= (byte & 0x7F) << shift
            shift += 7
            if shift >= 70 and (byte & 0x80 or raw >> 64):
                read_uleb128(buf, start, _DBP, "min delta")  # raises the precise error
        raw_mins.append(raw)
        width_at.append(pos)
        body = pos + m
        pos = body + sum(buf[pos : pos + summed]) * per_mini // 8
    return pos


def _checked_widths(
    arr: np.ndarray, width_at: np.ndarray, m: int, n_blocks: int, last_needed: int
) -> np.ndarray:
    """The ``(blocks, m)`` miniblock bit widths read so far; DecodingError if one exceeds _MAX_WIDTH.

    Widths of miniblocks without values (end of the last block) are zeroed.
    """
    complete = width_at[width_at + m <= len(arr)]
    widths = arr[complete[:, None] + np.arange(m)].astype(np.int64)
    if len(complete) == n_blocks:
        widths[-1, last_needed:] = 0
    if widths.size and widths.max() > _MAX_WIDTH:
        first = int(np.argmax(widths.reshape(-1) > _MAX_WIDTH))
        at = int(complete[first // m]) + first % m
        raise decoding_error(_DBP, f"miniblock bit width {int(widths.reshape(-1)[first])} > {_MAX_WIDTH}", at)
    return widths


def _unpack_miniblocks(arr: np.ndarray, blocks: _Blocks, per_mini: int, out: np.ndarray) -> None:
    """Unpack every miniblock's relative deltas into ``out`` (one unpack call per bit width)."""
    n_full = len(out) // per_mini
    rows = out[: n_full * per_mini].reshape(n_full, per_mini)
    full_widths = blocks.widths[:n_full]
    for width in np.unique(full_widths).tolist():
        chosen = np.flatnonzero(full_widths == width)
        if width == 0:
            rows[chosen] = 0
            continue
        size = per_mini * width // 8
        _, raw = gather_ranges(arr, blocks.starts[chosen], np.full(len(chosen), size))
        rows[chosen] = unpack(raw, width, len(chosen) * per_mini).reshape(-1, per_mini)
    tail = len(out) - n_full * per_mini
    if tail:
        width = int(blocks.widths[n_full])
        out[n_full * per_mini :] = unpack(arr, width, tail, offset=int(blocks.starts[n_full]))


class DeltaBinaryPacked:
    """DELTA_BINARY_PACKED for INT32 and INT64."""

    @staticmethod
    def decode(data: Buffer, physical_type: int, count: int, *, offset: int = 0) -> tuple[np.ndarray, int]:
        """Decode the stream at ``offset``, whose header must declare exactly ``count`` values.

        Returns (int32 or int64 values, bytes consumed). An empty buffer is
        accepted for ``count == 0``.
        """
        bits, unsigned, signed = _int_types(physical_type, _DBP)
        if count < 0:
            raise ValueError(f"negative count {count}")
        mv, arr = views(data)
        if count == 0 and offset >= len(mv):
            return np.zeros(0, dtype=signed), 0
        h = _read_header(mv, offset, count)
        if h.total == 0:
            return np.zeros(0, dtype=signed), h.end - offset
        reserve_items(h.total, bits // 8, f"{h.total} {_DBP} values")
        values = np.empty(h.total, dtype=unsigned)
        values[0] = h.first & ((1 << bits) - 1)
        if h.total == 1:
            return values.view(signed), h.end - offset
        blocks = _read_blocks(mv, h)
        deltas = values[1:]
        _unpack_miniblocks(arr, blocks, h.block_size // h.miniblocks, deltas)
        mins = blocks.min_deltas.astype(unsigned)  # truncation is the modulo-2**32 reduction
        n_full = len(deltas) // h.block_size
        deltas[: n_full * h.block_size].reshape(n_full, h.block_size)[:] += mins[:n_full, None]
        deltas[n_full * h.block_size :] += mins[n_full:][:1]
        np.cumsum(values, out=values)  # wraps modulo 2**bits
        return values.view(signed), blocks.end - offset

    @staticmethod
    def encode(values: object, physical_type: int, *, block_size: int = 128, miniblocks: int = 4) -> bytes:
        """Encode integers; defaults match parquet-java (blocks of 128 values, 4 miniblocks).

        The spec's examples use ``block_size=8, miniblocks=1``. Raises
        ValueError for values outside the type's range or a bad block shape.
        """
        bits, unsigned, signed = _int_types(physical_type, _DBP)
        problem = _check_block_shape(block_size, miniblocks)
        if problem:
            raise ValueError(problem)
        v = as_numeric(values, np.dtype(signed))
        first = int(v[0]) if len(v) else 0
        header = b"".join(encode_uleb128(x) for x in (block_size, miniblocks, len(v), zigzag_encode(first)))
        if len(v) <= 1:
            return header
        return header + _encode_blocks(v.view(unsigned), block_size, miniblocks)


def _encode_blocks(u: np.ndarray, block_size: int, miniblocks: int) -> bytes:
    """Blocks of the deltas of unsigned values ``u`` (at least two of them)."""
    signed = np.dtype(u.dtype.str.replace("u", "i"))
    n_deltas = len(u) - 1
    n_blocks = -(-n_deltas // block_size)
    per_mini = block_size // miniblocks
    # Pad with the largest value so padding never lowers a block's minimum.
    padded = np.full(n_blocks * block_size, np.iinfo(signed).max, dtype=signed)
    padded[:n_deltas] = (u[1:] - u[:-1]).view(signed)
    mins = padded.reshape(n_blocks, block_size).min(axis=1)
    relative = padded.view(u.dtype).reshape(n_blocks, block_size) - mins.view(u.dtype)[:, None]
    relative.reshape(-1)[n_deltas:] = 0  # zero padding, and zero widths for unused miniblocks
    minis = relative.reshape(-1, per_mini)
    widths = bit_length(minis.max(axis=1))
    min_bytes, min_lengths = encode_uleb128_array(zigzag_encode_array(mins))
    body = widths.astype(np.int64).reshape(n_blocks, miniblocks) * (per_mini // 8)
    block_bytes = min_lengths + miniblocks + body.sum(axis=1)
    block_start = np.cumsum(block_bytes) - block_bytes
    out = np.empty(int(block_bytes.sum()), dtype=np.uint8)
    out[spans(block_start, min_lengths)] = min_bytes
    widths_at = block_start + min_lengths
    out[widths_at[:, None] + np.arange(miniblocks)] = widths.reshape(n_blocks, miniblocks)
    mini_start = ((widths_at + miniblocks)[:, None] + np.cumsum(body, axis=1) - body).reshape(-1)
    for width in np.unique(widths[widths > 0]).tolist():
        chosen = np.flatnonzero(widths == width)
        size = per_mini * width // 8
        packed = np.frombuffer(pack(np.take(minis, chosen, axis=0), width), dtype=np.uint8).reshape(-1, size)
        _byte_rows(out, size)[mini_start[chosen]] = packed  # a row copy per miniblock, no per-byte index
    return out.tobytes()


def _byte_rows(buf: np.ndarray, size: int) -> np.ndarray:
    """A writable view whose row ``p`` is ``buf[p : p + size]``."""
    return np.lib.stride_tricks.as_strided(buf, shape=(len(buf) - size + 1, size), strides=(1, 1), writeable=True)




def _take_payload(arr: np.ndarray, lengths: np.ndarray, pos: int, lengths_at: int) -> tuple[ByteArrays, int]:
    """The byte arrays of ``lengths`` stored back to back at ``pos``; return them and their end."""
    if len(lengths) and lengths.min() < 0:
        i = int(np.argmin(lengths))
        raise decoding_error(_DLBA, f"negative length {int(lengths[i])} (value {i})", lengths_at)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    if pos + total > len(arr):
        raise decoding_error(_DLBA, f"lengths add up to {total} bytes, only {len(arr) - pos} left", pos)
    return ByteArrays(offsets, arr[pos : pos + total].copy()), pos + total


class DeltaLengthByteArray:
    """DELTA_LENGTH_BYTE_ARRAY: DELTA_BINARY_PACKED lengths, then the bytes back to back."""

    @staticmethod
    def decode(data: Buffer, count: int, *, offset: int = 0) -> tuple[ByteArrays, int]:
        """Decode ``count`` byte arrays; return (ByteArrays, bytes consumed)."""
        lengths, used = DeltaBinaryPacked.decode(data, Type.INT32, count, offset=offset)
        values, end = _take_payload(views(data)[1], lengths, offset + used, offset)
        return values, end - offset

    @staticmethod
    def encode(values: object, *, block_size: int = 128, miniblocks: int = 4) -> bytes:
        """Encode ByteArrays or a sequence of bytes-like values."""
        ba = as_byte_arrays(values)
        lengths = DeltaBinaryPacked.encode(ba.lengths(), Type.INT32, block_size=block_size, miniblocks=miniblocks)
        return lengths + ba.data[ba.offsets[0] : ba.offsets[-1]].tobytes()


class DeltaByteArray:
    """DELTA_BYTE_ARRAY (front coding) for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.

    Value ``i`` is the first ``prefix[i]`` bytes of value ``i - 1`` followed by
    suffix ``i``; prefixes are DELTA_BINARY_PACKED, suffixes
    DELTA_LENGTH_BYTE_ARRAY.
    """

    @staticmethod
    def decode(
        data: Buffer,
        physical_type: int,
        count: int,
        *,
        type_length: int | None = None,
        offset: int = 0,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    ) -> tuple[ByteArrays | np.ndarray, int]:
        """Decode ``count`` values; return (ByteArrays, or ``(n, type_length)`` uint8 for
        FIXED_LEN_BYTE_ARRAY; bytes consumed).

        Raises ResourceLimitError if the values would exceed ``max_output_bytes``.
        """
        fixed = _check_byte_array_type(physical_type, type_length)
        prefixes, used = DeltaBinaryPacked.decode(data, Type.INT32, count, offset=offset)
        suffixes, used_suffixes = DeltaLengthByteArray.decode(data, count, offset=offset + used)
        values = _front_decode(prefixes.astype(np.int64), suffixes, offset, max_output_bytes)
        consumed = used + used_suffixes
        if not fixed:
            return values, consumed
        if len(values) and (values.lengths() != type_length).any():
            i = int(np.argmax(values.lengths() != type_length))
            raise decoding_error(_DBA, f"value {i} is not {type_length} bytes long", offset)
        return values.data.reshape(len(values), type_length), consumed

    @staticmethod
    def encode(
        values: object,
        physical_type: int = Type.BYTE_ARRAY,
        *,
        type_length: int | None = None,
        block_size: int = 128,
        miniblocks: int = 4,
    ) -> bytes:
        """Encode ByteArrays / bytes sequences, or ``(n, type_length)`` rows for FIXED_LEN_BYTE_ARRAY."""
        fixed = _check_byte_array_type(physical_type, type_length)
        ba = ByteArrays.from_fixed(as_fixed_rows(values, type_length)) if fixed else as_byte_arrays(values)
        prefixes = _common_prefixes(ba)
        lengths = ba.lengths()
        suffixes = ByteArrays(*gather_ranges(ba.data, ba.offsets[:-1] + prefixes, lengths - prefixes))
        shape = {"block_size": block_size, "miniblocks": miniblocks}
        return DeltaBinaryPacked.encode(prefixes, Type.INT32, **shape) + DeltaLengthByteArray.encode(suffixes, **shape)


def _check_byte_array_type(physical_type: int, type_length: int | None) -> bool:
    """True for FIXED_LEN_BYTE_ARRAY, False for BYTE_ARRAY; DecodingError otherwise."""
    if physical_type == Type.BYTE_ARRAY:
        return False
    if physical_type != Type.FIXED_LEN_BYTE_ARRAY:
        raise decoding_error(_DBA, f"{type_name(physical_type)} is not supported", 0)
    if type_length is None or type_length < 0:
        raise decoding_error(_DBA, f"FIXED_LEN_BYTE_ARRAY needs a type_length >= 0, got {type_length}", 0)
    return True


def _common_prefixes(ba: ByteArrays) -> np.ndarray:
    """Length of the common prefix of each value with its predecessor (0 for the first).

    Compares 8-byte words of each pair at once; a pair leaves the loop at its
    first differing word, where the lowest set bit of the XOR (little-endian
    words) tells the first differing byte."""
    n = len(ba)
    prefixes = np.zeros(n, dtype=np.int64)
    if n < 2:
        return prefixes
    offsets = np.asarray(ba.offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    common = np.minimum(lengths[:-1], lengths[1:])  # the shared length, until a difference is found
    words = unaligned_words(ba.data)
    todo = np.flatnonzero(common > 0)
    skip = 0
    while len(todo):
        remaining = common[todo] - skip
        diff = words[offsets[todo] + skip] ^ words[offsets[todo + 1] + skip]
        diff &= TAIL_MASKS[np.minimum(remaining, 8)]
        found = diff != 0
        lowest = diff[found] & (~diff[found] + np.uint64(1))  # a power of two: exact as a float
        common[todo[found]] = skip + (np.frexp(lowest.astype(np.float64))[1] - 1) // 8
        todo = todo[~found & (remaining > 8)]
        skip += 8
    prefixes[1:] = common
    return prefixes


def _front_decode(prefixes: np.ndarray, suffixes: ByteArrays, stream_at: int, max_bytes: int) -> ByteArrays:
    """Rebuild front-coded values from prefix lengths and suffixes, vectorized.

    Byte ``j`` of value ``i`` is suffix byte ``j - prefix[m]`` of the last
    value ``m <= i`` with ``prefix[m] <= j``. So value ``i`` is a sequence of
    suffix slices: its own suffix, preceded by slices of the values on its
    chain of "previous strictly smaller prefix" links (``i -> pse(i) -> ...``
    until a prefix of 0). The chains are walked for all values at once, one
    link per round, and the slices are then copied with one gather:
    ``O(output bytes + n log n)``. A slice holds at least one byte, but there
    can be as many as bytes (each value one byte longer than the last): the
    values are then rebuilt a run at a time, so that the slices' scratch stays
    bounded (:data:`_MAX_SLICES`).
    """
    n = len(prefixes)
    lengths = prefixes + suffixes.lengths()
    previous = np.zeros(n, dtype=np.int64)
    previous[1:] = lengths[:-1]
    bad = (prefixes < 0) | (prefixes > previous)
    if bad.any():
        i = int(np.argmax(bad))
        raise decoding_error(
            _DBA, f"prefix length {int(prefixes[i])} of value {i} exceeds the previous value's {int(previous[i])} bytes",
            stream_at,
        )
    total = int(lengths.sum())
    if total > max_bytes:
        raise ResourceLimitError(f"{_DBA}: values would take {total} bytes, more than the limit of {max_bytes}")
    reserve(total + 8 * n, f"{n} {_DBA} values of {total} bytes")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if not offsets[-1]:
        return ByteArrays(offsets, np.zeros(0, dtype=np.uint8))
    suffix_starts, suffix_lengths = suffixes.offsets[:-1], suffixes.lengths()
    owner = np.flatnonzero(prefixes > 0)
    link = _previous_smaller(prefixes, owner)
    whole = _slices(prefixes, suffix_starts, suffix_lengths, owner, link, _MAX_SLICES)
    if whole is not None:
        return ByteArrays(offsets, gather_ranges(suffixes.data, *whole)[1])
    runs, heaviest = _runs(_chain_lengths(prefixes, owner, link))
    reserve_items(heaviest, _SLICE_BYTES, f"the slices of {n} {_DBA} values, {heaviest} at a time")
    data = np.empty(total, dtype=np.uint8)
    for a, b in runs:
        # The run's values, after the value before it (rebuilt already) as a
        # value of prefix 0 whose suffix is all of it: chains end there.
        base = data[offsets[a - 1] : offsets[a]] if a else data[:0]
        first, end = int(suffix_starts[a]), int(suffix_starts[b - 1] + suffix_lengths[b - 1])
        source = np.concatenate((base, suffixes.data[first:end]))
        local = np.concatenate(([0], prefixes[a:b]))
        local_owner = np.flatnonzero(local > 0)
        local_link = np.zeros(len(local), dtype=np.int64)
        local_link[local_owner] = np.maximum(link[local_owner + a - 1] - a + 1, 0)
        starts, sizes = _slices(local, np.concatenate(([0], suffix_starts[a:b] - first + len(base))),
                                np.concatenate(([len(base)], suffix_lengths[a:b])), local_owner, local_link,
                                reserved=True)
        data[offsets[a] : offsets[b]] = gather_ranges(source, starts, sizes)[1][len(base) :]
    return ByteArrays(offsets, data)


# Scratch per slice (rounds, starts and sizes, the gather's offsets), and the
# slices one gather may take before values are rebuilt run by run.
_SLICE_BYTES = 48
_MAX_SLICES = 1 << 22


def _chain_lengths(prefixes: np.ndarray, owner: np.ndarray, link: np.ndarray) -> np.ndarray:
    """For each value, the number of slices before its own suffix (the links of its chain)."""
    depth = np.zeros(len(prefixes), dtype=np.int64)
    alive = current = owner
    while alive.size:
        depth[alive] += 1
        current = link[current]
        more = prefixes[current] > 0
        alive, current = alive[more], current[more]
    return depth


def _runs(depth: np.ndarray) -> tuple[list[tuple[int, int]], int]:
    """Consecutive runs of values of at most :data:`_MAX_SLICES` slices each
    (or one value), and the most slices a run has (counting the value before it)."""
    weight = np.cumsum(depth + 1)
    bounds = [0]
    while bounds[-1] < len(depth):
        a = bounds[-1]
        before = int(weight[a - 1]) if a else 0
        bounds.append(max(int(np.searchsorted(weight, before + _MAX_SLICES, side="right")), a + 1))
    heaviest = int(np.diff(np.concatenate(([0], weight))[bounds]).max()) + 1
    return list(zip(bounds[:-1], bounds[1:], strict=True)), heaviest


def _slices(prefixes: np.ndarray, suffix_starts: np.ndarray, suffix_lengths: np.ndarray, owner: np.ndarray,
            link: np.ndarray, limit: int | None = None, reserved: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """(start in the suffix data, length) of every slice making up the values,
    in output order; ``owner``: the values of a positive prefix, ``link``: their
    previous strictly smaller prefix. None when they pass ``limit`` slices;
    ``reserved``: the caller has reserved their scratch."""
    n = len(prefixes)
    # Round r yields, for each value whose chain has more than r links, the
    # slice r-th before its own suffix: bytes [prefix[parent], high) are the
    # first bytes of the parent's suffix.
    rounds: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    links = np.zeros(n, dtype=np.int64)
    current, high = owner, prefixes[owner]
    count = n
    while owner.size:
        count += owner.size
        if limit is not None and count > limit:
            return None
        parent = link[current]
        low = prefixes[parent]
        rounds.append((owner, suffix_starts[parent], high - low))
        done = low == 0
        links[owner[done]] = len(rounds)
        more = ~done
        owner, current, high = owner[more], parent[more], low[more]
    if not reserved:
        reserve_items(count, _SLICE_BYTES, f"the {count} slices of {n} {_DBA} values")
    own_at = np.cumsum(links + 1) - 1  # each value's own suffix closes its slices
    starts = np.empty(int(own_at[-1]) + 1, dtype=np.int64)
    sizes = np.empty_like(starts)
    starts[own_at], sizes[own_at] = suffix_starts, suffix_lengths
    for r, (owner, start, size) in enumerate(rounds):
        at = own_at[owner] - 1 - r
        starts[at], sizes[at] = start, size
    return starts, sizes


def _previous_smaller(values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """For each ``i`` in ``queries`` the largest ``m < i`` with ``values[m] < values[i]``, or -1.

    Vectorized over a min segment tree: every query climbs until a left
    sibling holds a smaller value, then descends to that sibling's rightmost
    such leaf. ``O(n log n)`` work, ``O(n)`` memory.
    """
    n = len(values)
    size = 1 << max(0, (n - 1).bit_length())
    tree = np.full(2 * size, np.iinfo(np.int64).max, dtype=np.int64)
    tree[size : size + n] = values
    level = size
    while level > 1:
        tree[level // 2 : level] = np.minimum(tree[level : 2 * level : 2], tree[level + 1 : 2 * level : 2])
        level //= 2
    result = np.full(n, -1, dtype=np.int64)
    query, node = queries, queries + size
    found_query, found_node = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    while query.size:
        hit = ((node & 1) == 1) & (tree[node - 1] < values[query])
        found_query.append(query[hit])
        found_node.append(node[hit] - 1)
        node, query = node[~hit] >> 1, query[~hit]
        above_root = node > 1
        node, query = node[above_root], query[above_root]
    query, node = np.concatenate(found_query), np.concatenate(found_node)
    target = values[query]
    inner = np.flatnonzero(node < size)
    while inner.size:
        right = 2 * node[inner] + 1
        node[inner] = np.where(tree[right] < target[inner], right, right - 1)
        inner = inner[node[inner] < size]
    result[query] = node - size
    return result
