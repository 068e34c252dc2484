"""A vectorized writer of the RLE / bit-packing hybrid (spec, Encodings, "Run
Length Encoding / Bit-Packing Hybrid"), for levels, dictionary indices and
RLE booleans on the write path.

It produces the stream :class:`~parquet_codec.encodings.rle.RleBitPackedHybrid`
decodes, without a Python loop per run: runs long enough to pay for an RLE
header are found with array operations, every literal stretch between them
is padded to whole groups of 8 by borrowing the next run's first values, all
literals are bit-packed in one call of the shared :func:`bitpack.pack`
kernel, and headers, packed bytes and run values are interleaved with one
gather.

Only runs of at least :func:`min_rle_run` values become RLE runs. With that
bound (at least 16) a run keeps at least 9 values after lending up to 7 to the
literal before it, so each run's fate is independent of the others; and a
shorter run costs about as much bit-packed as its header and the literal
split around it would.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.bitpack import as_unsigned, pack
from parquet_codec.encodings.byte_arrays import gather_ranges
from parquet_codec.encodings.varint import encode_uleb128_array


def min_rle_run(bit_width: int) -> int:
    """Shortest run written as an RLE run: where its header (about 2 bytes plus
    the value) costs less than bit-packing it."""
    value_bytes = (bit_width + 7) // 8
    return max(16, -(-8 * (3 + value_bytes) // max(bit_width, 1)))


def encode_hybrid(values: object, bit_width: int, *, length_prefixed: bool = False) -> bytes:
    """Encode non-negative integers below ``2**bit_width`` (0..64 bits)."""
    v = np.asarray(values)
    if v.dtype.kind != "u" or v.ndim != 1:
        v = as_unsigned(v, bit_width)
    elif v.size and bit_width < 64 and int(v.max()) >> bit_width:
        raise ValueError(f"value {int(v.max())} does not fit in {bit_width} bits")
    body = _encode(v, bit_width) if len(v) else b""
    return len(body).to_bytes(4, "little") + body if length_prefixed else body


def _encode(v: np.ndarray, bit_width: int) -> bytes:
    n = len(v)
    value_bytes = (bit_width + 7) // 8
    change = np.flatnonzero(v[1:] != v[:-1]) + 1
    starts = np.concatenate(([0], change))
    stops = np.concatenate((change, [n]))
    long = (stops - starts) >= min_rle_run(bit_width)
    run_starts, run_stops = starts[long], stops[long]
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
    literal_values = v[_spans(lit_from, lit_count)]
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


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions ``starts[i] .. starts[i] + lengths[i] - 1`` for all ``i``, concatenated."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths
    return np.repeat(np.asarray(starts, dtype=np.int64) - first, lengths) + np.arange(total, dtype=np.int64)


__all__ = ["encode_hybrid", "min_rle_run"]
