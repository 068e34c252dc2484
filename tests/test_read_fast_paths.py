"""The read path's fast paths agree with the general ones they shortcut.

Each fast path (values decoded in place, lock-step BYTE_ARRAY walkers, level
streams of many pages decoded at once, whole-column buffers over row groups)
is compared with the general path on random data, and fed malformed input,
where it must either decline (and let the general path report) or raise a
ParquetError.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec import column, page
from parquet_codec.encodings import RleBitPackedHybrid, decode_plain, gather
from parquet_codec.encodings.dictionary import gather_into
from parquet_codec.encodings.plain import _scan_starts, decode_plain_into, encode_plain, plain_dtype
from parquet_codec.encodings.prefix_walk import short_value_starts, walk_starts
from parquet_codec.encodings.rle_batch import decode_streams
from parquet_codec.encodings.varint import encode_uleb128
from parquet_codec.errors import DecodingError, ParquetError
from parquet_codec.format.ttypes import Type

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

ONE_D = [Type.BOOLEAN, Type.INT32, Type.INT64, Type.FLOAT, Type.DOUBLE]


def _random_values(rng: np.random.Generator, physical: int, n: int) -> np.ndarray:
    if physical == Type.BOOLEAN:
        return rng.random(n) < 0.5
    if physical in (Type.FLOAT, Type.DOUBLE):
        return rng.standard_normal(n).astype(plain_dtype(physical))
    return rng.integers(-(2**31), 2**31, n).astype(plain_dtype(physical))


@pytest.mark.parametrize("physical", ONE_D)
@pytest.mark.parametrize("n", [0, 1, 7, 8, 1000])
def test_decode_plain_into_agrees_with_decode_plain(physical, n):
    rng = np.random.default_rng(n)
    data = b"xyz" + encode_plain(_random_values(rng, physical, n), physical)
    expected, used = decode_plain(data, physical, n, offset=3)
    out = np.full(n, 1, dtype=plain_dtype(physical))
    assert decode_plain_into(data, physical, out, offset=3) == used
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("physical", ONE_D)
def test_decode_plain_into_rejects_short_data(physical):
    data = encode_plain(_random_values(np.random.default_rng(0), physical, 100), physical)
    with pytest.raises(DecodingError):
        decode_plain_into(data[: len(data) // 2], physical, np.empty(100, dtype=plain_dtype(physical)))


def test_gather_into_agrees_with_gather_and_checks_indices():
    rng = np.random.default_rng(1)
    dictionary = rng.standard_normal(50)
    indices = rng.integers(0, 50, 10_000).astype(np.int32)
    out = np.empty(len(indices))
    gather_into(dictionary, indices, out)
    np.testing.assert_array_equal(out, gather(dictionary, indices))
    for bad in (50, -1):
        indices[123] = bad
        with pytest.raises(DecodingError, match="out of range"):
            gather_into(dictionary, indices, out)


# --- PLAIN BYTE_ARRAY: lock-step walkers ------------------------------------

def _byte_array_shapes(rng: np.random.Generator) -> dict[str, list[bytes]]:
    n = 5000
    return {
        "digits": [str(v).encode() for v in rng.integers(0, 2**63, n)],
        "words with empties": [b"w" * int(k) for k in rng.integers(0, 40, n)],
        "random bytes": [rng.bytes(int(k)) for k in rng.integers(0, 30, n)],
        "zero bytes": [bytes(int(k)) for k in rng.integers(0, 30, n)],
        "mostly empty": [b"" if k else b"abc" for k in rng.random(n) < 0.9],
        "a few long ones": [rng.bytes(int(k)) for k in rng.integers(0, 20, n // 5)] + [rng.bytes(3000)] * 3,
        "tiny page": [b"ab", b"", b"cde"] * 40,
    }


def _plain_stream(values: list[bytes]) -> bytes:
    return b"".join(len(v).to_bytes(4, "little") + v for v in values)


@pytest.mark.parametrize("seed", range(3))
def test_walkers_find_the_loop_starts_or_decline(seed):
    rng = np.random.default_rng(seed)
    for name, values in _byte_array_shapes(rng).items():
        data = b"\x07" * 5 + _plain_stream(values)
        arr = np.frombuffer(data, dtype=np.uint8)
        expected = _scan_starts(memoryview(data), len(values), 5)
        got = walk_starts(arr, len(values), 5)
        if got is not None:
            np.testing.assert_array_equal(got[0], expected[0], err_msg=name)
            assert got[1] == expected[1] == len(data)
        decoded, used = decode_plain(data, Type.BYTE_ARRAY, len(values), offset=5)
        assert decoded.to_pylist() == values and used == len(data) - 5, name


def test_walkers_serve_short_strings():
    values = [str(v).encode() for v in np.random.default_rng(7).integers(0, 2**63, 20_000)]
    data = _plain_stream(values)
    assert walk_starts(np.frombuffer(data, dtype=np.uint8), len(values), 0) is not None


def test_walkers_decline_malformed_streams_and_the_loop_reports_them():
    rng = np.random.default_rng(3)
    values = [str(v).encode() for v in rng.integers(0, 2**63, 3000)]
    data = _plain_stream(values)
    arr = np.frombuffer(data, dtype=np.uint8)
    for bad in (data[:-5], data + b"trailing", data[: len(data) // 2]):
        assert walk_starts(np.frombuffer(bad, dtype=np.uint8), len(values), 0) is None
    corrupt = bytearray(data)
    prefix_at = sum(4 + len(v) for v in values[:1500])  # value 1500 claims 2 GiB
    corrupt[prefix_at : prefix_at + 4] = b"\xff\xff\xff\x7f"
    for buffer in (data[:-5], bytes(corrupt)):
        with pytest.raises(DecodingError):
            decode_plain(buffer, Type.BYTE_ARRAY, len(values))
    for _ in range(200):  # random corruption: proven answers only, else the loop decides
        noisy = bytearray(data)
        noisy[int(rng.integers(len(noisy)))] ^= 1 << int(rng.integers(8))
        got = walk_starts(np.frombuffer(bytes(noisy), dtype=np.uint8), len(values), 0)
        if got is not None:
            expected = _scan_starts(memoryview(bytes(noisy)), len(values), 0)
            np.testing.assert_array_equal(got[0], expected[0])
    assert walk_starts(arr, len(values) + 1, 0) is None


def test_short_value_starts_proves_or_declines():
    rng = np.random.default_rng(3)
    values = [bytes(rng.integers(1, 256, int(n), dtype=np.uint8)) for n in rng.integers(1, 255, 3000)]
    data = encode_plain(values, Type.BYTE_ARRAY)
    arr = np.frombuffer(b"ab" + data, dtype=np.uint8)
    got = short_value_starts(arr, len(values), 2)
    assert got is not None
    expected = _scan_starts(memoryview(arr), len(values), 2)
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1] == expected[1] == len(arr)
    declined = [
        values[:10] + [b""] + values[10:],  # an empty value: four zero bytes in a row
        values[:10] + [b"x" * 300] + values[10:],  # a length needing two bytes
        values[:10] + [b"a\0\0\0b"] + values[10:],  # three zeros inside a value
    ]
    for case in declined:
        raw = np.frombuffer(encode_plain(case, Type.BYTE_ARRAY), dtype=np.uint8)
        assert short_value_starts(raw, len(case), 0) is None
        assert decode_plain(raw, Type.BYTE_ARRAY, len(case))[0].to_pylist() == case
    for at in range(8):  # an empty value's extra place may share a word with its prefix: proven, or declined
        case = values[:at] + [b""] + values[at:40]
        raw = np.frombuffer(encode_plain(case, Type.BYTE_ARRAY), dtype=np.uint8)
        got = short_value_starts(raw, len(case), 0)
        assert got is None or np.array_equal(got[0], _scan_starts(memoryview(raw), len(case), 0)[0])
    assert short_value_starts(arr, len(values) - 1, 2) is None
    assert short_value_starts(arr[:-1], len(values), 2) is None
    for _ in range(200):  # random corruption: proven answers only
        noisy = np.frombuffer(data, dtype=np.uint8).copy()
        noisy[int(rng.integers(len(noisy)))] ^= np.uint8(1 << int(rng.integers(8)))
        got = short_value_starts(noisy, len(values), 0)
        if got is not None:
            np.testing.assert_array_equal(got[0], _scan_starts(memoryview(noisy), len(values), 0)[0])


# --- level streams of many pages at once -------------------------------------

def _level_values(rng: np.random.Generator, width: int, n: int) -> np.ndarray:
    values = rng.integers(0, 1 << width, n, dtype=np.uint64)
    repeat = rng.random(n) < rng.random()  # from mostly literal to mostly runs
    for i in np.flatnonzero(repeat)[1:]:
        values[i] = values[i - 1]
    return values


@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 13, 32])
def test_decode_streams_agrees_with_stream_by_stream(width):
    rng = np.random.default_rng(width)
    parts = [_level_values(rng, width, int(n)) for n in rng.integers(1, 3000, 12)]
    streams = [RleBitPackedHybrid.encode(p, width) for p in parts]
    bounds = np.concatenate(([0], np.cumsum([len(s) for s in streams])))
    counts = np.array([len(p) for p in parts])
    got = decode_streams(np.frombuffer(b"".join(streams), dtype=np.uint8), bounds, counts, width)
    assert got is not None
    np.testing.assert_array_equal(got, np.concatenate(parts))


def _random_tiling_stream(rng: np.random.Generator, width: int) -> tuple[bytes, int]:
    """A hybrid stream of 1, 2, 4 or 8 bits per value as other writers lay it
    out: RLE runs of any length (so bit-packed runs start at any bit), runs of
    up to 70 groups (two-byte headers), long runs (three-byte headers), and a
    last bit-packed run that covers more values than the stream holds."""
    out, count = bytearray(), 0
    for _ in range(int(rng.integers(1, 40))):
        if rng.random() < 0.5:
            length = int(rng.choice([rng.integers(1, 70), rng.integers(70, 20000)]))
            out += encode_uleb128(length << 1) + bytes([int(rng.integers(1 << width))])
            count += length
        else:
            groups = int(rng.integers(1, 70))
            out += encode_uleb128(groups << 1 | 1) + rng.integers(0, 256, groups * width, dtype=np.uint8).tobytes()
            count += 8 * groups
    if out[0] & 1 or rng.random() < 0.5:
        groups = int(rng.integers(1, 5))
        out += encode_uleb128(groups << 1 | 1) + rng.integers(0, 256, groups * width, dtype=np.uint8).tobytes()
        count += 8 * groups - int(rng.integers(0, 8))
    return bytes(out), count


@pytest.mark.parametrize("width", [1, 2, 4, 8])
def test_decode_streams_tiling_widths_match_stream_by_stream(width):
    rng = np.random.default_rng(11 + width)
    for _ in range(40):
        streams, counts = zip(*(_random_tiling_stream(rng, width) for _ in range(int(rng.integers(1, 9)))),
                              strict=True)
        data = np.frombuffer(b"".join(streams), dtype=np.uint8)
        bounds = np.concatenate(([0], np.cumsum([len(s) for s in streams])))
        expected = np.concatenate([RleBitPackedHybrid.decode(s, width, c)[0]
                                   for s, c in zip(streams, counts, strict=True)])
        got = decode_streams(data, bounds, np.array(counts), width, np.int16)
        assert got is not None and got.dtype == np.int16
        np.testing.assert_array_equal(got, expected)
        noisy = data.copy()
        noisy[int(rng.integers(len(noisy)))] ^= np.uint8(1 << int(rng.integers(8)))
        got = decode_streams(noisy, bounds, np.array(counts), width)
        if got is not None:
            one_by_one = [RleBitPackedHybrid.decode(noisy[a:b], width, c)[0]
                          for a, b, c in zip(bounds[:-1], bounds[1:], counts, strict=True)]
            np.testing.assert_array_equal(got, np.concatenate(one_by_one))


def test_decode_streams_declines_irregular_or_corrupt_streams():
    rng = np.random.default_rng(5)
    parts = [_level_values(rng, 2, 500) for _ in range(6)]
    streams = [RleBitPackedHybrid.encode(p, 2) for p in parts]
    data = np.frombuffer(b"".join(streams), dtype=np.uint8)
    bounds = np.concatenate(([0], np.cumsum([len(s) for s in streams])))
    counts = np.full(6, 500)
    assert decode_streams(data, bounds, counts + 100, 2) is None  # streams too short
    assert decode_streams(data, bounds, counts - 100, 2) is None  # runs after the last value
    assert decode_streams(data, bounds, counts, 0) is None
    for raw in (b"\x01", b"\x01\x01\x01", b"\xff" * 6 + b"\x01", b"\x00\x01", b"\x02\x05"):  # must end, and decline
        tiny = np.frombuffer(raw, dtype=np.uint8)
        assert decode_streams(tiny, np.array([0, len(tiny)]), np.array([3]), 1) is None
    for _ in range(300):
        noisy = data.copy()
        noisy[int(rng.integers(len(noisy)))] ^= np.uint8(1 << int(rng.integers(8)))
        got = decode_streams(noisy, bounds, counts, 2)
        if got is None:
            continue
        one_by_one = [RleBitPackedHybrid.decode(noisy[a:b], 2, 500)[0]
                      for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        np.testing.assert_array_equal(got, np.concatenate(one_by_one))


# --- whole chunks and files --------------------------------------------------

def _table(rng: np.random.Generator, n: int, nulls: float) -> object:
    def mask() -> np.ndarray | None:
        return rng.random(n) < nulls if nulls else None

    words = np.array([f"w{i}" * (i % 5) for i in range(300)], dtype=object)
    return pa.table({
        "i64": pa.array(rng.integers(-(2**62), 2**62, n), mask=mask()),
        "i32": pa.array(rng.integers(0, 50, n, dtype=np.int32), mask=mask()),
        "f32": pa.array(rng.standard_normal(n).astype(np.float32), mask=mask()),
        "f64": pa.array(rng.standard_normal(n), mask=mask()),
        "b": pa.array(rng.random(n) < 0.3, mask=mask()),
        "s": pa.array(words[rng.integers(0, 300, n)].tolist(), mask=mask()),
        "u": pa.array([str(v) for v in rng.integers(0, 2**62, n)], mask=mask()),
        "l": pa.array([list(range(int(k))) if k < 4 else None for k in rng.integers(0, 5, n)]),
    })


OPTIONS = {
    "v1 small pages snappy": dict(data_page_size=4096, compression="snappy", row_group_size=3000),
    "v2 small pages zstd": dict(data_page_size=2048, data_page_version="2.0", compression="zstd",
                                row_group_size=2500),
    "v1 plain none": dict(use_dictionary=False, compression="none", data_page_size=8192, row_group_size=4000),
    "v2 plain gzip": dict(use_dictionary=False, data_page_version="2.0", compression="gzip", row_group_size=7000),
    "rows per page": dict(max_rows_per_page=100, compression="lz4", row_group_size=5000),
}


@pytest.mark.parametrize("nulls", [0.0, 0.1, 0.97])
@pytest.mark.parametrize("options", list(OPTIONS.values()), ids=list(OPTIONS))
def test_small_pages_and_row_groups_read_like_pyarrow(options, nulls):
    table = _table(np.random.default_rng(int(nulls * 100)), 12_000, nulls)
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    data = sink.getvalue()
    got = pc.read_table(data)
    assert got.to_pylist() == pq.read_table(io.BytesIO(data)).to_pylist()
    groups = pc.ParquetFile(data)
    for name in ("i64", "f32", "b"):  # one array over all row groups, as row group by row group
        whole = got.column(name).array
        parts = [groups.read_row_group(i).column(name).array for i in range(groups.num_row_groups)]
        np.testing.assert_array_equal(whole.values, np.concatenate([p.values for p in parts]))
        np.testing.assert_array_equal(whole.is_valid(), np.concatenate([p.is_valid() for p in parts]))


def test_required_columns_decode_in_place_across_row_groups():
    rng = np.random.default_rng(9)
    table = pa.table({"x": rng.integers(0, 2**40, 10_000), "y": rng.standard_normal(10_000)},
                     schema=pa.schema([pa.field("x", pa.int64(), False), pa.field("y", pa.float64(), False)]))
    for version in ("1.0", "2.0"):
        for compression in ("none", "snappy", "brotli"):
            sink = io.BytesIO()
            pq.write_table(table, sink, row_group_size=3000, data_page_size=2048, use_dictionary=["x"],
                           data_page_version=version, compression=compression)
            got = pc.read_table(sink.getvalue())
            np.testing.assert_array_equal(got.column("x").array.values, table["x"].to_numpy())
            np.testing.assert_array_equal(got.column("y").array.values, table["y"].to_numpy())
            assert got.column("x").array.validity is None


def _one_column_file(**options: object) -> bytes:
    sink = io.BytesIO()
    table = pa.table({"x": pa.array(np.arange(1000, dtype=np.int64), mask=np.arange(1000) % 7 == 0)})
    pq.write_table(table, sink, **options)
    return sink.getvalue()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_split_pages_agree_with_read_data_page(version):
    data = _one_column_file(data_page_version=version, max_rows_per_page=100, compression="snappy")
    pf = pc.ParquetFile(data)
    meta = pf.metadata.row_group(0).columns[0].meta_data
    start, length = column.chunk_range(meta, len(data))
    for raw in page.iter_pages(memoryview(data)[start : start + length], start, meta.num_values):
        if raw.type not in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
            continue
        whole = page.read_data_page(raw, meta.codec, 0, 1)
        split = page.split_data_page(raw, meta.codec, 0, 1)
        assert split.rep is None and split.num_values == whole.num_values
        np.testing.assert_array_equal(RleBitPackedHybrid.decode(split.defs, 1, split.num_values)[0],
                                      whole.def_levels)
        assert bytes(split.values) == bytes(whole.values)


def test_corrupt_levels_in_a_batch_name_their_page():
    data = bytearray(_one_column_file(max_rows_per_page=100, compression="none", use_dictionary=False))
    meta = pc.ParquetFile(bytes(data)).metadata.row_group(0).columns[0].meta_data
    start, length = column.chunk_range(meta, len(data))
    view = memoryview(bytes(data))
    victim = list(page.iter_pages(view[start : start + length], start, meta.num_values))[3]
    body_at = victim.offset + page.read_page_header(view, victim.offset)[1]
    # The definition levels shrink to one byte: a bit-packed run header whose data is missing.
    data[body_at : body_at + 5] = b"\x01\x00\x00\x00\x03"
    with pytest.raises(DecodingError, match="bit-packed run") as info:
        pc.read_table(bytes(data))
    assert info.value.context.get("page") == victim.ordinal


def _fallback_table(rng: np.random.Generator, n: int, nulls: float, nullable: bool = True) -> object:
    values = [str(v) * int(k) for v, k in zip(rng.integers(0, 2**62, n), rng.integers(0, 3, n), strict=True)]
    mask = rng.random(n) < nulls if nulls else None
    return pa.table({"s": pa.array(values, mask=mask)}, schema=pa.schema([pa.field("s", pa.string(), nullable)]))


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("nulls", [0.0, 0.2])
def test_dictionary_pages_then_plain_fallback_read_like_pyarrow(version, nulls):
    # The dictionary fills up after a few pages; the rest of the chunk is PLAIN.
    sink = io.BytesIO()
    pq.write_table(_fallback_table(np.random.default_rng(7), 20_000, nulls), sink, data_page_version=version,
                   dictionary_pagesize_limit=4096, data_page_size=2048, compression="snappy")
    data = sink.getvalue()
    assert {"PLAIN", "RLE_DICTIONARY"} <= set(pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).encodings)
    assert pc.read_table(data).to_pylist() == pq.read_table(io.BytesIO(data)).to_pylist()


@pytest.mark.parametrize("last", [False, True])  # the first page that can hold a bad index, or the last
def test_bad_dictionary_index_before_a_plain_fallback_names_its_page(last):
    # Several dictionary-encoded pages (decoded together), then PLAIN ones.
    sink = io.BytesIO()
    pq.write_table(_fallback_table(np.random.default_rng(8), 5000, 0.0, nullable=False), sink,
                   dictionary_pagesize_limit=20_000, data_page_size=512, write_batch_size=128, compression="none")
    data = bytearray(sink.getvalue())
    meta = pc.ParquetFile(bytes(data)).metadata.row_group(0).columns[0].meta_data
    start, length = column.chunk_range(meta, len(data))
    view = memoryview(bytes(data))
    pages = list(page.iter_pages(view[start : start + length], start, meta.num_values))
    size = pages[0].header.dictionary_page_header.num_values

    def width(raw: page.RawPage) -> int:
        return data[raw.offset + page.read_page_header(view, raw.offset)[1]]

    # Pages whose bit width can express an index past the dictionary's end.
    able = [p for p in pages[1:] if p.header.data_page_header.encoding == 8 and (1 << width(p)) - 1 >= size]
    victim = able[-1] if last else able[0]
    assert victim.ordinal > 2  # dictionary-encoded pages come before it
    body_at = victim.offset + page.read_page_header(view, victim.offset)[1]
    # One RLE run of the largest index the bit width holds, for every value of the page.
    run = encode_uleb128(victim.header.data_page_header.num_values << 1) + ((1 << width(victim)) - 1).to_bytes(
        (width(victim) + 7) // 8, "little")
    data[body_at + 1 : body_at + 1 + len(run)] = run
    with pytest.raises(DecodingError, match="out of range for a dictionary") as info:
        pc.read_table(bytes(data))
    assert info.value.context.get("page") == victim.ordinal


def test_page_headers_decode_through_the_reused_decoder_or_fall_back():
    from parquet_codec.format.ttypes import DataPageHeader, PageHeader, Statistics
    from parquet_codec.thrift_io import WindowDecoder, serialize

    for size in (1, 100, 1000):  # beyond the first window, the general path widens it
        header = PageHeader(type=0, uncompressed_page_size=10, compressed_page_size=10, crc=-5,
                            data_page_header=DataPageHeader(num_values=3, encoding=0, definition_level_encoding=3,
                                                            repetition_level_encoding=3,
                                                            statistics=Statistics(max_value=b"x" * size)))
        raw = serialize(header)
        chunk = memoryview(b"junk" + raw + b"body")
        assert page.read_page_header(chunk, 4) == (header, len(raw))
        assert WindowDecoder().decode(PageHeader, raw) in ((header, len(raw)), None)
        assert WindowDecoder().decode(PageHeader, raw[: len(raw) // 2]) is None
    with pytest.raises(ParquetError):
        page.read_page_header(memoryview(b"\xff" * 40), 0)
    with pytest.raises(ParquetError):
        page.read_page_header(memoryview(b"abc"), 5)


def test_optional_columns_without_nulls_decode_into_the_column_and_lying_statistics_still_read(monkeypatch):
    rng = np.random.default_rng(12)
    values = rng.integers(-(2**40), 2**40, 30_000)
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": values, "b": pa.array(values.astype(np.float64), mask=np.arange(30_000) % 7 == 0)}),
                   sink, row_group_size=10_000, data_page_size=4096)
    data = sink.getvalue()
    expected = pq.read_table(io.BytesIO(data)).to_pylist()
    assert pc.read_table(data).to_pylist() == expected  # "a" is optional, its statistics say no nulls
    # Every chunk claims to hold no nulls: "b" is decoded in place, then spread out.
    monkeypatch.setattr(pc.reader, "_nulls_absent", lambda meta, leaf: leaf.max_repetition_level == 0)
    assert pc.read_table(data).to_pylist() == expected


@pytest.mark.parametrize("width", [1, 2, 4, 8])
def test_decode_streams_leaves_runs_of_no_values_to_the_page_decoder(width):
    # A run of no values (the format's runs hold at least one) before a stream's
    # last value is corrupt, as pyarrow reads it: the batch declines such
    # streams, whatever value the run names and wherever it starts, and the
    # page decoder reports it. One after the last value is never read.
    empty = bytes([0, (1 << width) - 1])  # header 0: an RLE run of 0 values
    values = np.array([1, 0, 1, 1, 0, 0, 1, 0] * 2, dtype=np.uint32) & ((1 << width) - 1)
    body = RleBitPackedHybrid.encode(values, width)
    for streams, counts in (([empty + body, body], [16, 16]), ([body, body + empty * 3 + body], [16, 32]),
                            ([empty * 2 + body], [16])):
        counts = np.array(counts)
        data = np.frombuffer(b"".join(streams), dtype=np.uint8)
        bounds = np.concatenate(([0], np.cumsum([len(s) for s in streams])))
        assert decode_streams(data, bounds, counts, width, np.uint8) is None
        with pytest.raises(DecodingError, match="run of 0 values"):
            for stream, count in zip(streams, counts, strict=True):
                RleBitPackedHybrid.decode(stream, width, int(count))
    assert RleBitPackedHybrid.decode(body + empty, width, 16)[0].tolist() == values.tolist()
