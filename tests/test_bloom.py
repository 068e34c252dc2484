"""Split-block bloom filters against the corpus, Spark (parquet-java) and pyarrow.

Beyond finding every inserted value, our filters must be byte-identical to
the ones the other writers store for the same values and size, which pins
the hash input, block selection, salts and bit layout to the specification.
"""

from __future__ import annotations

import datetime
import decimal
import io

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_codec as pc
from parquet_codec.bloom import (
    MAX_BYTES,
    PARQUET_JAVA,
    BloomFilterBuilder,
    Sbbf,
    hash_values,
    optimal_num_bytes,
    read_bloom_filter,
    xxh64_rows,
)
from parquet_codec.column import read_column_chunk
from parquet_codec.encodings.plain import encode_plain
from parquet_codec.errors import CorruptFileError, MetadataError, SchemaError, UnsupportedError
from parquet_codec.format.ttypes import BloomFilterAlgorithm, BloomFilterHeader, Encoding, PageType, Type
from parquet_codec.io import BufferSource
from parquet_codec.reader import ParquetFile
from parquet_codec.thrift_io import serialize
from parquet_codec.types import LogicalInfo
from tests.conftest import CORPUS_DATA, FIXTURES
from tests.support.footer import with_empty_bloom_filters

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CORPUS_FILTER = CORPUS_DATA / "bloom_filter.xxhash.bin"
def _spark_files_with_bloom_column() -> list:
    """The Spark fixtures of the type matrix: they hold rows and a bloom filter option on column ``s``."""
    files = []
    for path in sorted((FIXTURES / "spark").glob("*.parquet")):
        with ParquetFile(path) as pf:
            if pf.num_row_groups and "s" in [leaf.dotted_path for leaf in pf.schema.leaves]:
                files.append(path)
    return files


SPARK_FILES = _spark_files_with_bloom_column()
needs_corpus = pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="corpus not present")
WORDS = ["hello", "parquet", "bloom", "filter"]
_DICTIONARY = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


# ---------------------------------------------------------------- the corpus filter


@needs_corpus
def test_corpus_filter_holds_its_four_strings():
    raw = CORPUS_FILTER.read_bytes()
    filt = Sbbf.from_bytes(raw, info=LogicalInfo("string", Type.BYTE_ARRAY))
    assert filt.num_bytes == 1024
    assert all(filt.might_contain(w) for w in WORDS)
    absent = [f"absent-{i}".encode() for i in range(5000)]
    assert filt.check_values(absent, Type.BYTE_ARRAY).sum() < 20  # 4 values in 8192 bits: almost never
    assert filt.to_bytes() == raw


@needs_corpus
def test_corpus_filter_rebuilt_byte_for_byte():
    ours = Sbbf(1024)
    ours.insert_values([w.encode() for w in WORDS], Type.BYTE_ARRAY)
    assert ours.to_bytes() == CORPUS_FILTER.read_bytes()


@needs_corpus
@pytest.mark.parametrize("name", ["data_index_bloom_encoding_stats.parquet",  # parquet-mr, no bloom_filter_length
                                  "data_index_bloom_encoding_with_length.parquet"])  # parquet-rs, with length
def test_corpus_files_with_bloom_filters(name):
    values = pq.read_table(CORPUS_DATA / name).column(0).to_pylist()
    with ParquetFile(CORPUS_DATA / name) as pf:
        filt = pf.bloom_filter(0, "String")
    assert all(filt.might_contain(v) for v in values)
    rebuilt = Sbbf(filt.num_bytes)
    rebuilt.insert_values([v.encode() for v in values], Type.BYTE_ARRAY)
    assert rebuilt == filt


# ---------------------------------------------------------------- Spark (parquet-java 1.17)


def _chunk_values(pf: ParquetFile, rg: int, path: str):
    leaf = pf.schema.leaf(path)
    data = read_column_chunk(pf._source, pf.metadata.row_group(rg).columns[leaf.column_index], leaf)
    return data.values


@pytest.mark.parametrize("path", SPARK_FILES, ids=lambda p: p.stem)
def test_spark_bloom_filters(path):
    """ndv=100 at the default fpp 0.01: parquet-java's sizing gives 256 bytes (Arrow's would give 128)."""
    with ParquetFile(path) as pf:
        leaf = pf.schema.leaf("s")
        for rg in range(pf.num_row_groups):
            filt = pf.bloom_filter(rg, "s")
            meta = pf.metadata.row_group(rg).columns[leaf.column_index].meta_data
            if filt is None:  # parquet-java writes none when every page is dictionary-encoded
                data_pages = [e for e in meta.encoding_stats if e.page_type != PageType.DICTIONARY_PAGE]
                assert all(e.encoding in _DICTIONARY for e in data_pages) and "dict" in path.stem
                continue
            assert meta.bloom_filter_length == len(filt.to_bytes())
            assert filt.num_bytes == optimal_num_bytes(100, 0.01, sizing=PARQUET_JAVA) == 256
            expected = pq.ParquetFile(path).read_row_group(rg, columns=["s"]).column(0).to_pylist()
            assert all(filt.might_contain(v) for v in expected if v is not None)
            ours = Sbbf(filt.num_bytes)
            ours.insert_values(_chunk_values(pf, rg, "s"), Type.BYTE_ARRAY)
            assert ours == filt
        assert pf.bloom_filter(0, "id") is None


# ---------------------------------------------------------------- pyarrow 26


def bloom_table(n: int = 4000) -> pa.Table:
    rng = np.random.default_rng(3)
    ints = rng.integers(-(10**6), 10**6, n)
    return pa.table({
        "i32": pa.array(ints.astype(np.int32)),
        "i64": pa.array(ints * 10**9),
        "f32": pa.array((ints / 7).astype(np.float32)),
        "f64": pa.array(ints / 3),
        "s": pa.array([None if i % 11 == 0 else f"value-{v}" * (1 + i % 5) for i, v in enumerate(ints)]),
        "bin": pa.array([bytes([i % 256]) * (i % 40) for i in range(n)]),
        "fixed": pa.array([int(v).to_bytes(8, "little", signed=True) for v in ints], pa.binary(8)),
        "dec": pa.array([decimal.Decimal(int(v)) / 100 for v in ints], pa.decimal128(9, 2)),
        "dec_big": pa.array([decimal.Decimal(int(v)) * 10**15 for v in ints], pa.decimal128(30, 0)),
        "day": pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=int(v) % 5000) for v in ints]),
        "ts": pa.array((ints * 1000).astype("datetime64[us]")),
    })


@pytest.fixture(scope="module")
def pyarrow_bloom_file() -> tuple[bytes, pa.Table]:
    table = bloom_table()
    options = {name: {"ndv": 3000, "fpp": 0.02} for name in table.column_names}
    buf = io.BytesIO()
    pq.write_table(table, buf, bloom_filter_options=options, row_group_size=2500)
    return buf.getvalue(), table


def test_pyarrow_filters_rebuilt_and_found(pyarrow_bloom_file):
    data, table = pyarrow_bloom_file
    with ParquetFile(data) as pf:
        start = 0
        for rg in range(pf.num_row_groups):
            rows = pf.metadata.row_group(rg).num_rows
            for leaf in pf.schema.leaves:
                filt = pf.bloom_filter(rg, leaf.dotted_path)
                assert filt is not None, leaf.dotted_path
                values = _chunk_values(pf, rg, leaf.dotted_path)
                builder = BloomFilterBuilder(leaf.physical_type, type_length=leaf.type_length, ndv=3000, fpp=0.02)
                builder.insert_values(values)
                assert builder.finish() == filt, leaf.dotted_path  # pyarrow sizes by min(ndv, distinct)
                assert filt.check_values(values, leaf.physical_type, type_length=leaf.type_length).all()
                expected = table.column(leaf.name).slice(start, rows).to_pylist()[::25]
                assert all(filt.might_contain(v) for v in expected if v is not None), leaf.dotted_path
                assert filt.might_contain_any(expected)
            start += rows


def test_pyarrow_absent_values_mostly_absent(pyarrow_bloom_file):
    data, _ = pyarrow_bloom_file
    with ParquetFile(data) as pf:
        filt = pf.bloom_filter(0, "i64")
        hits = filt.check_values(np.arange(20000) * 10**9 + 1, Type.INT64).sum()
        assert hits < 0.06 * 20000 and not filt.might_contain(1)
        filt = pf.bloom_filter(0, "s")
        assert sum(filt.might_contain(f"nope-{i}") for i in range(300)) < 0.06 * 300
        assert filt.might_contain(None)  # nulls are not recorded: cannot rule them out


# ---------------------------------------------------------------- hashing


@given(st.integers(0, 40), st.integers(0, 60), st.integers(0, 2**32 - 1))
@settings(max_examples=100, deadline=None)
def test_vectorized_xxh64_matches_the_library(length, rows, seed):
    data = np.random.default_rng(seed).integers(0, 256, (rows, length), dtype=np.uint8)
    assert xxh64_rows(data).tolist() == [xxhash.xxh64_intdigest(r.tobytes()) for r in data]


@pytest.mark.parametrize("physical, values, type_length", [
    (Type.INT32, np.array([0, -1, 2**31 - 1, 7], np.int32), None),
    (Type.INT64, np.array([0, -(2**63), 12345678901234], np.int64), None),
    (Type.FLOAT, np.array([0.0, -0.0, 1.5, np.nan], np.float32), None),
    (Type.DOUBLE, np.array([0.0, -0.0, 1e300, -np.inf], np.float64), None),
    (Type.INT96, np.arange(36, dtype=np.uint8).reshape(3, 12), None),
    (Type.FIXED_LEN_BYTE_ARRAY, np.arange(40, dtype=np.uint8).reshape(1, 40), 40),
    (Type.FIXED_LEN_BYTE_ARRAY, np.arange(6, dtype=np.uint8).reshape(2, 3), 3),
])
def test_hash_values_hash_plain_bytes(physical, values, type_length):
    plain = encode_plain(values, physical, type_length=type_length)
    width = len(plain) // len(values)
    expected = [xxhash.xxh64_intdigest(plain[i : i + width]) for i in range(0, len(plain), width)]
    assert hash_values(values, physical, type_length=type_length).tolist() == expected


def test_hash_values_byte_arrays_without_length_prefix():
    values = [b"", b"a", b"x" * 31, b"y" * 32, "héllo".encode() * 20]
    assert hash_values(values, Type.BYTE_ARRAY).tolist() == [xxhash.xxh64_intdigest(v) for v in values]


def test_booleans_hash_as_their_plain_byte():
    # A boolean's PLAIN bytes are one byte, 0 or 1: arrow-rs hashes that byte
    # for the bloom filters it writes on BOOLEAN columns.
    hashes = hash_values(np.array([True, False, True]), Type.BOOLEAN)
    assert hashes.tolist() == [xxhash.xxh64_intdigest(b) for b in (b"\x01", b"\x00", b"\x01")]


# ---------------------------------------------------------------- the filter itself


def test_spec_block_and_bit_selection():
    filt = Sbbf(64)  # two blocks
    h = (0x80000000 << 32) | 1  # top half 2**31: block (2**31 * 2) >> 32 = 1; key 1: bit salt[i] >> 27
    filt.insert_hash(h)
    salts = [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31]
    assert filt.blocks[0].tolist() == [0] * 8
    assert filt.blocks[1].tolist() == [1 << (s >> 27) for s in salts]
    assert filt.check_hash(h) and not filt.check_hash(h ^ (1 << 63))


@given(st.lists(st.integers(0, 2**64 - 1), max_size=200))
@settings(max_examples=50, deadline=None)
def test_no_false_negatives(hashes):
    filt = Sbbf(256)
    filt.insert_hashes(np.array(hashes, dtype=np.uint64))
    assert filt.check_hashes(np.array(hashes, dtype=np.uint64)).all()
    single = Sbbf(256)
    for h in hashes:
        single.insert_hash(h)
    assert single == filt


@pytest.mark.parametrize("inserted, low, high", [(26214, 0.0105, 0.0150), (13107, 0.0002, 0.0008)])
def test_false_positive_rate_matches_the_spec(inserted, low, high):
    """The spec's example: 1024 blocks with 26,214 hashes give about 1.26%; half as many about 0.04%."""
    rng = np.random.default_rng(11)
    filt = Sbbf(1024 * 32)
    filt.insert_hashes(rng.integers(0, 2**64, inserted, dtype=np.uint64))
    rate = filt.check_hashes(rng.integers(0, 2**64, 400_000, dtype=np.uint64)).mean()
    assert low < rate < high


def test_sized_filter_meets_its_fpp():
    rng = np.random.default_rng(5)
    for ndv, fpp in [(5000, 0.01), (20000, 0.05)]:
        filt = Sbbf.for_column(ndv, fpp)
        filt.insert_hashes(rng.integers(0, 2**64, ndv, dtype=np.uint64))
        rate = filt.check_hashes(rng.integers(0, 2**64, 200_000, dtype=np.uint64)).mean()
        assert rate < fpp  # the power-of-two rounding only adds room


# ---------------------------------------------------------------- sizing


def test_sizing_facts():
    assert optimal_num_bytes(300, 0.01) == 512  # both writers (spark-interop facts)
    assert optimal_num_bytes(5000, 0.001) == 16384
    assert optimal_num_bytes(300, 0.01, sizing=PARQUET_JAVA) == 512
    assert optimal_num_bytes(5000, 0.001, sizing=PARQUET_JAVA) == 16384
    assert optimal_num_bytes(100, 0.01) == 128 and optimal_num_bytes(100, 0.01, sizing=PARQUET_JAVA) == 256
    assert optimal_num_bytes(0, 0.5) == 32 and optimal_num_bytes(1, 0.99) == 32
    assert optimal_num_bytes(10**12, 0.001) == MAX_BYTES
    assert optimal_num_bytes(10**9, 0.01, max_bytes=3 * 2**20) == 2 * 2**20
    for ndv in (1, 10, 1000, 123457, 10**7):
        size = optimal_num_bytes(ndv, 0.05)
        assert size & (size - 1) == 0 and 32 <= size <= MAX_BYTES
        bits = -8 * ndv / np.log(1 - 0.05 ** (1 / 8))
        assert size * 8 >= min(bits, MAX_BYTES * 8) and (size == 32 or size * 4 < bits)
    for bad in [(-1, 0.1), (10, 0.0), (10, 1.0)]:
        with pytest.raises(ValueError):
            optimal_num_bytes(*bad)
    with pytest.raises(ValueError, match="sizing"):
        optimal_num_bytes(10, 0.1, sizing="mine")


def test_pyarrow_sizes_by_distinct_values_seen():
    builder = BloomFilterBuilder(Type.INT64, ndv=10**6, fpp=0.01)
    builder.insert_values(np.arange(1000) % 10)
    assert builder.finish().num_bytes == 32
    java = BloomFilterBuilder(Type.INT64, ndv=10**6, fpp=0.01, sizing=PARQUET_JAVA)
    assert java.num_bytes(10) == 2**20  # parquet-java's default max bytes caps the requested ndv
    assert BloomFilterBuilder(Type.INT64, sizing=PARQUET_JAVA).num_bytes(0) == 2**20


# ---------------------------------------------------------------- might_contain by logical type


def test_might_contain_logical_values():
    checks = {
        LogicalInfo("decimal", Type.INT32, precision=9, scale=2): decimal.Decimal("12.34"),
        LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=16, precision=38, scale=0): decimal.Decimal(-7),
        LogicalInfo("date", Type.INT32): datetime.date(2024, 2, 29),
        LogicalInfo("timestamp", Type.INT64, unit="us", utc=True): datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
        LogicalInfo("string", Type.BYTE_ARRAY): "naïve",
        LogicalInfo("int", Type.INT32, bit_width=8): -3,
    }
    for info, value in checks.items():
        filt = Sbbf(32, info=info)
        assert not filt.might_contain(value)
        from parquet_codec.types import from_pylist

        filt.insert_values(from_pylist([value], info), info.physical_type, type_length=info.type_length)
        assert filt.might_contain(value) and filt.might_contain_any([value, value])


def test_might_contain_both_zeros():
    filt = Sbbf(32, info=LogicalInfo("float", Type.DOUBLE, bit_width=64))
    filt.insert_values(np.array([-0.0]), Type.DOUBLE)
    assert filt.might_contain(0.0) and filt.might_contain(-0.0)


def test_might_contain_rejects_values_the_type_cannot_hold():
    filt = Sbbf(32, info=LogicalInfo("int", Type.INT32, bit_width=8))
    with pytest.raises(SchemaError):
        filt.might_contain(1000)
    with pytest.raises(TypeError, match="column's type"):
        Sbbf(32).might_contain(1)


# ---------------------------------------------------------------- hostile input


def _header(num_bytes: int, **overrides) -> bytes:
    header = Sbbf(32).header()
    header.numBytes = num_bytes
    for name, value in overrides.items():
        setattr(header, name, value)
    return serialize(header)


@pytest.mark.parametrize("num_bytes", [0, -32, 31, 48, 1000, 2**28, 2**31 - 1])
def test_bad_sizes_rejected_before_allocation(num_bytes):
    raw = b"PAR1" + _header(num_bytes) + bytes(64)
    with pytest.raises(CorruptFileError, match="power of two") as info:
        read_bloom_filter(BufferSource(raw), 4)
    assert info.value.context["file_offset"] == 4


def test_bitset_past_the_end_of_the_file():
    raw = b"PAR1" + _header(4096) + bytes(100)
    with pytest.raises(CorruptFileError, match="runs past the end of the file") as info:
        read_bloom_filter(BufferSource(raw), 4)
    assert info.value.context["file_offset"] > 4
    with pytest.raises(CorruptFileError, match="16 \\+ 4096 bytes, where the column metadata declares 116"):
        read_bloom_filter(BufferSource(raw), 4, len(raw) - 4)  # declared length shorter than the bitset
    with pytest.raises(CorruptFileError, match="runs past the end of the file"):
        read_bloom_filter(BufferSource(raw), 4, 10_000)
    with pytest.raises(CorruptFileError, match="outside the file"):
        read_bloom_filter(BufferSource(raw), len(raw) + 5)


def test_unknown_algorithm_and_garbage():
    raw = b"PAR1" + _header(32, algorithm=BloomFilterAlgorithm()) + bytes(32)
    with pytest.raises(UnsupportedError, match="algorithm"):
        read_bloom_filter(BufferSource(raw), 4)
    with pytest.raises(MetadataError, match="BloomFilterHeader") as info:
        read_bloom_filter(BufferSource(b"PAR1" + b"\xff" * 80), 4)
    assert info.value.context["file_offset"] == 4
    with pytest.raises(MetadataError):
        Sbbf.from_bytes(serialize(BloomFilterHeader(numBytes=32)) + bytes(32))


def test_hostile_offset_through_reader_names_the_place(pyarrow_bloom_file):
    data, _ = pyarrow_bloom_file
    with ParquetFile(data) as pf:
        leaf = pf.schema.leaf("s")
        pf.metadata.row_group(1).columns[leaf.column_index].meta_data.bloom_filter_offset = len(data) + 100
        with pytest.raises(CorruptFileError) as info:
            pf.bloom_filter(1, "s")
    assert info.value.context["row_group"] == 1 and info.value.context["column"] == "s"
    assert info.value.context["file_offset"] == len(data) + 100


def test_a_duration_columns_filter_takes_time_spans():
    """A column stored for an Arrow duration is a bare INT64: its filter takes
    time spans in the column's unit (datetime.timedelta, numpy.timedelta64,
    pandas.Timedelta), as filters= do; it raised a SchemaError for them."""
    spans = [datetime.timedelta(milliseconds=int(v)) for v in range(0, 30_000, 7)]
    table = pa.table({"d": pa.array(spans, pa.duration("ms"))})
    buf = io.BytesIO()
    pq.write_table(table, buf, bloom_filter_options={"d": {"ndv": 5000, "fpp": 0.01}})
    with ParquetFile(buf.getvalue()) as pf:
        filt = pf.bloom_filter(0, "d")
        assert filt.duration_unit == "ms"
        assert all(filt.might_contain(span) for span in spans[::50])
        assert filt.might_contain(np.timedelta64(7, "ms")) and filt.might_contain(7)
        assert filt.might_contain(pytest.importorskip("pandas").Timedelta(milliseconds=14))
        absent = [datetime.timedelta(milliseconds=v) for v in range(1, 30_000, 7)]
        assert sum(filt.might_contain(span) for span in absent) < len(absent) // 10
        assert not filt.might_contain(datetime.timedelta(microseconds=7_001))  # between two milliseconds
        assert not filt.might_contain_any([datetime.timedelta(microseconds=1)])


def test_a_boolean_columns_filter_answers_maybe_for_every_value():
    # parquet-java writes filters on BOOLEAN columns that it never fills: a miss proves nothing.
    out = io.BytesIO()
    pc.write_table({"id": list(range(10)), "flag": [i % 3 == 0 for i in range(10)]}, out)
    bloom = pc.ParquetFile(io.BytesIO(with_empty_bloom_filters(out.getvalue(), column=1))).bloom_filter(0, "flag")
    assert bloom is not None and not bloom.proves_absence
    assert bloom.might_contain(True) and bloom.might_contain(False) and bloom.might_contain_any([True])
