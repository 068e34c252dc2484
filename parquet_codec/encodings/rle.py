"""RLE / bit-packing hybrid (RLE = 3) and the deprecated BIT_PACKED (= 4) encoding.

Spec, Encodings, "Run Length Encoding / Bit-Packing Hybrid" and
"Bit-packed (Deprecated)". The hybrid is a sequence of runs, each introduced
by a ULEB128 header whose low bit tells a bit-packed run (``groups << 1 | 1``,
``8 * groups`` values packed LSB first) from an RLE run (``length << 1``,
followed by one value in ``ceil(bit_width / 8)`` little-endian bytes).

Decoding reads the first run headers in Python (most streams have a handful
of runs) and the rest, when there are many, with array operations: the
varint at every byte position is decoded at once and the chain of headers is
followed by pointer doubling. Values are then materialized with one
``np.repeat`` for every RLE run and a single :func:`bitpack.unpack` over the
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
from parquet_codec.encodings.byte_arrays import gather_ranges, spans
from parquet_codec.encodings.varint import (
    Buffer,
    decoding_error,
    encode_uleb128,
    encode_uleb128_array,
    read_uleb128,
    views,
)
from parquet_codec.errors import DecodingError
from parquet_codec.limits import reserve_items

_RLE = "RLE"
_BIT_PACKED = "BIT_PACKED"
#: Spec: run lengths must lie in [1, 2**31 - 1] so readers can hold them in an int32.
MAX_RUN_LENGTH = (1 << 31) - 1


#: Run headers read one by one before the vectorized parser may take over;
#: every SCALAR_RUNS runs the scalar parser checks whether it should.
SCALAR_RUNS = 32
#: The vectorized parser costs time per byte, the scalar one per run: it takes
#: over only when the runs read so far average fewer bytes than this (short
#: RLE runs), not for the long bit-packed runs most writers produce.
BULK_BYTES_PER_RUN = 24
#: Streams of up to this many values (the levels and indices of one-row
#: pages, as in wide files of small row groups) are laid out by a plain loop:
#: the dozen array operations of the general path cost more than the values.
SMALL_COUNT = 64


class _Runs:
    """Run headers parsed from a hybrid stream, in order: Python lists from the
    scalar parser, then arrays from the bulk parser."""

    FIELDS = ("lengths", "values", "packed", "packed_starts", "packed_bytes")

    def __init__(self) -> None:
        self.lengths: list[int] = []  # values taken from each run
        self.values: list[int] = []  # repeated value, 0 for bit-packed runs
        self.packed: list[int] = []  # 1 for bit-packed runs
        self.packed_starts: list[int] = []  # byte offset of each bit-packed run's data
        self.packed_bytes: list[int] = []  # bytes of it that are read
        self.bulk: dict[str, np.ndarray] | None = None

    def column(self, name: str) -> np.ndarray:
        head = np.array(getattr(self, name), dtype=np.uint64 if name == "values" else np.int64)
        if self.bulk is None:
            return head
        return np.concatenate([head, self.bulk[name].astype(head.dtype, copy=False)])


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
        run are ignored; running out of runs before ``count`` values, or a
        run of none before then, is a DecodingError (at width 0 too).
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
        if count > SMALL_COUNT:
            reserve_items(count, np.dtype(output_dtype(bit_width)).itemsize, f"{count} {_RLE} values")
        values = _materialize(arr, bit_width, count, runs)
        return values, (end if length_prefixed else stop) - offset

    @staticmethod
    def encode(values: object, bit_width: int, *, length_prefixed: bool = False) -> bytes:
        """Encode non-negative integers below ``2**bit_width`` (0..64 bits).

        Runs of at least :func:`min_rle_run` equal values become RLE runs;
        everything between them is bit-packed in groups of 8 (the group
        before a run borrows values from the run's start, the final group is
        zero-padded). No Python loop runs per run: runs are found, literals
        packed and headers interleaved with array operations.
        """
        if not 0 <= bit_width <= MAX_BIT_WIDTH:
            raise ValueError(f"bit width {bit_width} outside 0..{MAX_BIT_WIDTH}")
        v = np.asarray(values)
        if v.dtype.kind == "i" and v.ndim == 1 and v.size and int(v.min()) >= 0:
            v = v.view(v.dtype.str.replace("i", "u"))  # levels arrive as int16: no widening copy
        if v.dtype.kind != "u" or v.ndim != 1:
            v = as_unsigned(v, bit_width)
        elif v.size and bit_width < 64 and int(v.max()) >> bit_width:
            raise ValueError(f"value {int(v.max())} does not fit in {bit_width} bits")
        if len(v) > MAX_RUN_LENGTH:
            raise ValueError(f"{len(v)} values exceed what one hybrid stream may hold")
        body = (_single_run(v, bit_width) or _encode(v, bit_width)) if len(v) else b""
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
    pos, remaining = _uniform_packed_runs(mv, bit_width, count, pos, runs)
    first, check_at = pos, len(lengths) + SCALAR_RUNS
    while remaining > 0:
        if len(lengths) == check_at and pos < end:
            if pos - first < BULK_BYTES_PER_RUN * check_at:
                return runs, _parse_runs_bulk(mv, bit_width, remaining, pos, runs)
            check_at += SCALAR_RUNS
        if pos >= end:
            raise decoding_error(_RLE, f"data ends with {remaining} of {count} values missing", pos)
        header, at = mv[pos], pos
        if header < 0x80:
            pos += 1
        else:
            header, pos = read_uleb128(mv, pos, _RLE, "run header")
        if header < 2:
            raise _empty_run(remaining, at)
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
    return runs, pos


def _empty_run(remaining: int, pos: int) -> DecodingError:
    """A run of no values before the last is needed: pyarrow's decoder stops
    there, and what follows it is not where the next run starts."""
    return decoding_error(_RLE, f"run of 0 values where {remaining} more are needed", pos)


def _uniform_packed_runs(mv: memoryview, bit_width: int, count: int, pos: int, runs: _Runs) -> tuple[int, int]:
    """Take the leading bit-packed runs that repeat the first one's header
    (writers cut long literal stretches, such as dictionary indices, into
    runs of a fixed size), checked with one strided comparison per header
    byte; return the position after them and the values still to read.
    The last run, which may be cut short, is left to the caller."""
    if pos >= len(mv) or not mv[pos] & 1:
        return pos, count
    header, body = read_uleb128(mv, pos, _RLE, "run header")
    covers, size = (header >> 1) * 8, (header >> 1) * bit_width
    stride = body - pos + size
    repeats = min((count - 1) // covers if covers else 0, (len(mv) - pos) // stride if stride else 0)
    if repeats < 2:
        return pos, count
    arr = np.frombuffer(mv, dtype=np.uint8)
    for j in range(body - pos):
        if not (arr[pos + j : pos + j + repeats * stride : stride] == mv[pos + j]).all():
            return pos, count
    runs.lengths.extend([covers] * repeats)
    runs.values.extend([0] * repeats)
    runs.packed.extend([1] * repeats)
    runs.packed_starts.extend(range(body, body + repeats * stride, stride))
    runs.packed_bytes.extend([size] * repeats)
    return pos + repeats * stride, count - repeats * covers


def _parse_runs_bulk(mv: memoryview, bit_width: int, count: int, start: int, runs: _Runs) -> int:
    """Parse the runs from ``start`` covering ``count`` values with array
    operations; store them in ``runs.bulk`` and return the end position."""
    a = np.frombuffer(mv, dtype=np.uint8)[start:]
    n = len(a)
    header, hlen = _varints(a)
    packed = (header & 1).astype(np.bool_)
    body = (header >> 1).astype(np.int64)  # groups of 8 (bit-packed) or the run length (RLE)
    value_bytes = (bit_width + 7) // 8
    covers = np.where(packed, body * 8, body)
    nxt = np.arange(n, dtype=np.int64) + hlen + np.where(packed, body * bit_width, value_bytes)
    nxt[hlen == 0] = n  # no header can start here; noticed below if the chain reaches it
    path = _chain(np.append(np.minimum(nxt, n), n), np.append(covers, 0), n, count)
    used, take = _cut(path, covers, count)
    _check_runs(a, start, used, hlen, packed, take, bit_width, count)
    starts = used + hlen[used]
    rle = ~packed[used]
    values = np.zeros(len(used), dtype=np.uint64)
    if value_bytes and rle.any():
        values[rle] = _little_endian(a, starts[rle], value_bytes)
        if bit_width < 64 and (values >= (1 << bit_width)).any():
            bad = int(np.argmax(values >= (1 << bit_width)))
            raise decoding_error(_RLE, f"repeated value {int(values[bad])} does not fit in {bit_width} bits",
                                 start + int(starts[bad]))
    runs.bulk = {"lengths": take, "values": values, "packed": packed[used].astype(np.int64),
                 "packed_starts": start + starts[~rle], "packed_bytes": (take[~rle] * bit_width + 7) >> 3}
    return start + (int(min(nxt[used[-1]], n)) if len(used) else 0)


def _varints(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ULEB128 value and byte length of a varint starting at every
    position of ``a``; length 0 where none of at most 5 bytes fits.

    Only positions whose last byte read has the continuation bit are
    extended, so each further byte costs a fraction of the one before."""
    n = len(a)
    value = (a & 0x7F).astype(np.int64)
    length = np.ones(n, dtype=np.int64)
    going = np.flatnonzero(a >= 0x80)  # (nonzero is several times faster on bools)
    for i in range(1, 5):
        inside = int(np.searchsorted(going, n - i))  # (going is ascending)
        length[going[inside:]] = 0  # the varint runs past the end of the data
        going = going[:inside]
        if not len(going):
            break
        byte = a.take(going + i)
        value[going] |= (byte & 0x7F).astype(np.int64) << (7 * i)
        length[going] += 1
        going = np.compress(byte >= 0x80, going)  # (boolean indexing is slower on irregular masks)
    length[going] = 0  # still continuing after 5 bytes: not a run header
    return value, length


def _chain(nxt: np.ndarray, covers: np.ndarray | None, n: int, count: int) -> np.ndarray:
    """Positions of the run headers from position 0, in order, until they cover
    ``count`` values or reach the end ``n`` (``nxt[n] == n``, ``covers[n] == 0``).

    Pointer doubling gives the header ``2**k`` runs ahead of every position
    (and the values those runs cover); a short Python walk then takes those
    long strides from position 0, and the headers in between are filled in
    with ``2**k`` gathers over the strides' starts. That costs ``k`` passes
    over the data instead of one per doubling of the run count."""
    rounds = min(max(n.bit_length() // 3, 2), 6)
    jump = nxt
    spans = covers if count < _UNBOUNDED else None
    for _ in range(rounds):
        if spans is not None:
            spans = spans + spans.take(jump)
        jump = jump.take(jump)
    anchors = _strides(jump, spans, n, count)
    rows = np.empty((1 << rounds, len(anchors)), dtype=np.int64)
    rows[0] = anchors
    for i in range(1, 1 << rounds):
        np.take(nxt, rows[i - 1], out=rows[i])
    path = rows.T.reshape(-1)
    return path[path < n]


#: A count meaning "every run up to the end of the data".
_UNBOUNDED = np.iinfo(np.int64).max


def _strides(jump: np.ndarray, spans: np.ndarray | None, n: int, count: int) -> np.ndarray:
    """Follow ``jump`` from 0 until ``n`` or until ``spans`` add up to ``count``."""
    hops, sizes = memoryview(jump), None if spans is None else memoryview(spans)
    anchors = []
    pos = total = 0
    while pos < n and total < count:
        anchors.append(pos)
        if sizes is not None:
            total += sizes[pos]
        pos = hops[pos]
    return np.array(anchors, dtype=np.int64)


def _cut(path: np.ndarray, covers: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The runs needed for ``count`` values and how many values each gives."""
    take = covers[path]
    total = np.cumsum(take)
    if len(total) and total[-1] >= count:
        k = int(np.searchsorted(total, count)) + 1
        path, take = path[:k], take[:k].copy()
        take[-1] -= int(total[k - 1]) - count
    return path, take


def _check_runs(a: np.ndarray, start: int, used: np.ndarray, hlen: np.ndarray, packed: np.ndarray,
                take: np.ndarray, bit_width: int, count: int) -> None:
    """Headers well-formed, payloads inside the data, enough values."""
    n = len(a)
    bad_header = hlen[used] == 0
    if bad_header.any():
        raise decoding_error(_RLE, "malformed run header", start + int(used[np.argmax(bad_header)]))
    empty = take == 0
    if empty.any():
        i = int(np.argmax(empty))
        raise _empty_run(count - int(take[:i].sum()), start + int(used[i]))
    body = used + hlen[used]
    need = np.where(packed[used], (take * bit_width + 7) >> 3, (bit_width + 7) // 8)
    short = body + need > n
    if short.any():
        i = int(np.argmax(short))
        what = "bit-packed run" if packed[used[i]] else "repeated value"
        raise decoding_error(_RLE, f"{what} truncated: needs {int(need[i])} bytes, only {n - int(body[i])} left",
                             start + int(body[i]))
    missing = count - int(take.sum())
    if missing:
        end = int(used[-1] + hlen[used[-1]] + need[-1]) if len(used) else 0
        raise decoding_error(_RLE, f"data ends with {missing} values missing", start + min(end, n))


def _little_endian(a: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros(len(starts), dtype=np.uint64)
    for i in range(width):
        out |= a[starts + i].astype(np.uint64) << np.uint64(8 * i)
    return out


def _materialize(arr: np.ndarray, bit_width: int, count: int, runs: _Runs) -> np.ndarray:
    dtype = output_dtype(bit_width)
    if count <= SMALL_COUNT and runs.bulk is None:
        return np.array(_small_values(arr, bit_width, runs), dtype=dtype)
    lengths = runs.column("lengths")
    packed_starts = runs.column("packed_starts")
    if not len(packed_starts):
        return np.repeat(runs.column("values").astype(dtype), lengths)
    is_packed = runs.column("packed").astype(np.bool_)
    n_packed = int(lengths[is_packed].sum())
    if len(packed_starts) == 1:
        unpacked = unpack(arr, bit_width, n_packed, offset=int(packed_starts[0]))
    else:
        # Every bit-packed run but a truncated last one holds whole 8-value
        # groups, i.e. whole bytes, so their bytes concatenate seamlessly.
        joined = _join_ranges(arr, packed_starts, runs.column("packed_bytes"))
        unpacked = unpack(joined, bit_width, n_packed)
    if n_packed == count:
        return unpacked
    return _interleave(runs.column("values"), is_packed, lengths, unpacked, dtype)


def _small_values(arr: np.ndarray, bit_width: int, runs: _Runs) -> list[int]:
    """The values of a few runs (parsed by the scalar parser), one by one."""
    mask = (1 << bit_width) - 1
    packed_runs = zip(runs.packed_starts, runs.packed_bytes, strict=True)
    values: list[int] = []
    for length, value, packed in zip(runs.lengths, runs.values, runs.packed, strict=True):
        if packed:
            start, nbytes = next(packed_runs)
            word = int.from_bytes(arr[start : start + nbytes].tobytes(), "little")
            values.extend((word >> (bit_width * i)) & mask for i in range(length))
        else:
            values.extend([value] * length)
    return values


def _interleave(values: np.ndarray, packed: np.ndarray, lengths: np.ndarray, unpacked: np.ndarray,
                dtype: type) -> np.ndarray:
    """The runs' values in order: each RLE run's value ``lengths[i]`` times, the
    bit-packed runs' (``packed``) taken in turn from ``unpacked``."""
    out = np.repeat(values.astype(dtype), lengths)
    out[np.repeat(packed, lengths)] = unpacked
    return out


#: Up to this many ranges are joined as slices; beyond, with one gather.
_SLICED_RANGES = 512


def _join_ranges(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The bytes ``arr[starts[i]:starts[i] + lengths[i]]``, concatenated."""
    if len(starts) > _SLICED_RANGES:
        return gather_ranges(arr, starts, lengths)[1]
    return np.concatenate([arr[a:b] for a, b in zip(starts.tolist(), (starts + lengths).tolist(), strict=True)])


def min_rle_run(bit_width: int) -> int:
    """Shortest run written as an RLE run: where its header (about 2 bytes plus
    the value) costs less than bit-packing it."""
    if bit_width == 0:  # every value is 0: one RLE run says it all
        return 1
    value_bytes = (bit_width + 7) // 8
    return max(16, -(-8 * (3 + value_bytes) // bit_width))


def _single_run(v: np.ndarray, bit_width: int) -> bytes | None:
    """The stream for values that are all equal and long enough for an RLE run
    (the levels of a column without nulls): one header and the value; None otherwise."""
    if len(v) < min_rle_run(bit_width) or v[0] != v[-1] or not (v == v[0]).all():
        return None
    value = int(v[0]).to_bytes(8, "little")[: (bit_width + 7) // 8]
    return encode_uleb128(len(v) << 1) + value


def _encode(v: np.ndarray, bit_width: int) -> bytes:
    n = len(v)
    value_bytes = (bit_width + 7) // 8
    run_starts, run_stops = _long_runs(v, min_rle_run(bit_width))
    # Literal k runs from the end of run k-1 to the start of run k, padded up to
    # whole groups of 8 with the run's first values.
    prev_stop = np.concatenate(([0], run_stops))[:-1]
    lit_len = -(-(run_starts - prev_stop) // 8) * 8
    rle_start = prev_stop + lit_len
    rle_len = run_stops - rle_start
    tail_start = int(run_stops[-1]) if len(run_stops) else 0
    tail_len = n - tail_start
    tail_groups = -(-tail_len // 8)

    lit_from = np.concatenate((prev_stop, [tail_start]))
    lit_count = np.concatenate((lit_len, [tail_len]))
    literal_values = v if len(run_starts) == 0 else v[spans(lit_from, lit_count)]
    if bit_width == 1:  # numpy's own bit packer is much faster for the common 0/1 levels
        packed = np.packbits(literal_values.astype(bool), bitorder="little")
    else:
        packed = np.frombuffer(pack(literal_values, bit_width), dtype=np.uint8)
    tail_bytes = tail_groups * bit_width
    body_bytes = np.concatenate((lit_len // 8 * bit_width, [tail_bytes]))
    missing = int(body_bytes.sum()) - len(packed)  # zero padding of the tail's last group
    if missing > 0:
        packed = np.concatenate((packed, np.zeros(missing, dtype=np.uint8)))

    groups = np.concatenate((lit_len // 8, [tail_groups])).astype(np.uint64)
    lit_headers, encoded_len = encode_uleb128_array(groups << np.uint64(1) | np.uint64(1))
    lit_header_at = np.cumsum(encoded_len) - encoded_len
    lit_header_len = np.where(lit_count > 0, encoded_len, 0)  # empty literals get no header
    rle_headers, rle_header_len = encode_uleb128_array(rle_len.astype(np.uint64) << np.uint64(1))
    rle_values = v[rle_start].astype("<u8").view(np.uint8).reshape(-1, 8)[:, :value_bytes].reshape(-1)

    source = np.concatenate((lit_headers, packed, rle_headers, rle_values))
    base_packed = len(lit_headers)
    base_rle = base_packed + len(packed)
    base_values = base_rle + len(rle_headers)
    body_at = base_packed + np.cumsum(body_bytes) - body_bytes
    rle_header_at = base_rle + np.cumsum(rle_header_len) - rle_header_len
    k = len(rle_len)
    piece_start = np.stack((lit_header_at[:k], body_at[:k], rle_header_at,
                            base_values + np.arange(k, dtype=np.int64) * value_bytes), axis=1).reshape(-1)
    piece_len = np.stack((lit_header_len[:k], body_bytes[:k], rle_header_len,
                          np.full(k, value_bytes, dtype=np.int64)), axis=1).reshape(-1)
    piece_start = np.concatenate((piece_start, [lit_header_at[k], body_at[k]]))
    piece_len = np.concatenate((piece_len, [lit_header_len[k], body_bytes[k]]))
    return gather_ranges(source, piece_start, piece_len)[1].tobytes()


def _long_runs(v: np.ndarray, shortest: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and stop of every maximal run of equal values at least ``shortest``
    long (``shortest >= 2``, or any when every value is the same).

    Works on the edges of the "equals its predecessor" mask, so random data
    with few repeats costs a few passes and no per-value index arrays."""
    same = np.zeros(len(v) + 1, dtype=np.int8)
    np.equal(v[1:], v[:-1], out=same[1:-1].view(np.bool_))
    if np.count_nonzero(same) == len(v) - 1:  # one value throughout (levels of a column without nulls)
        edges = np.array([0, len(v) - 1])
    else:
        edges = np.flatnonzero(np.diff(same))  # rising and falling edges alternate
    starts, stops = edges[0::2], edges[1::2] + 1
    long = (stops - starts) >= shortest
    return starts[long], stops[long]





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
        reserve_items(count, np.dtype(output_dtype(bit_width)).itemsize, f"{count} {_BIT_PACKED} values")
        return unpack(data, bit_width, count, offset=offset, msb_first=True), nbytes

    @staticmethod
    def encode(values: object, bit_width: int) -> bytes:
        """Pack values MSB first; the last byte is zero-padded."""
        return pack(values, bit_width, msb_first=True)
