"""RLE / bit-packing hybrid and deprecated BIT_PACKED (spec, Encodings)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.encodings.rle import BitPacked, RleBitPackedHybrid
from parquet_codec.errors import DecodingError

decode, encode = RleBitPackedHybrid.decode, RleBitPackedHybrid.encode

# One bit-packed run (header 1 << 1 | 1) holding the spec's 0..7 example at width 3.
SPEC_RUN = bytes([0x03, 0b10001000, 0b11000110, 0b11111010])


def test_spec_example_as_a_bit_packed_run():
    assert encode(range(8), 3) == SPEC_RUN
    values, consumed = decode(SPEC_RUN, 3, 8)
    assert values.tolist() == list(range(8)) and consumed == 4


def test_length_prefix():
    assert encode(range(8), 3, length_prefixed=True) == b"\x04\x00\x00\x00" + SPEC_RUN
    values, consumed = decode(b"\x04\x00\x00\x00" + SPEC_RUN + b"next", 3, 8, length_prefixed=True)
    assert values.tolist() == list(range(8)) and consumed == 8


def test_rle_runs():
    # rle-header = 20 << 1, then the value 5 in ceil(3 / 8) = 1 byte.
    assert encode([5] * 20, 3) == bytes([40, 5])
    # A 12-bit value takes two little-endian bytes.
    assert encode([0xABC] * 16, 12) == bytes([32, 0xBC, 0x0A])
    assert decode(bytes([16, 0xBC, 0x0A]), 12, 8)[0].tolist() == [0xABC] * 8


def test_short_runs_stay_bit_packed():
    from parquet_codec.encodings.rle import min_rle_run

    # A run shorter than min_rle_run costs less inside a bit-packed group than as a run.
    assert min_rle_run(3) == 16 and min_rle_run(0) == 1
    encoded = encode([5] * 10, 3)
    assert encoded[0] == (2 << 1 | 1)  # two bit-packed groups
    assert decode(encoded, 3, 10)[0].tolist() == [5] * 10


def test_runs_and_literals_mixed():
    values = [5] * 20 + [1, 2, 3]
    encoded = encode(values, 3)
    # RLE run of 20, then one group of 8 holding 1, 2, 3 and zero padding.
    assert encoded == bytes([40, 5, 0x03, 0b11010001, 0, 0])
    assert decode(encoded, 3, 23)[0].tolist() == values


def test_literal_borrows_from_the_following_run():
    values = [1, 2, 3] + [7] * 20
    encoded = encode(values, 3)
    # 3 literals + 5 of the run fill a group of 8; the other 15 repeats are an RLE run.
    assert encoded[0] == 0x03 and encoded[4:] == bytes([30, 7])
    assert decode(encoded, 3, 23)[0].tolist() == values


def test_run_longer_than_2_16():
    values = np.zeros(200_000, dtype=np.uint32)
    values[70_000:] = 3
    encoded = encode(values, 2)
    assert len(encoded) == 8
    assert np.array_equal(decode(encoded, 2, len(values))[0], values)


def test_several_bit_packed_runs_are_unpacked_together():
    # Two bit-packed runs separated by an RLE run, as Arrow writes them.
    stream = SPEC_RUN + bytes([6, 2]) + SPEC_RUN
    assert decode(stream, 3, 19)[0].tolist() == list(range(8)) + [2, 2, 2] + list(range(8))


def test_decoding_stops_at_count():
    values, consumed = decode(bytes([200, 1, 4]), 3, 5)  # an RLE run of 100 values of 4
    assert values.tolist() == [4] * 5 and consumed == 3
    values, consumed = decode(SPEC_RUN + b"\xff", 3, 3)
    assert values.tolist() == [0, 1, 2] and consumed == 4


def test_last_bit_packed_run_may_lack_padding_bytes():
    values, consumed = decode(bytes([0x03, 0b10001000]), 3, 2)
    assert values.tolist() == [0, 1] and consumed == 2


def test_width_zero():
    assert encode([0] * 10, 0) == bytes([20])
    assert decode(bytes([20]), 0, 10)[0].tolist() == [0] * 10
    with pytest.raises(DecodingError, match="data ends with 4 of 4 values missing"):
        decode(b"", 0, 4)  # zeros are values too: a stream must hold them (as pyarrow reads it)


@pytest.mark.parametrize("data, width", [(bytes([0, 4, 3]), 3), (bytes([1, 4, 3]), 3), (bytes([0, 0, 0]), 0),
                                         (bytes([0x80, 0x00, 4, 3]), 3)])
def test_a_run_of_no_values_is_corrupt(data, width):
    """pyarrow's decoder stops at a run of no values, and Impala's
    bad_rle_literal_count.parquet is such a corruption: the bytes after it are
    not the next header, so they are not read as one."""
    with pytest.raises(DecodingError, match="run of 0 values where 2 more are needed at byte 0"):
        decode(data, width, 2)


def test_a_run_of_no_values_after_the_last_is_not_read():
    assert decode(bytes([4, 3, 0]), 3, 2)[0].tolist() == [3, 3]


@st.composite
def runs(draw):
    width = draw(st.integers(0, 64))
    value = st.integers(0, (1 << width) - 1)
    pieces = draw(st.lists(st.tuples(value, st.integers(1, 20)), max_size=12))
    return width, [v for v, n in pieces for _ in range(n)]


@settings(max_examples=150)
@given(runs(), st.booleans())
def test_round_trip(case, length_prefixed):
    width, values = case
    encoded = encode(np.array(values, dtype=np.uint64), width, length_prefixed=length_prefixed)
    decoded, consumed = decode(encoded + b"\x00", width, len(values), length_prefixed=length_prefixed)
    assert decoded.tolist() == values
    assert consumed == len(encoded)


@pytest.mark.parametrize(
    ("data", "width", "count", "message"),
    [
        (b"", 3, 1, "RLE: data ends with 1 of 1 values missing at byte 0"),
        (bytes([20, 5]), 3, 11, "1 of 11 values missing at byte 2"),
        (bytes([20]), 3, 1, "repeated value truncated at byte 1"),
        (bytes([20, 9]), 3, 1, "repeated value 9 does not fit in 3 bits at byte 1"),
        (bytes([0x05, 0, 0]), 3, 16, "bit-packed run of 16 values needs 6 bytes, only 2 left at byte 1"),
        (b"\x09\x00\x00\x00\x14\x05", 3, 10, "length prefix 9 exceeds the 2 bytes left at byte 0"),
        (b"\x04\x00", 3, 10, "length prefix truncated"),
        (b"\xff" * 12, 3, 10, "run header longer than 10 bytes"),
        (b"", 65, 1, "bit width 65 outside 0..64"),
    ],
)
def test_malformed(data, width, count, message):
    with pytest.raises(DecodingError, match=message):
        decode(data, width, count, length_prefixed=data[:1] in (b"\x09", b"\x04"))


def test_length_prefix_bounds_the_runs():
    # The declared length ends after the run header: its value lies outside.
    with pytest.raises(DecodingError, match="repeated value truncated at byte 5"):
        decode(b"\x01\x00\x00\x00\x14\x05", 3, 10, length_prefixed=True)


def test_encode_rejects_values_that_do_not_fit():
    with pytest.raises(ValueError):
        encode([8], 3)


def test_bit_packed_spec_example():
    spec = bytes([0b00000101, 0b00111001, 0b01110111])
    assert BitPacked.encode(range(8), 3) == spec
    values, consumed = BitPacked.decode(b"x" + spec, 3, 8, offset=1)
    assert values.tolist() == list(range(8)) and consumed == 3


def test_bit_packed_level_example_size():
    # Spec: 30 values at 2 bits take 60 bits = 8 bytes.
    assert len(BitPacked.encode([3] * 30, 2)) == 8


@given(st.integers(0, 32).flatmap(lambda w: st.tuples(st.just(w), st.lists(st.integers(0, (1 << w) - 1), max_size=40))))
def test_bit_packed_round_trip(case):
    width, values = case
    encoded = BitPacked.encode(values, width)
    decoded, consumed = BitPacked.decode(encoded, width, len(values))
    assert decoded.tolist() == values and consumed == len(encoded)


def test_bit_packed_truncated():
    with pytest.raises(DecodingError, match="BIT_PACKED: 8 values of 3 bits need 3 bytes, only 2 left at byte 0"):
        BitPacked.decode(b"\x00\x00", 3, 8)


def _many_runs(seed: int, width: int, n: int) -> np.ndarray:
    """Values with short RLE runs between literals, so a stream has hundreds of runs."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 1 << width, n, dtype=np.uint64) if width < 64 else rng.integers(0, 2**63, n)
    repeat = rng.random(n) < 0.6  # long stretches of equal values become RLE runs
    for i in np.flatnonzero(repeat):
        if i:
            values[i] = values[i - 1]
    return values


@pytest.mark.parametrize("width", [1, 2, 5, 8, 13, 20, 32, 40])
def test_bulk_run_parser_agrees_with_scalar_parser(width, monkeypatch):
    from parquet_codec.encodings import rle

    values = _many_runs(width, width, 20_000)
    data = RleBitPackedHybrid.encode(values, width)
    bulk = RleBitPackedHybrid.decode(data, width, len(values))
    monkeypatch.setattr(rle, "SCALAR_RUNS", 10**9)
    scalar = RleBitPackedHybrid.decode(data, width, len(values))
    assert bulk[1] == scalar[1] == len(data)
    np.testing.assert_array_equal(bulk[0], values)
    np.testing.assert_array_equal(scalar[0], values)
    for count in (0, 1, 7, 9, 1000, 19_999):  # stopping inside a run
        np.testing.assert_array_equal(RleBitPackedHybrid.decode(data, width, count)[0], values[:count])


def test_bulk_run_parser_rejects_truncation_and_garbage():
    values = _many_runs(3, 3, 3000)
    data = RleBitPackedHybrid.encode(values, 3)
    for cut in range(0, len(data), 7):
        with pytest.raises(DecodingError):
            RleBitPackedHybrid.decode(data[:cut], 3, len(values))
    rng = np.random.default_rng(0)
    for _ in range(200):
        noisy = bytearray(data)
        noisy[rng.integers(len(noisy))] ^= 1 << int(rng.integers(8))
        try:
            out, used = RleBitPackedHybrid.decode(bytes(noisy), 3, len(values))
        except DecodingError:
            continue
        assert len(out) == len(values) and used <= len(noisy)
        assert int(out.max()) < 8


def test_varints_at_every_position():
    from parquet_codec.encodings.rle import _varints

    data = np.frombuffer(bytes([0x05, 0x81, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80]), dtype=np.uint8)
    value, length = _varints(data)
    assert (int(value[0]), int(length[0])) == (5, 1)
    assert (int(value[1]), int(length[1])) == (129, 2)
    assert int(length[3]) == 0  # more than five bytes
    assert int(length[8]) == 0  # continuation bit on the last byte of the data
    assert int(length[7]) == 0  # 0xFF 0x80: ends inside the data? no: continues past it


@pytest.mark.parametrize("width", [3, 17])
def test_runs_of_one_fixed_size_then_others(width):
    """Arrow cuts literal stretches into bit-packed runs of 64 groups (a
    two-byte header); they are read together, and whatever follows as usual."""
    from parquet_codec.encodings.bitpack import pack
    from parquet_codec.encodings.varint import encode_uleb128

    rng = np.random.default_rng(width)
    values = rng.integers(0, 1 << width, 512 * 5 + 700, dtype=np.uint64)
    values[512 * 5 : 512 * 5 + 300] = 1  # then an RLE run
    stream = b"".join(encode_uleb128(64 << 1 | 1) + pack(values[512 * k : 512 * (k + 1)], width) for k in range(5))
    stream += encode_uleb128(300 << 1) + (1).to_bytes((width + 7) // 8, "little")
    tail = values[512 * 5 + 300 :]
    stream += encode_uleb128(-(-len(tail) // 8) << 1 | 1) + pack(tail, width)
    got, used = RleBitPackedHybrid.decode(stream, width, len(values))
    np.testing.assert_array_equal(got, values)
    assert used == len(stream)
    cut = RleBitPackedHybrid.decode(stream, width, 512 * 3 + 5)[0]  # ends inside the fourth run
    np.testing.assert_array_equal(cut, values[: 512 * 3 + 5])
    broken = bytearray(stream)
    broken[2 * (2 + 64 * width)] = 0x83  # the third run's header differs: read one by one
    with pytest.raises(DecodingError):
        RleBitPackedHybrid.decode(bytes(broken), width, len(values))


def test_a_run_of_no_values_among_many_is_corrupt():
    """The bulk parser (streams of many short runs) reports it too."""
    body = bytes([2, 1, 2, 0]) * 40  # 80 runs of one value each
    data = body + bytes([0]) + bytes([2, 1]) * 4
    assert decode(body, 3, 80)[0].tolist() == [1, 0] * 40
    with pytest.raises(DecodingError, match=f"run of 0 values where 4 more are needed at byte {len(body)}"):
        decode(data, 3, 84)


@pytest.mark.parametrize("width", [0, 1, 3, 8, 11, 17, 32, 33, 64])
def test_a_few_values_are_laid_out_as_the_array_path_lays_them(width, monkeypatch):
    """Streams of up to SMALL_COUNT values (one-row pages) take a plain loop;
    it gives what the array path gives, for runs of both kinds, a last
    bit-packed run cut short and streams read past their count."""
    from parquet_codec.encodings import rle

    rng = np.random.default_rng(width)
    top = (1 << width) - 1 if width < 64 else 2**63
    cases = [np.full(5, top, dtype=np.uint64), rng.integers(0, top + 1, 64, dtype=np.uint64)]
    cases.append(np.repeat(rng.integers(0, top + 1, 4, dtype=np.uint64), [20, 3, 17, 9]))  # RLE, packed, RLE, ..
    for values in cases:
        data = RleBitPackedHybrid.encode(values, width)
        small = [RleBitPackedHybrid.decode(data, width, n) for n in (len(values), len(values) - 1, 1)]
        monkeypatch.setattr(rle, "SMALL_COUNT", -1)
        general = [RleBitPackedHybrid.decode(data, width, n) for n in (len(values), len(values) - 1, 1)]
        monkeypatch.undo()
        for (got, used), (want, want_used), n in zip(small, general, (len(values), len(values) - 1, 1), strict=True):
            assert got.dtype == want.dtype and used == want_used
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(got, values[:n] if width else np.zeros(n))
