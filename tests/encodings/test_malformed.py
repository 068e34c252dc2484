"""Every decoder on corrupt input: truncated at every length, bytes flipped, random bytes.

Whatever the damage, the only exception that may escape is DecodingError
(never IndexError, a numpy ValueError, MemoryError, or a hang).
"""

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.encodings import (
    BitPacked,
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    RleBitPackedHybrid,
    decode_indices,
    decode_plain,
    encode_indices,
    encode_plain,
)
from parquet_codec.errors import DecodingError
from parquet_codec.format.ttypes import Type

WORDS = [b"apple", b"applesauce", b"apply", b"", b"banana", b"band", b"bandana", b"x" * 40]
INTS = [0, 5, -3, 2**31 - 1, -(2**31), 7, 7, 7, 1000, -1000] * 3
rng = np.random.default_rng(3)


def case(name, encoded, decode, count):
    return pytest.param(encoded, decode, count, id=name)


CASES = [
    case("plain-int32", encode_plain(INTS, Type.INT32), lambda d, n: decode_plain(d, Type.INT32, n), len(INTS)),
    case("plain-bool", encode_plain([True, False] * 9, Type.BOOLEAN), lambda d, n: decode_plain(d, Type.BOOLEAN, n), 18),
    case("plain-bytes", encode_plain(WORDS, Type.BYTE_ARRAY), lambda d, n: decode_plain(d, Type.BYTE_ARRAY, n), 8),
    case(
        "plain-flba",
        encode_plain([b"abc", b"def"], Type.FIXED_LEN_BYTE_ARRAY, type_length=3),
        lambda d, n: decode_plain(d, Type.FIXED_LEN_BYTE_ARRAY, n, type_length=3),
        2,
    ),
    case(
        "rle-w3",
        RleBitPackedHybrid.encode([1, 2, 3] + [5] * 20 + [0, 7, 6], 3),
        lambda d, n: RleBitPackedHybrid.decode(d, 3, n),
        26,
    ),
    case(
        "rle-w40-prefixed",
        RleBitPackedHybrid.encode([2**39] * 9 + [1, 2**40 - 1], 40, length_prefixed=True),
        lambda d, n: RleBitPackedHybrid.decode(d, 40, n, length_prefixed=True),
        11,
    ),
    case("bit-packed", BitPacked.encode(range(8), 3), lambda d, n: BitPacked.decode(d, 3, n), 8),
    case("dictionary", encode_indices([3, 1, 4, 1, 5, 9, 2, 6] * 3, 10), decode_indices, 24),
    case(
        "delta-int32",
        DeltaBinaryPacked.encode(INTS, Type.INT32, block_size=16, miniblocks=2),
        lambda d, n: DeltaBinaryPacked.decode(d, Type.INT32, n),
        len(INTS),
    ),
    case(
        "delta-int64",
        DeltaBinaryPacked.encode(rng.integers(-(2**63), 2**63 - 1, 40), Type.INT64, block_size=32, miniblocks=4),
        lambda d, n: DeltaBinaryPacked.decode(d, Type.INT64, n),
        40,
    ),
    case("delta-length", DeltaLengthByteArray.encode(WORDS, block_size=8, miniblocks=1), DeltaLengthByteArray.decode, 8),
    case(
        "delta-byte-array",
        DeltaByteArray.encode(sorted(WORDS), block_size=8, miniblocks=1),
        lambda d, n: DeltaByteArray.decode(d, Type.BYTE_ARRAY, n),
        8,
    ),
    case(
        "delta-byte-array-flba",
        DeltaByteArray.encode([b"abcd", b"abce", b"abzz"], Type.FIXED_LEN_BYTE_ARRAY, type_length=4, block_size=8, miniblocks=1),
        lambda d, n: DeltaByteArray.decode(d, Type.FIXED_LEN_BYTE_ARRAY, n, type_length=4),
        3,
    ),
    case(
        "byte-stream-split",
        ByteStreamSplit.encode([1.5, -2.0, 3.25], Type.DOUBLE),
        lambda d, n: ByteStreamSplit.decode(d, Type.DOUBLE, n),
        3,
    ),
]


def only_decoding_errors(decode, data, count):
    """Decoding may succeed (the damage can be valid data) or raise DecodingError, nothing else."""
    with contextlib.suppress(DecodingError):
        decode(data, count)


@pytest.mark.parametrize(("encoded", "decode", "count"), CASES)
def test_valid_payload_decodes(encoded, decode, count):
    decode(encoded, count)


@pytest.mark.parametrize(("encoded", "decode", "count"), CASES)
def test_truncated_at_every_length(encoded, decode, count):
    for cut in range(len(encoded)):
        only_decoding_errors(decode, encoded[:cut], count)
        only_decoding_errors(decode, encoded[:cut], count + 1)


@pytest.mark.parametrize(("encoded", "decode", "count"), CASES)
def test_every_byte_flipped(encoded, decode, count):
    for i in range(len(encoded)):
        for value in {0x00, 0xFF, 0x80, 0x7F, encoded[i] ^ 0x01, encoded[i] ^ 0x40}:
            damaged = encoded[:i] + bytes([value]) + encoded[i + 1 :]
            only_decoding_errors(decode, damaged, count)


@settings(max_examples=40)
@given(st.binary(max_size=60), st.integers(0, 40))
@pytest.mark.parametrize(("encoded", "decode", "count"), CASES)
def test_random_bytes(encoded, decode, count, data, n):
    only_decoding_errors(decode, data, n)
    only_decoding_errors(decode, encoded[:4] + data, n)
