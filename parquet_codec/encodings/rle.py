"""RLE / bit-packing hybrid (RLE = 3) and the deprecated BIT_PACKED (= 4) encoding.

Spec, Encodings, "Run Length Encoding / Bit-Packing Hybrid" and
"Bit-packed (Deprecated)". The hybrid is a sequence of runs, each introduced
by a ULEB128 header whose low bit tells a bit-packed run (``groups << 1 | 1``,
``8 * groups`` values packed LSB first) from an RLE run (``length << 1``,
followed by one value in ``ceil(bit_width / 8)`` little-endian bytes).

Decoding walks the run headers in Python (runs are few compared to values),
then materializes all values with array operations: one ``np.repeat`` for
every RLE run at once, and a single :func:`bitpack.unpack` over the
concatenated bytes of every bit-packed run.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.bitpack import (
    MAX_BIT_WIDTH,
    as_unsigned,
    output_dtype,
    pack,
    packed_size,
    unpack,
)
from parquet_codec.encodings.byte_arrays import gather_ranges
from parquet_codec.encodings.varint import Buffer, decoding_error, encode_uleb128, read_uleb128, views

_RLE = "RLE"
_BIT_PACKED = "BIT_PACKED"
#: Spec: run lengths must lie in [1, 2**31 - 1] so readers can hold them in an int32.
MAX_RUN_LENGTH = (1 << 31) - 1
#: Runs of at least this many equal values are written as RLE runs.
MIN_REPEAT_RUN = 8


class _Runs:
    """Run headers parsed from a hybrid stream, in order."""

    def __init__(self) -> None:
        self.lengths: list[int] = []  # values taken from each run
        self.values: list[int] = []  # repeated value, 0 for bit-packed runs
        self.packed: list[int] = []  # 1 for bit-packed runs
        self.packed_starts: list[int] = []  # byte offset of each bit-packed run's data
        self.packed_bytes: list[int] = []  # bytes of it that are read


class RleBitPackedHybrid:
    """Encoder/decoder of the RLE / bit-packing hybrid (levels, dictionary indices, booleans)."""

    @staticmethod
    def decode(
        data: Buffer, bit_width: int, count: int, *, offset: int = 0, length_prefixed: bool = False
    ) -> tuple[np.ndarray, int]:
        """Decode exactly ``count`` values of ``bit_width`` bits (0..64) starting at ``offset``.

        With ``length_prefixed`` the runs are preceded by their 4-byte
        little-endian byte length (data page v1 levels, RLE booleans) and the
        whole declared length is consumed. Returns (uint32 values, or uint64
        above 32 bits; bytes consumed). Values beyond ``count`` in the last
        run are ignored; running out of runs before ``count`` values is a
        DecodingError, except at width 0 where the missing values are zeros.
        """
        if not 0 <= bit_width <= MAX_BIT_WIDTH:
            raise decoding_error(_RLE, f"bit width {bit_width} outside 0..{MAX_BIT_WIDTH}", offset)
        if count < 0:
            raise ValueError(f"negative count {count}")
        mv, arr = views(data)
        pos, end = offset, len(arr)
        if length_prefixed:
            if pos + 4 > end:
                raise decoding_error(_RLE, "4-byte length prefix truncated", pos)
            declared = int.from_bytes(mv[pos : pos + 4], "little")
            if pos + 4 + declared > end:
                raise decoding_error(_RLE, f"length prefix {declared} exceeds the {end - pos - 4} bytes left", pos)
            pos, end = pos + 4, pos + 4 + declared
        runs, stop = _parse_runs(mv[:end], bit_width, count, pos)
        values = _materialize(arr, bit_width, count, runs)
        return values, (end if length_prefixed else stop) - offset

    @staticmethod
    def encode(values: object, bit_width: int, *, length_prefixed: bool = False) -> bytes:
        """Encode non-negative integers below ``2**bit_width``.

        Runs of at least 8 equal values become RLE runs; everything between
        them is bit-packed in groups of 8 (the group before a run borrows
        values from the run's start, the final group is zero-padded).
        """
        if not 0 <= bit_width <= MAX_BIT_WIDTH:
            raise ValueError(f"bit width {bit_width} outside 0..{MAX_BIT_WIDTH}")
        v = as_unsigned(values, bit_width)
        body = b"".join(_encode_runs(v, bit_width))
        return len(body).to_bytes(4, "little") + body if length_prefixed else body


def _parse_runs(mv: memoryview, bit_width: int, count: int, pos: int) -> tuple[_Runs, int]:
    """Read run headers until ``count`` values are covered; return them and the end position.

    This loop runs once per run, so it is kept free of calls in the common case.
    """
    runs = _Runs()
    lengths, values, packed = runs.lengths, runs.values, runs.packed
    starts, nbytes = runs.packed_starts, runs.packed_bytes
    end = len(mv)
    value_bytes = (bit_width + 7) // 8
    limit = 1 << bit_width
    remaining = count
    while remaining > 0:
        if pos >= end:
            if bit_width == 0:  # nothing but zeros can be missing
                break
            raise decoding_error(_RLE, f"data ends with {remaining} of {count} values missing", pos)
        header = mv[pos]
        if header < 0x80:
            pos += 1
        else:
            header, pos = read_uleb128(mv, pos, _RLE, "run header")
        if header & 1:
            n = (header >> 1) * 8
            take = n if n < remaining else remaining
            need = (take * bit_width + 7) >> 3
            if pos + need > end:
                raise decoding_error(_RLE, f"bit-packed run of {n} values needs {need} bytes, only {end - pos} left", pos)
            starts.append(pos)
            nbytes.append(need)
            values.append(0)
            # The run's unread tail (padding of the last run) is consumed if present.
            pos += (n * bit_width) >> 3
            if pos > end:
                pos = end
        else:
            n = header >> 1
            take = n if n < remaining else remaining
            if pos + value_bytes > end:
                raise decoding_error(_RLE, "repeated value truncated", pos)
            value = mv[pos] if value_bytes == 1 else int.from_bytes(mv[pos : pos + value_bytes], "little")
            if value >= limit:
                raise decoding_error(_RLE, f"repeated value {value} does not fit in {bit_width} bits", pos)
            values.append(value)
            pos += value_bytes
        packed.append(header & 1)
        lengths.append(take)
        remaining -= take
    if remaining:
        packed.append(0)
        lengths.append(remaining)
        values.append(0)
    return runs, pos


def _materialize(arr: np.ndarray, bit_width: int, count: int, runs: _Runs) -> np.ndarray:
    dtype = output_dtype(bit_width)
    lengths = np.array(runs.lengths, dtype=np.int64)
    if not runs.packed_starts:
        return np.repeat(np.array(runs.values, dtype=dtype), lengths)
    is_packed = np.array(runs.packed, dtype=np.bool_)
    n_packed = int(lengths[is_packed].sum())
    if len(runs.packed_starts) == 1:
        unpacked = unpack(arr, bit_width, n_packed, offset=runs.packed_starts[0])
    else:
        # Every bit-packed run but a truncated last one holds whole 8-value
        # groups, i.e. whole bytes, so their bytes concatenate seamlessly.
        _, joined = gather_ranges(arr, np.array(runs.packed_starts), np.array(runs.packed_bytes))
        unpacked = unpack(joined, bit_width, n_packed)
    if n_packed == count:
        return unpacked
    out = np.repeat(np.array(runs.values, dtype=dtype), lengths)
    out[np.repeat(is_packed, lengths)] = unpacked
    return out


def _plan_runs(v: np.ndarray) -> list[tuple[bool, int, int]]:
    """Split values into (is_rle, start, stop) segments; bit-packed ones hold whole groups of 8."""
    n = len(v)
    boundaries = np.flatnonzero(v[1:] != v[:-1]) + 1
    starts = np.concatenate(([0], boundaries))
    stops = np.concatenate((boundaries, [n]))
    long_runs = (stops - starts) >= MIN_REPEAT_RUN
    plan: list[tuple[bool, int, int]] = []
    pos = 0
    for start, stop in zip(starts[long_runs].tolist(), stops[long_runs].tolist(), strict=True):
        # Pad the literal before the run to whole groups with the run's first values.
        packed_stop = pos + -(-(start - pos) // 8) * 8
        if stop - packed_stop < MIN_REPEAT_RUN:
            continue  # too little of the run would be left: keep it in the literal
        if packed_stop > pos:
            plan.append((False, pos, packed_stop))
        plan.append((True, packed_stop, stop))
        pos = stop
    if pos < n:
        plan.append((False, pos, n))
    return plan


def _encode_runs(v: np.ndarray, bit_width: int) -> list[bytes]:
    if len(v) == 0:
        return []
    plan = _plan_runs(v)
    literal = [v[a:b] for is_rle, a, b in plan if not is_rle]
    packed = pack(np.concatenate(literal), bit_width) if literal else b""
    value_bytes = (bit_width + 7) // 8
    pieces: list[bytes] = []
    cursor = 0  # byte position in `packed`
    for is_rle, a, b in plan:
        if is_rle:
            value = int(v[a]).to_bytes(value_bytes, "little")
            for chunk in _chunks(b - a, MAX_RUN_LENGTH):
                pieces += (encode_uleb128(chunk << 1), value)
            continue
        for chunk in _chunks(b - a, MAX_RUN_LENGTH // 8 * 8):
            groups = -(-chunk // 8)
            size = groups * bit_width
            body = packed[cursor : cursor + size]
            pieces += (encode_uleb128(groups << 1 | 1), body + bytes(size - len(body)))
            cursor += size
    return pieces


def _chunks(total: int, limit: int) -> list[int]:
    """``total`` split into pieces of at most ``limit``."""
    return [limit] * (total // limit) + ([total % limit] if total % limit else [])


class BitPacked:
    """The deprecated BIT_PACKED level encoding: values packed MSB first, no headers."""

    @staticmethod
    def decode(data: Buffer, bit_width: int, count: int, *, offset: int = 0) -> tuple[np.ndarray, int]:
        """Decode ``count`` values; return (uint32/uint64 values, ``ceil(count * bit_width / 8)``)."""
        if not 0 <= bit_width <= MAX_BIT_WIDTH:
            raise decoding_error(_BIT_PACKED, f"bit width {bit_width} outside 0..{MAX_BIT_WIDTH}", offset)
        if count < 0:
            raise ValueError(f"negative count {count}")
        nbytes = packed_size(count, bit_width)
        available = len(views(data)[1]) - offset
        if nbytes > available:
            raise decoding_error(
                _BIT_PACKED, f"{count} values of {bit_width} bits need {nbytes} bytes, only {available} left", offset
            )
        return unpack(data, bit_width, count, offset=offset, msb_first=True), nbytes

    @staticmethod
    def encode(values: object, bit_width: int) -> bytes:
        """Pack values MSB first; the last byte is zero-padded."""
        return pack(values, bit_width, msb_first=True)
