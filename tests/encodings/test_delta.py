"""DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (spec, Encodings)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.encodings import delta
from parquet_codec.encodings.byte_arrays import ByteArrays
from parquet_codec.encodings.delta import DeltaBinaryPacked, DeltaByteArray, DeltaLengthByteArray
from parquet_codec.encodings.varint import encode_uleb128, zigzag_encode
from parquet_codec.errors import DecodingError, ResourceLimitError
from parquet_codec.format.ttypes import Type

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

# Spec example 1: header 8 (block size), 1 (miniblock), 5 (values), zigzag(1) = 2;
# block: zigzag(min delta 1) = 2, bit width 0, no miniblock data.
SPEC_EXAMPLE_1 = bytes([8, 1, 5, 2, 2, 0])
# Spec example 2: header 8, 1, 8, zigzag(7) = 14; block: zigzag(-2) = 3, width 2,
# relative deltas 0,0,0,3,3,3,3 (+ one zero of padding) packed LSB first:
# byte 0 = 0,0,0,3 -> 0b11000000, byte 1 = 3,3,3,0 -> 0b00111111.
SPEC_EXAMPLE_2 = bytes([8, 1, 8, 14, 3, 2, 0b11000000, 0b00111111])

# The spec gives no block shape for the byte-array examples; these use the
# default 128 values / 4 miniblocks (parquet-java's), derived by hand.
# Lengths 5,5,6,6: header 128 (ULEB 80 01), 4, 4, zigzag(5) = 10; deltas 0,1,0 ->
# min 0, widths 1,0,0,0, one 32-value miniblock at 1 bit: 0b010 then zeros.
DLBA_LENGTHS = bytes([0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0b010, 0, 0, 0])
SPEC_DLBA = DLBA_LENGTHS + b"HelloWorldFoobarABCDEF"
# Prefixes 0,2,0,3: deltas 2,-2,3 -> min -2 (zigzag 3), relative 4,0,5 at width 3:
# byte 0 = 100 | 000 << 3 | (101 & 11) << 6 = 0x44, byte 1 = 101 >> 2 = 0x01.
DBA_PREFIXES = bytes([0x80, 0x01, 4, 4, 0, 3, 3, 0, 0, 0, 0x44, 0x01] + [0] * 10)
# Suffix lengths 4,2,6,5: deltas -2,4,-1 -> min -2, relative 0,6,1 at width 3:
# byte 0 = 000 | 110 << 3 | (001 & 11) << 6 = 0x70.
DBA_SUFFIX_LENGTHS = bytes([0x80, 0x01, 4, 4, 8, 3, 3, 0, 0, 0, 0x70] + [0] * 11)
SPEC_DBA = DBA_PREFIXES + DBA_SUFFIX_LENGTHS + b"axislebabbleyhood"


@pytest.mark.parametrize("physical_type", [Type.INT32, Type.INT64])
@pytest.mark.parametrize(("values", "encoded"), [([1, 2, 3, 4, 5], SPEC_EXAMPLE_1), ([7, 5, 3, 1, 2, 3, 4, 5], SPEC_EXAMPLE_2)])
def test_spec_examples(physical_type, values, encoded):
    assert DeltaBinaryPacked.encode(values, physical_type, block_size=8, miniblocks=1) == encoded
    decoded, consumed = DeltaBinaryPacked.decode(encoded + b"rest", physical_type, len(values))
    assert decoded.tolist() == values and consumed == len(encoded)
    assert decoded.dtype == (np.int32 if physical_type == Type.INT32 else np.int64)


def test_spec_delta_length_byte_array_example():
    values = [b"Hello", b"World", b"Foobar", b"ABCDEF"]
    assert DeltaBinaryPacked.encode([5, 5, 6, 6], Type.INT32) == DLBA_LENGTHS
    assert DeltaLengthByteArray.encode(values) == SPEC_DLBA
    decoded, consumed = DeltaLengthByteArray.decode(SPEC_DLBA + b"rest", 4)
    assert decoded.to_pylist() == values and consumed == len(SPEC_DLBA)


def test_spec_delta_byte_array_example():
    values = [b"axis", b"axle", b"babble", b"babyhood"]
    assert DeltaBinaryPacked.encode([0, 2, 0, 3], Type.INT32) == DBA_PREFIXES
    assert DeltaBinaryPacked.encode([4, 2, 6, 5], Type.INT32) == DBA_SUFFIX_LENGTHS
    assert DeltaByteArray.encode(values) == SPEC_DBA
    decoded, consumed = DeltaByteArray.decode(SPEC_DBA, Type.BYTE_ARRAY, 4)
    assert decoded.to_pylist() == values and consumed == len(SPEC_DBA)


def test_overflowing_deltas_wrap():
    for physical_type, values in [
        (Type.INT64, [INT64_MIN, INT64_MAX, 0, -1, INT64_MAX, INT64_MIN]),
        (Type.INT32, [INT32_MIN, INT32_MAX, 0, -1, INT32_MAX, INT32_MIN]),
    ]:
        encoded = DeltaBinaryPacked.encode(values, physical_type)
        assert DeltaBinaryPacked.decode(encoded, physical_type, len(values))[0].tolist() == values


BLOCK_SHAPES = st.sampled_from([(8, 1), (16, 2), (64, 8), (128, 4), (256, 8)])


def int_lists(bits):
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    edge = st.sampled_from([lo, hi, 0, -1, 1])
    return st.lists(st.one_of(st.integers(lo, hi), edge, st.integers(-3, 3)), max_size=200)


@settings(max_examples=150)
@given(st.sampled_from([(Type.INT32, 32), (Type.INT64, 64)]).flatmap(lambda t: st.tuples(st.just(t[0]), int_lists(t[1]))), BLOCK_SHAPES)
def test_round_trip(case, shape):
    physical_type, values = case
    encoded = DeltaBinaryPacked.encode(values, physical_type, block_size=shape[0], miniblocks=shape[1])
    decoded, consumed = DeltaBinaryPacked.decode(b"\x00" + encoded + b"\x01", physical_type, len(values), offset=1)
    assert decoded.tolist() == values and consumed == len(encoded)


def test_many_blocks_of_varied_widths():
    rng = np.random.default_rng(7)
    scales = np.repeat(2 ** rng.integers(0, 62, 800), 128)
    values = np.cumsum(rng.integers(-1, 2, len(scales)) * rng.integers(0, scales, dtype=np.int64))
    encoded = DeltaBinaryPacked.encode(values, Type.INT64)
    assert np.array_equal(DeltaBinaryPacked.decode(encoded, Type.INT64, len(values))[0], values)


def test_empty_and_single_value():
    assert DeltaBinaryPacked.encode([], Type.INT64) == bytes([0x80, 1, 4, 0, 0])
    assert DeltaBinaryPacked.decode(bytes([0x80, 1, 4, 0, 0]), Type.INT64, 0)[0].size == 0
    decoded, consumed = DeltaBinaryPacked.decode(b"", Type.INT64, 0)  # no header at all
    assert decoded.size == 0 and consumed == 0
    assert DeltaBinaryPacked.encode([-3], Type.INT32) == bytes([0x80, 1, 4, 1, 5])
    assert DeltaBinaryPacked.decode(bytes([0x80, 1, 4, 1, 5]), Type.INT32, 1)[0].tolist() == [-3]


def test_unused_miniblock_widths_in_last_block_are_ignored():
    encoded = bytearray(DeltaBinaryPacked.encode([1, 5, 2, 8, 3], Type.INT64))
    # Header is 5 bytes, min delta 1 byte, then 4 widths: only the first is used.
    assert encoded[7:10] == b"\x00\x00\x00"
    encoded[7:10] = b"\xff\x46\x21"
    assert DeltaBinaryPacked.decode(bytes(encoded), Type.INT64, 5)[0].tolist() == [1, 5, 2, 8, 3]


def test_missing_padding_of_last_miniblock_is_accepted():
    encoded = DeltaBinaryPacked.encode([1, 5, 2, 8, 3], Type.INT64)
    # 4 deltas at width 4 need 2 of the miniblock's 16 bytes.
    decoded, consumed = DeltaBinaryPacked.decode(encoded[:12], Type.INT64, 5)
    assert decoded.tolist() == [1, 5, 2, 8, 3] and consumed == 12


def test_int32_header_values_are_reduced_modulo_2_32():
    # A writer computing INT32 values in 64 bits: only the low 32 bits matter.
    encoded = bytes([8, 1, 1]) + encode_uleb128(zigzag_encode(2**32 + 5))
    assert DeltaBinaryPacked.decode(encoded, Type.INT32, 1)[0].tolist() == [5]


def test_int32_deltas_of_64_bits_are_reduced_modulo_2_32():
    """DuckDB writes INT32 deltas as 64-bit differences: INT32_MIN after
    INT32_MAX needs 33 bits. Their low 32 bits give the values all the same."""
    rng = np.random.default_rng(7)
    values = np.concatenate(([2**31 - 1, -(2**31), 5], rng.integers(-(2**31), 2**31, 1000)))
    encoded = DeltaBinaryPacked.encode(values, Type.INT64)  # (64-bit deltas: widths up to 33)
    assert DeltaBinaryPacked.decode(encoded, Type.INT32, len(values))[0].tolist() == values.tolist()


@pytest.mark.parametrize(
    ("data", "physical_type", "count", "message"),
    [
        (bytes([0x80, 1, 4, 5, 0, 0, 70, 0, 0, 0]), Type.INT64, 5, "miniblock bit width 70 > 64 at byte 6"),
        (bytes([0x80, 1, 4, 5, 0, 0, 0, 33, 0, 0]), Type.INT32, 40, "header declares 5 values, expected 40 at byte 3"),
        (bytes([0x80, 1, 1, 50, 0, 0, 65]), Type.INT32, 50, "miniblock bit width 65 > 64 at byte 6"),
        (bytes([100, 1, 1, 0]), Type.INT64, 1, "block size 100 is not a positive multiple of 8 below 2\\*\\*31 at byte 0"),
        (bytes([0, 1, 1, 0]), Type.INT64, 1, "block size 0 .*"),
        (bytes([0x80, 1, 3, 1, 0]), Type.INT64, 1, "3 miniblocks do not split a block of 128 values .*"),
        (bytes([0x80, 0x80, 0x80, 0x80, 0x08, 1, 1, 0]), Type.INT64, 1, "block size 2147483648 .*"),
        (b"\xff" * 11, Type.INT64, 1, "block size longer than 10 bytes at byte 0"),
        (bytes([8, 1, 9, 0, 0, 8, 1, 2]), Type.INT64, 9, "data ends inside block 0 of 1 at byte 5"),
        (bytes([8, 1, 9, 0]), Type.INT64, 9, "data ends inside block 0 of 1 at byte 4"),
        (bytes([8, 1, 2, 0, 0x80]), Type.INT64, 2, "data ends inside block 0 of 1 at byte 5"),
        (bytes([8, 1, 2, 0] + [0xFF] * 9 + [0x7F]), Type.INT64, 2, "min delta .* exceeds 64 bits at byte 4"),
    ],
)
def test_malformed(data, physical_type, count, message):
    with pytest.raises(DecodingError, match=f"^DELTA_BINARY_PACKED: {message}$"):
        DeltaBinaryPacked.decode(data, physical_type, count)


def test_unsupported_type():
    with pytest.raises(DecodingError, match="DOUBLE is not supported"):
        DeltaBinaryPacked.decode(SPEC_EXAMPLE_1, Type.DOUBLE, 5)


def test_encoder_validates_block_shape_and_range():
    with pytest.raises(ValueError):
        DeltaBinaryPacked.encode([1, 2], Type.INT64, block_size=100)
    with pytest.raises(ValueError):
        DeltaBinaryPacked.encode([1, 2], Type.INT64, block_size=128, miniblocks=32)
    with pytest.raises(ValueError):
        DeltaBinaryPacked.encode([2**31], Type.INT32)


BYTE_LISTS = st.lists(st.binary(max_size=12), max_size=40)


@given(BYTE_LISTS, BLOCK_SHAPES)
def test_delta_length_round_trip(values, shape):
    encoded = DeltaLengthByteArray.encode(values, block_size=shape[0], miniblocks=shape[1])
    decoded, consumed = DeltaLengthByteArray.decode(encoded + b"!", len(values))
    assert decoded.to_pylist() == values and consumed == len(encoded)


def test_delta_length_malformed():
    negative = DeltaBinaryPacked.encode([3, -1], Type.INT32) + b"abc"
    with pytest.raises(DecodingError, match="DELTA_LENGTH_BYTE_ARRAY: negative length -1 \\(value 1\\) at byte 0"):
        DeltaLengthByteArray.decode(negative, 2)
    short = DeltaBinaryPacked.encode([3, 4], Type.INT32)
    with pytest.raises(DecodingError, match="lengths add up to 7 bytes, only 5 left"):
        DeltaLengthByteArray.decode(short + b"abcde", 2)


@st.composite
def front_coded(draw):
    """Strings over a tiny alphabet, often sorted, so prefixes chain deeply."""
    alphabet = draw(st.sampled_from([b"a", b"ab", b"abc"]))
    words = draw(st.lists(st.lists(st.sampled_from(list(alphabet)), max_size=14).map(bytes), max_size=50))
    return sorted(words) if draw(st.booleans()) else words


@settings(max_examples=150)
@given(front_coded(), BLOCK_SHAPES)
def test_delta_byte_array_round_trip(values, shape):
    encoded = DeltaByteArray.encode(values, block_size=shape[0], miniblocks=shape[1])
    decoded, consumed = DeltaByteArray.decode(b"\x00" + encoded, Type.BYTE_ARRAY, len(values), offset=1)
    assert decoded.to_pylist() == values and consumed == len(encoded)


def test_delta_byte_array_long_and_empty_strings():
    big = bytes(np.random.default_rng(1).integers(0, 256, 100_000, dtype=np.uint8))
    values = [b"", big, big, big[:50_000] + b"x", b"", big + b"tail", big + b"tail"]
    decoded, _ = DeltaByteArray.decode(DeltaByteArray.encode(values), Type.BYTE_ARRAY, len(values))
    assert decoded.to_pylist() == values


def test_delta_byte_array_fixed_len():
    rows = np.array([[1, 2, 3], [1, 2, 4], [9, 9, 9]], dtype=np.uint8)
    encoded = DeltaByteArray.encode(rows, Type.FIXED_LEN_BYTE_ARRAY, type_length=3)
    decoded, consumed = DeltaByteArray.decode(encoded, Type.FIXED_LEN_BYTE_ARRAY, 3, type_length=3)
    assert decoded.shape == (3, 3) and np.array_equal(decoded, rows) and consumed == len(encoded)
    with pytest.raises(DecodingError, match="value 0 is not 2 bytes long"):
        DeltaByteArray.decode(encoded, Type.FIXED_LEN_BYTE_ARRAY, 3, type_length=2)


def front_payload(prefixes, suffixes):
    return DeltaBinaryPacked.encode(prefixes, Type.INT32) + DeltaLengthByteArray.encode(suffixes)


@pytest.mark.parametrize(
    ("prefixes", "suffixes", "message"),
    [
        ([0, 5], [b"ab", b"c"], "prefix length 5 of value 1 exceeds the previous value's 2 bytes at byte 0"),
        ([1, 0], [b"ab", b"c"], "prefix length 1 of value 0 exceeds the previous value's 0 bytes"),
        ([0, -1], [b"ab", b"c"], "prefix length -1 of value 1"),
    ],
)
def test_delta_byte_array_bad_prefixes(prefixes, suffixes, message):
    with pytest.raises(DecodingError, match=f"^DELTA_BYTE_ARRAY: {message}"):
        DeltaByteArray.decode(front_payload(prefixes, suffixes), Type.BYTE_ARRAY, 2)


def test_delta_byte_array_output_limit():
    payload = front_payload([0] + [1000] * 99, [b"x" * 1000] + [b""] * 99)
    assert len(DeltaByteArray.decode(payload, Type.BYTE_ARRAY, 100)[0].data) == 100_000
    with pytest.raises(ResourceLimitError):
        DeltaByteArray.decode(payload, Type.BYTE_ARRAY, 100, max_output_bytes=99_999)


def test_delta_byte_array_unsupported_type():
    with pytest.raises(DecodingError):
        DeltaByteArray.decode(SPEC_DBA, Type.INT32, 4)


@given(st.lists(st.integers(0, 6), max_size=60))
def test_previous_smaller_matches_brute_force(values):
    arr = np.array(values, dtype=np.int64)
    expected = [max((m for m in range(i) if values[m] < values[i]), default=-1) for i in range(len(values))]
    assert delta._previous_smaller(arr, np.arange(len(values))).tolist() == expected


def test_by_value_helpers_accept_byte_arrays():
    ba = ByteArrays.from_pylist([b"ab", b"abc"])
    assert DeltaByteArray.encode(ba) == DeltaByteArray.encode([b"ab", b"abc"])


def test_values_each_one_byte_longer_than_the_last_take_scratch_bounded_by_the_run_size(monkeypatch):
    """n values each extending the one before by a byte are n**2 / 2 one-byte
    slices: they are rebuilt a run of values at a time, so the scratch stays
    about the run's, not 40 bytes per byte of output."""
    import tracemalloc

    n = 2000
    values = [bytes(range(97, 123)) * (n // 26 + 1)]
    values = [values[0][: i + 1] for i in range(n)]
    payload = front_payload(list(range(n)), [v[-1:] for v in values])
    monkeypatch.setattr(delta, "_MAX_SLICES", 1 << 16, raising=False)
    tracemalloc.start()
    decoded, _ = DeltaByteArray.decode(payload, Type.BYTE_ARRAY, n)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert decoded.to_pylist() == values
    assert peak < 4 * sum(map(len, values)) + 64 * (1 << 16)


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(0, 8), st.binary(max_size=3)), min_size=1, max_size=40),
       st.sampled_from([1, 2, 5, 1 << 22]))
def test_values_rebuilt_run_by_run_equal_those_rebuilt_at_once(cuts, run_slices):
    prefixes, suffixes, values, last = [], [], [], b""
    for cut, suffix in cuts:
        prefix = min(cut, len(last)) if values else 0
        prefixes.append(prefix)
        suffixes.append(suffix)
        last = last[:prefix] + suffix
        values.append(last)
    old, delta._MAX_SLICES = delta._MAX_SLICES, run_slices
    try:
        decoded, _ = DeltaByteArray.decode(front_payload(prefixes, suffixes), Type.BYTE_ARRAY, len(values))
    finally:
        delta._MAX_SLICES = old
    assert decoded.to_pylist() == values
