"""The bit-packing kernel (spec: RLE/bit-packing hybrid note 1, and deprecated BIT_PACKED)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.encodings import bitpack
from parquet_codec.encodings.bitpack import bit_length, output_dtype, pack, unpack
from parquet_codec.errors import DecodingError

# Spec: "the numbers 1 through 7 using bit width 3" (values 0..7), both bit orders.
SPEC_LSB = bytes([0b10001000, 0b11000110, 0b11111010])
SPEC_MSB = bytes([0b00000101, 0b00111001, 0b01110111])


def reference_unpack(data: bytes, width: int, count: int, msb_first: bool) -> list[int]:
    """Bit-by-bit definition of both orders, independent of the kernel."""
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big" if msb_first else "little")
    out = []
    for i in range(count):
        chunk = bits[i * width : (i + 1) * width].tolist()
        order = chunk if msb_first else chunk[::-1]
        out.append(int("".join(map(str, order)) or "0", 2))
    return out


def test_spec_example_lsb_first():
    assert pack(range(8), 3) == SPEC_LSB
    assert unpack(SPEC_LSB, 3, 8).tolist() == list(range(8))


def test_spec_example_msb_first():
    assert pack(range(8), 3, msb_first=True) == SPEC_MSB
    assert unpack(SPEC_MSB, 3, 8, msb_first=True).tolist() == list(range(8))


@st.composite
def packable(draw):
    width = draw(st.integers(0, 64))
    values = draw(st.lists(st.integers(0, (1 << width) - 1), max_size=40))
    return width, values


@settings(max_examples=200)
@given(packable(), st.booleans(), st.binary(max_size=3))
def test_round_trip_all_widths(case, msb_first, prefix):
    width, values = case
    packed = pack(np.array(values, dtype=np.uint64), width, msb_first=msb_first)
    assert len(packed) == (len(values) * width + 7) // 8
    assert reference_unpack(packed, width, len(values), msb_first) == values
    got = unpack(prefix + packed, width, len(values), offset=len(prefix), msb_first=msb_first)
    assert got.dtype == output_dtype(width)
    assert got.tolist() == values


@pytest.mark.parametrize("width", [1, 7, 8, 13, 16, 25, 31, 32, 33, 57, 58, 63, 64])
@pytest.mark.parametrize("msb_first", [False, True])
def test_large_random_arrays(width, msb_first):
    rng = np.random.default_rng(width)
    values = rng.integers(0, 2**width - 1, 1003, dtype=np.uint64, endpoint=True)
    packed = pack(values, width, msb_first=msb_first)
    assert np.array_equal(unpack(packed, width, len(values), msb_first=msb_first), values)
    assert reference_unpack(packed[:40], width, 40 * 8 // width, msb_first) == values[: 40 * 8 // width].tolist()


@pytest.mark.parametrize("width", [2, 13, 25, 26])
def test_both_unpacking_strategies(width):
    """Up to _SMALL_GROUPS groups the eight values of each group are cut at
    once, beyond that column by column: both give the packed values."""
    count = 8 * bitpack._SMALL_GROUPS + 5
    values = np.random.default_rng(width).integers(0, 2**width, count, dtype=np.uint64)
    packed = pack(values, width)
    for n in (count - 13, count):
        assert np.array_equal(unpack(packed, width, n), values[:n])


def test_padding_bits_are_zero_and_ignored():
    assert pack([1, 1, 1], 2) == bytes([0b010101])
    assert unpack(bytes([0b11010101]), 2, 3).tolist() == [1, 1, 1]


def test_width_zero_reads_nothing():
    assert unpack(b"", 0, 5).tolist() == [0] * 5
    assert pack([0, 0, 0], 0) == b""


def test_output_dtypes():
    assert unpack(b"\xff" * 4, 32, 1).dtype == np.uint32
    assert unpack(b"\xff" * 5, 33, 1).dtype == np.uint64
    assert unpack(b"\xff" * 8, 64, 1).tolist() == [2**64 - 1]


def test_truncated_data_raises_decoding_error():
    with pytest.raises(DecodingError, match="bit-packing: 9 values of 3 bits need 4 bytes, only 3 available at byte 0"):
        unpack(SPEC_LSB, 3, 9)
    with pytest.raises(DecodingError, match="at byte 2"):
        unpack(SPEC_LSB, 3, 8, offset=2)


@pytest.mark.parametrize("values", [[8], [-1]])
def test_pack_rejects_values_that_do_not_fit(values):
    with pytest.raises(ValueError):
        pack(values, 3)


@pytest.mark.parametrize("width", [-1, 65])
def test_invalid_width_is_a_programming_error(width):
    with pytest.raises(ValueError):
        unpack(b"\x00" * 16, width, 1)
    with pytest.raises(ValueError):
        pack([0], width)


@given(st.lists(st.integers(0, 2**64 - 1), max_size=30))
def test_bit_length(values):
    assert bit_length(np.array(values, dtype=np.uint64)).tolist() == [v.bit_length() for v in values]
