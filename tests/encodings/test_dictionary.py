"""Dictionary indices (spec, Encodings, "Dictionary Encoding")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_codec.encodings.byte_arrays import ByteArrays, ByteArraysBuilder
from parquet_codec.encodings.dictionary import (
    IndexPages,
    decode_indices,
    encode_indices,
    gather,
    gather_append,
    index_bit_width,
)
from parquet_codec.encodings.plain import decode_plain, encode_plain
from parquet_codec.errors import DecodingError, ResourceLimitError
from parquet_codec.format.ttypes import Type
from parquet_codec.limits import memory_budget


def test_known_bytes():
    # Bit width 2, then one bit-packed group holding 0, 1, 2, 0 (+ zero padding).
    encoded = encode_indices([0, 1, 2, 0], 3)
    assert encoded == bytes([2, 0x03, 0b00100100, 0])
    indices, consumed = decode_indices(b"??" + encoded, 4, offset=2)
    assert indices.dtype == np.int32 and indices.tolist() == [0, 1, 2, 0] and consumed == 4


def test_bit_width_zero_single_entry_dictionary():
    encoded = encode_indices([0] * 9, 1)
    assert encoded == bytes([0, 18])  # width 0, RLE run of 9 values with a 0-byte value
    assert decode_indices(encoded, 9)[0].tolist() == [0] * 9


@settings(max_examples=50)
@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n - 1), max_size=60))))
def test_round_trip(case):
    size, indices = case
    encoded = encode_indices(indices, size)
    assert encoded[0] == index_bit_width(size)
    decoded, consumed = decode_indices(encoded, len(indices))
    assert decoded.tolist() == indices and consumed == len(encoded)


def test_empty():
    indices, consumed = decode_indices(b"", 0)
    assert indices.size == 0 and consumed == 0


def test_width_above_32_is_rejected():
    with pytest.raises(DecodingError, match="RLE_DICTIONARY: index bit width 33 > 32 at byte 1"):
        decode_indices(b"\x00\x21\x02\x00", 1, offset=1)


def test_missing_width_byte():
    with pytest.raises(DecodingError, match="bit width byte missing at byte 0"):
        decode_indices(b"", 1)


def test_gather_numbers_rows_and_byte_arrays():
    indices = np.array([2, 0, 2], dtype=np.int32)
    assert gather(np.array([1.5, 2.5, 3.5]), indices).tolist() == [3.5, 1.5, 3.5]
    rows = np.arange(6, dtype=np.uint8).reshape(3, 2)
    assert gather(rows, indices).tolist() == [[4, 5], [0, 1], [4, 5]]
    strings = ByteArrays.from_pylist([b"a", b"", b"ccc"])
    assert gather(strings, indices).to_pylist() == [b"ccc", b"a", b"ccc"]


@pytest.mark.parametrize("bad", [3, -1, 2**31 - 1])
def test_gather_rejects_out_of_range(bad):
    with pytest.raises(DecodingError, match=rf"index {bad} out of range for a dictionary of 3 values \(value 1\)"):
        gather(np.array([1, 2, 3]), np.array([0, bad, 1], dtype=np.int32))


def test_gather_append_checks_and_reserves():
    strings = ByteArrays.from_pylist([b"a", b"", b"ccc"])
    builder = ByteArraysBuilder()
    gather_append(builder, strings, np.array([2, 0], dtype=np.int32))
    with pytest.raises(DecodingError, match=r"index 3 out of range for a dictionary of 3 values \(value 1\)"):
        gather_append(builder, strings, np.array([0, 3], dtype=np.int32))
    with memory_budget(100), pytest.raises(ResourceLimitError):
        gather_append(builder, strings, np.full(20, 2, dtype=np.int32))
    assert builder.finish().to_pylist() == [b"ccc", b"a"]


def test_index_above_2_31_decodes_negative_and_is_rejected():
    indices, _ = decode_indices(bytes([32, 2]) + (2**32 - 1).to_bytes(4, "little"), 1)
    with pytest.raises(DecodingError):
        gather(np.array([1]), indices)


def test_empty_dictionary():
    assert gather(np.zeros(0), np.zeros(0, dtype=np.int32)).size == 0
    with pytest.raises(DecodingError):
        gather(np.zeros(0), np.zeros(1, dtype=np.int32))


def test_dictionary_page_is_plain():
    page = encode_plain([b"x", b"yz"], Type.BYTE_ARRAY)
    dictionary, _ = decode_plain(page, Type.BYTE_ARRAY, 2)
    indices, _ = decode_indices(encode_indices([1, 1, 0], 2), 3)
    assert gather(dictionary, indices).to_pylist() == [b"yz", b"yz", b"x"]


def test_encode_rejects_out_of_range():
    with pytest.raises(ValueError):
        encode_indices([3], 3)


# --- index pages decoded together ---------------------------------------------

def _held(pages: list[tuple[bytes, int]], gaps: dict[int, int] | None = None) -> tuple[IndexPages, int]:
    held, start = IndexPages(), 0
    for i, (data, count) in enumerate(pages):
        start += (gaps or {}).get(i, 0)
        held.add(data, count, start, {"page": i})
        start += count
    return held, start


def test_index_pages_fill_their_slots_across_widths_and_gaps():
    rng = np.random.default_rng(3)
    dictionary = rng.standard_normal(300)
    pages, values = [], []
    for size in (300, 300, 300, 100, 100, 300, 0, 300):  # width 9, 9, 9, 7, 7, 9, (none), 9
        count = int(rng.integers(1, 3000)) if size else 0
        idx = rng.integers(0, max(size, 1), count)
        pages.append((encode_indices(idx, max(size, 1)), count))
        values.append(dictionary[idx])
    # Page 5's slots do not follow page 4's: another page's values lie between.
    held, total = _held(pages, {5: 10})
    out = np.full(total, -1.0)
    held.gather_into(dictionary, out)
    gap = sum(len(v) for v in values[:5])
    np.testing.assert_array_equal(out[:gap], np.concatenate(values[:5]))
    np.testing.assert_array_equal(out[gap : gap + 10], -1.0)
    np.testing.assert_array_equal(out[gap + 10 :], np.concatenate(values[5:]))
    assert held.count == 0 and not held.pages


def test_index_pages_name_the_page_of_a_bad_index():
    pages = [(encode_indices(np.arange(200) % 50, 50), 200) for _ in range(4)]
    pages[2] = (encode_indices(np.arange(200) % 64, 64), 200)  # same width (6 bits), indices up to 63
    held, total = _held(pages)
    with pytest.raises(DecodingError, match="out of range") as err:
        held.gather_into(np.arange(50.0), np.zeros(total))
    assert err.value.context["page"] == 2
    pages[3] = (pages[3][0][:10], 200)  # truncated
    held, total = _held(pages[:2] + pages[3:])
    with pytest.raises(DecodingError) as err:
        held.gather_into(np.arange(50.0), np.zeros(total))
    assert err.value.context["page"] == 2
