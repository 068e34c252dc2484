"""Filtered reads: the rows equal pyarrow's filtered read (or a Python filter of
the unfiltered read), whatever statistics, bloom filters and page indexes pruned."""

from __future__ import annotations

import datetime as dt
import io
import math
import random
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_codec as pc
from parquet_codec.errors import SchemaError
from parquet_codec.io import BufferSource
from tests.conftest import CORPUS_DATA, requires_corpus
from tests.support.footer import footer_start, read_footer, rewrite_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 20_000
UTC = dt.UTC
T0 = dt.datetime(2021, 3, 4, tzinfo=UTC)


def _normalize(rows: list) -> list:
    """NaN as a marker, so rows compare equal by value."""
    def fix(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v
    return [fix(r) for r in rows]


@pytest.fixture(scope="module")
def arrow_file(tmp_path_factory) -> str:
    rng = np.random.default_rng(7)
    floats = rng.normal(size=N)
    floats[rng.choice(N, 300)] = np.nan
    floats[rng.choice(N, 300)] = 0.0
    floats[rng.choice(N, 300)] = -0.0
    words = ["".join(rng.choice(list("abcxyz"), size=rng.integers(0, 6))) for _ in range(N)]
    table = pa.table({
        "k": pa.array(np.arange(N, dtype=np.int64)),
        "i": pa.array(rng.integers(-50, 50, N).astype(np.int32), mask=rng.random(N) < 0.1),
        "f": pa.array(floats, mask=rng.random(N) < 0.05),
        "s": pa.array(words, mask=rng.random(N) < 0.05),
        "d": pa.array([Decimal(int(x)).scaleb(-2) for x in rng.integers(-1000, 1000, N)], pa.decimal128(9, 2)),
        "dte": pa.array(rng.integers(18000, 18100, N).astype("datetime64[D]").astype(object), pa.date32()),
        "ts": pa.array([T0 + dt.timedelta(seconds=int(x)) for x in rng.integers(0, 10_000, N)],
                       pa.timestamp("us", tz="UTC")),
        "tsn": pa.array(np.sort(rng.integers(0, 10**9, N)).astype("datetime64[ms]"), pa.timestamp("ms")),
        "st": pa.array([None if x % 17 == 0 else {"a": int(x % 100), "b": str(x % 7)} for x in range(N)],
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "l": pa.array([[int(x), int(x) + 1] if x % 5 else None for x in range(N)], pa.list_(pa.int32())),
    })
    path = str(tmp_path_factory.mktemp("filtered") / "arrow.parquet")
    pq.write_table(table, path, row_group_size=4000, data_page_size=2048, write_page_index=True,
                   bloom_filter_options={"s": {"ndv": 500, "fpp": 0.01}, "k": {"ndv": 4000, "fpp": 0.01}})
    return path


ARROW_FILTERS = [
    [("k", "==", 12345)],
    [("k", ">=", 19990)],
    [("k", "<", 50), ("i", ">", 0)],
    [[("k", "<", 10)], [("k", ">", 19995)], [("s", "==", "zzzz")]],
    [("i", "in", [1, 2, 3, None])],
    [("i", "not in", [1, 2, 3])],
    [("i", "!=", 7)],
    [("f", ">", 1.5)],
    [("f", "==", 0.0)],
    [("f", "==", -0.0)],
    [("f", "<=", -0.0)],
    [("f", "!=", 0.5)],
    [("f", "in", [math.nan, 0.0])],
    [("f", "not in", [math.nan])],
    [("s", "==", "abc")],
    [("s", ">=", "y")],
    [("s", "in", ["a", "bb", "cx"])],
    [("s", "==", "not-there")],
    [("d", ">", Decimal("9.5"))],
    [("d", "<=", Decimal("-9.99"))],
    [("dte", "<", dt.date(2019, 4, 1))],
    [("ts", ">=", T0 + dt.timedelta(seconds=9990))],
    [("tsn", "<", dt.datetime(1970, 1, 1, 0, 0, 1))],
    [("k", ">", 100), ("k", "<", 3000), ("s", "in", ["ab", "ba"])],
]


@pytest.mark.parametrize("filters", ARROW_FILTERS, ids=str)
def test_rows_equal_pyarrow(arrow_file, filters):
    expected = pq.read_table(arrow_file, filters=filters)
    ours = pc.read_table(arrow_file, filters=filters)
    assert ours.num_rows == expected.num_rows
    assert _normalize(ours.to_pylist()) == _normalize(expected.to_pylist())


def test_projection_reads_filter_columns_without_returning_them(arrow_file):
    filters = [("s", "==", "abc"), ("k", "<", 10_000)]
    ours = pc.read_table(arrow_file, columns=["l", "st.b"], filters=filters)
    expected = pq.read_table(arrow_file, columns=["l", "st.b"], filters=filters)
    assert ours.column_names == ["l", "b"]
    assert ours.to_pylist() == expected.to_pylist()


def test_nested_struct_field_filter(arrow_file):
    full = pc.read_table(arrow_file).to_pylist()
    for filters, keep in (
        ([("st.a", "==", 42)], lambda r: r["st"] is not None and r["st"]["a"] == 42),
        ([("st.b", "is null", None)], lambda r: r["st"] is None),
        ([("st.a", ">", 97), ("k", "<", 5000)], lambda r: r["st"] is not None and r["st"]["a"] > 97 and r["k"] < 5000),
    ):
        assert _normalize(pc.read_table(arrow_file, filters=filters).to_pylist()) == \
            _normalize([r for r in full if keep(r)])


def test_is_null_via_none(arrow_file):
    full = pc.read_table(arrow_file, columns=["k", "i"]).to_pylist()
    got = pc.read_table(arrow_file, columns=["k", "i"], filters=[("i", "==", None)]).to_pylist()
    assert got == [r for r in full if r["i"] is None] and got
    got = pc.read_table(arrow_file, columns=["k"], filters=[("i", "is not null", None), ("k", "<", 100)])
    assert got.to_pylist() == [{"k": r["k"]} for r in full if r["i"] is not None and r["k"] < 100]


def test_iter_batches_and_read_row_groups_with_filters(arrow_file):
    filters = [[("k", "<", 2500)], [("k", ">=", 17000)]]
    with pc.ParquetFile(arrow_file) as pf:
        batches = list(pf.iter_batches(batch_size=1000, columns=["k"], filters=filters))
        assert [b.num_rows for b in batches] == [1000] * 5 + [500]  # the 500 left of the first matches join the next
        ks = [r["k"] for b in batches for r in b.to_pylist()]
        assert ks == list(range(2500)) + list(range(17000, N))
        assert pf.read_row_groups([4], ["k"], filters=filters).num_rows == 3000
        empty = pf.read(["k", "st"], filters=[("k", "<", 0)])
        assert empty.num_rows == 0 and empty.column_names == ["k", "st"]


def test_plan_of_a_point_query_on_a_sorted_column(tmp_path):
    path = str(tmp_path / "sorted.parquet")
    n = 200_000
    rng = np.random.default_rng(1)
    table = pa.table({"key": np.arange(n, dtype=np.int64), "v": rng.random(n),
                      "name": [f"n{x}" for x in rng.integers(0, 10**6, n)]})
    pq.write_table(table, path, row_group_size=20_000, data_page_size=8192, use_dictionary=False,
                   write_page_index=True, bloom_filter_options={"name": {"ndv": 20_000, "fpp": 0.01}})
    with pc.ParquetFile(path) as pf:
        plan = pf.plan([("key", "==", 123_456)], columns=["key", "v"])
        assert len(plan.kept) == 1 and plan.skipped_by("statistics") == 9
        assert [(c.column, c.pages_kept) for c in plan.kept[0].columns] == [("key", 1), ("v", 1)]
        assert all(c.pages > 10 for c in plan.kept[0].columns)
        assert plan.bytes_to_fetch < 0.01 * plan.bytes_total  # two 8 KiB pages of 2.4 MB
        assert plan.rows_selected < 2000
        text = str(plan)
        assert "1 of 10 kept" in text and "skipped (statistics)" in text and "1/" in text
        assert pf.read(["v"], filters=[("key", "==", 123_456)]).to_pylist() == [{"v": table["v"][123_456].as_py()}]
        # An absent value inside every row group's bounds: only the bloom filter can skip them.
        absent = pf.plan([("name", "==", "n500000x")])
        assert absent.skipped_by("bloom filter") == 10
        assert absent.skipped_by("bloom filter") >= 1 and absent.bytes_to_fetch == 0


class CountingSource(BufferSource):
    """Counts the bytes read, to show what pruning saves."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def _read(self, offset: int, length: int) -> memoryview:
        self.bytes_read += length
        return super()._read(offset, length)


def test_bytes_fetched_follow_the_plan(arrow_file):
    with open(arrow_file, "rb") as f:
        data = f.read()
    src = CountingSource(data)
    with pc.ParquetFile(src) as pf:
        after_open = src.bytes_read
        plan = pf.plan([("k", "==", 4321)], columns=["k", "s"])
        planned = src.bytes_read
        pf.read(["k", "s"], filters=[("k", "==", 4321)])
        fetched = src.bytes_read - planned
    # The read fetches the planned pages plus the indexes and filters it consults again.
    assert plan.bytes_to_fetch <= fetched < plan.bytes_to_fetch + (planned - after_open) + 1
    assert fetched < len(data) / 20


def test_filters_are_validated_against_the_schema(arrow_file):
    for bad in ([("nope", "==", 1)], [("k", "==", "text")], [("l", "==", 1)], [("ts", ">", dt.datetime(2020, 1, 1))],
                [("k", "<>", 1)]):
        with pytest.raises(SchemaError):
            pc.read_table(arrow_file, filters=bad)


def test_files_of_our_writer_with_page_index_bloom_and_truncated_bounds():
    rng = random.Random(3)
    prefix = "x" * 40
    rows = [{"id": i, "s": None if i % 13 == 0 else prefix + "".join(rng.choice("ab") for _ in range(rng.randint(0, 12))),
             "g": rng.choice([None, 1.5, -0.0, 0.0, math.nan])} for i in range(6000)]
    buf = io.BytesIO()
    pc.write_table(pc.Table.from_pylist(rows), buf, row_group_size=1500, data_page_size=512,
                   statistics_truncate_length=8, bloom_filter_options={"s": {"ndv": 3000, "fpp": 0.01}})
    data = buf.getvalue()
    with pc.ParquetFile(data) as pf:
        assert pf.offset_index(0, "s") is not None
    for filters, keep in (
        ([("s", "==", rows[77]["s"])], lambda r: r["s"] == rows[77]["s"]),
        ([("s", ">", prefix + "b")], lambda r: r["s"] is not None and r["s"] > prefix + "b"),
        ([("s", "<", prefix + "aab")], lambda r: r["s"] is not None and r["s"] < prefix + "aab"),
        ([("s", "==", prefix + "zz")], lambda r: False),
        ([("g", "==", 0.0)], lambda r: r["g"] == 0.0),
        ([("g", "in", [math.nan])], lambda r: isinstance(r["g"], float) and math.isnan(r["g"])),
        ([("id", ">=", 5990)], lambda r: r["id"] >= 5990),
    ):
        expected = _normalize([r for r in pc.read_table(data).to_pylist() if keep(r)])
        assert _normalize(pc.read_table(data, filters=filters).to_pylist()) == expected, filters


@requires_corpus()
@pytest.mark.parametrize("name", ["alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet"])
def test_corpus_files_with_tiny_pages(name):
    path = str(CORPUS_DATA / name)
    for filters in ([("id", "==", 3000)], [("int_col", "<", 2), ("id", ">", 7000)],
                    [("string_col", "==", "5")], [("bigint_col", "in", [10, 70])], [("float_col", ">", 8.5)]):
        expected = pq.read_table(path, filters=filters)
        ours = pc.read_table(path, filters=filters)
        assert ours.to_pylist() == expected.to_pylist(), filters


@requires_corpus()
def test_corpus_int32_with_null_pages():
    path = str(CORPUS_DATA / "int32_with_null_pages.parquet")
    column = pq.read_table(path).column_names[0]
    for filters in ([(column, ">", 0)], [(column, "in", [None, 5])], [(column, "not in", [1, 2])]):
        assert pc.read_table(path, filters=filters).to_pylist() == pq.read_table(path, filters=filters).to_pylist()


# ---------------------------------------------------------------- property: never drop a match


def _py_match(value, op, literal) -> bool:
    if op == "is null":
        return value is None
    if op == "is not null":
        return value is not None
    if op in ("in", "not in"):
        if value is None:
            found = any(v is None for v in literal)
        elif isinstance(value, float) and math.isnan(value):
            found = any(isinstance(v, float) and math.isnan(v) for v in literal)
        else:  # as stored: -0.0 is not in {0.0} (pyarrow's is_in)
            found = any(v is not None and v == value and math.copysign(1, v) == math.copysign(1, value)
                        if isinstance(value, float) else v == value for v in literal)
        return found if op == "in" else not found
    if value is None:
        return False
    return {"==": value == literal, "!=": value != literal, "<": value < literal, "<=": value <= literal,
            ">": value > literal, ">=": value >= literal}[op]


# The values of each column, without null (drawn directly: filtering nulls out
# can trip Hypothesis's filter health check at random).
_VALUES = {"a": st.integers(-20, 20), "b": st.one_of(st.sampled_from([math.nan, -0.0, 0.0]), st.floats(-5, 5, width=32)),
           "c": st.text("abé", max_size=4)}
_DOMAINS = {name: st.one_of(st.none(), values) for name, values in _VALUES.items()}


@st.composite
def _predicate(draw):
    column = draw(st.sampled_from(sorted(_DOMAINS)))
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null"]))
    domain = _DOMAINS[column]
    if op in ("in", "not in"):
        return column, op, draw(st.lists(domain, max_size=4))
    if op in ("is null", "is not null"):
        return column, op, None
    return column, op, draw(_VALUES[column])


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(rows=st.lists(st.fixed_dictionaries(_DOMAINS), max_size=250),
       filters=st.lists(st.lists(_predicate(), min_size=1, max_size=3), min_size=1, max_size=3),
       group=st.integers(5, 80), page=st.integers(2, 20))
def test_property_filtered_read_equals_python_filter(rows, filters, group, page):
    table = pa.table({"a": pa.array([r["a"] for r in rows], pa.int32()),
                      "b": pa.array([r["b"] for r in rows], pa.float32()),
                      "c": pa.array([r["c"] for r in rows], pa.string())})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=group, max_rows_per_page=page, write_page_index=True,
                   bloom_filter_options={"c": {"ndv": 50, "fpp": 0.05}, "a": {"ndv": 50, "fpp": 0.05}})
    data = buf.getvalue()
    full = pc.read_table(data).to_pylist()
    expected = [r for r in full if any(all(_py_match(r[c], op, v) for c, op, v in clause) for clause in filters)]
    assert _normalize(pc.read_table(data, filters=filters).to_pylist()) == _normalize(expected)


def test_decimals_of_more_digits_than_a_decimal_context_holds():
    """A filter value of 38 digits is compared exactly (a default context would
    round it to 28), also against a value stored past the declared precision
    (pandas wrote such a file: pyarrow reads and matches it)."""
    values = [Decimal("922337203685477580700.92230685477500000"), Decimal("-1.00000000000000000"), None,
              Decimal("922337203685477580700.92230685477500001")]
    table = pa.table({"d": pa.array(values, pa.decimal128(38, 17))})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    data = buf.getvalue()
    for op in ("==", "!=", "<", "<=", ">", ">="):
        flt = [("d", op, values[0])]
        assert pc.read_table(data, filters=flt).to_pylist() == pq.read_table(io.BytesIO(data), filters=flt).to_pylist()
    assert pc.read_table(data, filters=[("d", "==", values[0])]).num_rows == 1
    # The same values declared DECIMAL(36, 17): the first has 38 digits.
    declared = _with_precision(data, 36)
    flt = [("d", "==", values[0])]
    assert pc.read_table(declared, filters=flt).num_rows == pq.read_table(io.BytesIO(declared), filters=flt).num_rows == 1


def _with_precision(data: bytes, precision: int) -> bytes:
    """A file's bytes with its one leaf's declared decimal precision changed."""
    def edit(meta):
        leaf = meta.schema[1]
        leaf.precision = leaf.logicalType.DECIMAL.precision = precision
        meta.key_value_metadata = None  # (the stored Arrow schema would say 38)
    return rewrite_footer(data, edit)


def test_byte_bounds_ending_in_nul_compare_as_bytes():
    """b"\x00" is a value of its own: numpy would read it as an empty 'S' string."""
    table = pa.table({"b": pa.array([b"\x00", b"\x01", b"a\x00", b"a"]), "s": pa.array(["\x00", "b", "a\x00", "a"])})
    buf = io.BytesIO()
    pq.write_table(table, buf, data_page_size=1, write_page_index=True)
    data = buf.getvalue()
    for flt in ([("b", "==", b"\x00")], [("b", "==", b"a\x00")], [("b", "<", b"\x01")], [("s", "==", "\x00")],
                [("s", "==", "a\x00")], [("s", ">", "a")]):
        assert pc.read_table(data, filters=flt).to_pylist() == pq.read_table(io.BytesIO(data), filters=flt).to_pylist()
        assert pc.read_table(data, filters=flt).num_rows >= 1, flt


def test_inverted_statistics_are_not_used():
    """A minimum above the maximum (DuckDB's out_of_range_stats.parquet: a UINT_8
    column whose min_value is -1 as INT32) says nothing: the rows are read."""
    table = pa.table({"u": pa.array([255, 3], pa.uint8())})
    buf = io.BytesIO()
    pq.write_table(table, buf)

    def edit(meta):
        meta.row_groups[0].columns[0].meta_data.statistics.min_value = b"\xff\xff\xff\xff"
    data = rewrite_footer(buf.getvalue(), edit)
    assert pc.read_table(data, filters=[("u", "==", 255)]).to_pylist() == [{"u": 255}]
    assert pc.read_table(data, filters=[("u", "<", 4)]).to_pylist() == [{"u": 3}]


def test_a_bloom_filter_that_disagrees_with_its_length_is_not_used():
    """DuckDB's bloom_filter_short_numbytes.parquet: the header's bitset size and the
    column metadata's length differ. The filter is not trusted to rule out a row
    group (the read finds the rows); asked for, it is reported as corrupt."""
    from parquet_codec.errors import CorruptFileError

    table = pa.table({"r": pa.array(np.arange(1000) % 10)})
    buf = io.BytesIO()
    pq.write_table(table, buf, bloom_filter_options={"r": {"ndv": 10, "fpp": 0.01}})

    def edit(meta):
        meta.row_groups[0].columns[0].meta_data.bloom_filter_length += 16
    data = rewrite_footer(buf.getvalue(), edit)
    assert pc.read_table(buf.getvalue(), filters=[("r", "==", 3)]).num_rows == 100
    assert pc.read_table(data, filters=[("r", "==", 3)]).num_rows == 100
    with pytest.raises(CorruptFileError, match="column metadata declares"):
        pc.ParquetFile(data).bloom_filter(0, "r")


@requires_corpus()
def test_a_column_index_with_null_pages_for_a_required_column_is_not_used():
    """parquet-mr 1.13 snapshots wrote null_pages true (and null counts -1) for
    the pages of required columns: trusting it ruled every row out."""
    path = CORPUS_DATA / "datapage_v1-snappy-compressed-checksum.parquet"
    index = pc.ParquetFile(path).column_index(0, 0)
    assert all(index.null_pages)
    expected = pq.read_table(path, filters=[("a", "!=", 0)]).num_rows
    assert expected > 0
    assert pc.read_table(path, filters=[("a", "!=", 0)]).num_rows == expected


def test_an_offset_index_pointing_outside_the_file_is_not_used():
    """Impala's alltypes_invalid_pages.parquet: a page location of offset -1. A
    filtered read reads the whole chunk instead (pyarrow ignores the index);
    offset_index reports it when asked."""
    from parquet_codec.errors import MetadataError
    from parquet_codec.format.ttypes import OffsetIndex
    from parquet_codec.thrift_io import deserialize, serialize

    table = pa.table({"k": pa.array(np.arange(1000))})
    buf = io.BytesIO()
    pq.write_table(table, buf, use_dictionary=False, max_rows_per_page=100, write_page_index=True)
    data = buf.getvalue()
    chunk = read_footer(data).row_groups[0].columns[0]
    index = deserialize(OffsetIndex, data, chunk.offset_index_offset,
                        end=chunk.offset_index_offset + chunk.offset_index_length)[0]
    assert len(index.page_locations) > 2
    index.page_locations[1].offset = -1
    moved = serialize(index)

    def edit(meta):
        meta.row_groups[0].columns[0].offset_index_offset = footer_start(data)
        meta.row_groups[0].columns[0].offset_index_length = len(moved)
    broken = rewrite_footer(data, edit, insert=moved)
    assert pc.read_table(broken, filters=[("k", ">=", 990)]).to_pylist() == [{"k": k} for k in range(990, 1000)]
    with pytest.raises(MetadataError, match="lies outside the file"):
        pc.ParquetFile(broken).offset_index(0, 0)


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_duration_columns_take_time_spans(unit):
    """Parquet stores a duration as a bare INT64; the stored Arrow schema gives
    its unit, and time spans compare with it as pyarrow compares them (a span
    between two counts of the unit included)."""
    import pandas as pd

    values = [1, 5_000_000, None, -3, 2_500_000]
    table = pa.table({"d": pa.array(values, pa.duration(unit)),
                      "s": pa.array([{"e": v} for v in values], pa.struct([("e", pa.duration(unit))]))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    data = sink.getvalue()
    spans = [dt.timedelta(seconds=1), dt.timedelta(microseconds=1500), np.timedelta64(2500, "ms"),
             pd.Timedelta(seconds=2) + pd.Timedelta(1, "ns"), dt.timedelta(0)]
    for span in spans:
        for op in ("==", "!=", "<", "<=", ">", ">="):
            expected = pq.read_table(io.BytesIO(data), filters=[("d", op, span)]).column("d").to_pylist()
            assert pc.read_table(data, filters=[("d", op, span)]).column("d").to_pylist() == expected, (span, op)
        members = [("d", "in", [span, dt.timedelta(seconds=5)])]
        if not isinstance(span, np.timedelta64):  # pyarrow cannot build that set
            expected = pq.read_table(io.BytesIO(data), filters=members).column("d").to_pylist()
            assert pc.read_table(data, filters=members).column("d").to_pylist() == expected, span
    nested = pc.read_table(data, filters=[("s.e", ">", dt.timedelta(0))]).column("d").to_pylist()
    assert nested == [v for v in table.column("d").to_pylist() if v is not None and v > dt.timedelta(0)]


def test_a_time_span_is_not_a_number():
    sink = io.BytesIO()
    pq.write_table(pa.table({"i": [1, 2], "f": [1.0, 2.0]}), sink, store_schema=False)
    for column in ("i", "f"):
        with pytest.raises(SchemaError, match="not a number"):
            pc.read_table(sink.getvalue(), filters=[(column, "<", np.timedelta64(1, "s"))])


# ---------------------------------------------------------------- large in / not in sets

BIG = 200_000


@pytest.fixture(scope="module")
def big_set_file(tmp_path_factory) -> str:
    """Several row groups, small pages with a page index, a bloom filter on "k" (its
    values spread over [0, 10**6) so that statistics rarely prune)."""
    rng = np.random.default_rng(11)
    n = 30_000
    keys = rng.choice(10**6, n, replace=False).astype(np.int64)
    floats = rng.integers(-500, 500, n) / 4
    floats[rng.choice(n, 200)] = np.nan
    floats[rng.choice(n, 200)] = -0.0
    table = pa.table({
        "k": keys,
        "sk": np.sort(keys),
        "s": pa.array([f"w{x}" for x in rng.integers(0, 50_000, n)], mask=rng.random(n) < 0.05),
        "f": pa.array(floats, mask=rng.random(n) < 0.05),
        "ts": pa.array(rng.integers(0, 10**6, n) * 1000, pa.timestamp("us")),
        "d": pa.array([Decimal(int(x)).scaleb(-2) for x in rng.integers(-10**5, 10**5, n)], pa.decimal128(9, 2)),
    })
    path = str(tmp_path_factory.mktemp("big_sets") / "big.parquet")
    pq.write_table(table, path, row_group_size=6000, data_page_size=4096, write_page_index=True,
                   bloom_filter_options={"k": {"ndv": 6000, "fpp": 0.01}})
    return path


def _big_sets() -> dict[str, list]:
    rng = np.random.default_rng(12)
    ints = rng.choice(10**6, BIG, replace=False).tolist()
    floats = (rng.integers(-2000, 2000, BIG) / 8).tolist() + [math.nan, 0.0]
    return {
        "ints": ints,
        "few hits": [x * 2 + 1 for x in range(BIG)],  # odd keys below 400 000
        "strings": [f"w{x}" for x in rng.integers(0, 10**6, BIG)],
        "floats": floats,
        "times": [dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=int(x)) for x in rng.integers(0, 10**6, BIG)],
        "decimals": [Decimal(int(x)).scaleb(-2) for x in rng.integers(-10**5, 10**5, BIG)],
    }


BIG_SETS = _big_sets()
BIG_FILTERS = [
    ("k", "ints"), ("k", "few hits"), ("sk", "ints"), ("sk", "few hits"), ("s", "strings"), ("f", "floats"),
    ("ts", "times"), ("d", "decimals"),
]


@pytest.mark.parametrize("op", ["in", "not in"])
@pytest.mark.parametrize(("column", "values"), BIG_FILTERS, ids=[f"{c}-{v}" for c, v in BIG_FILTERS])
def test_sets_of_200_000_values_give_pyarrows_rows(big_set_file, column, values, op):
    filters = [(column, op, BIG_SETS[values])]
    expected = pq.read_table(big_set_file, filters=filters)
    ours = pc.read_table(big_set_file, filters=filters)
    assert ours.num_rows == expected.num_rows
    assert _normalize(ours.to_pylist()) == _normalize(expected.to_pylist())


def test_large_sets_prune_by_bloom_filter_and_page_index(big_set_file):
    from parquet_codec.bloom import value_hashes

    absent = np.setdiff1d(np.arange(10**6), pq.read_table(big_set_file)["k"].to_numpy())[::4]
    with pc.ParquetFile(big_set_file) as pf:
        groups = range(pf.num_row_groups)
        blooms = [pf.bloom_filter(i, "k") for i in groups]
        # Values no filter reports (with 200 000 values, some would be false positives).
        hashes = value_hashes(absent.tolist(), blooms[0].info)
        absent = absent[~np.any([b.check_hashes(hashes) for b in blooms], axis=0)].tolist()
        assert len(absent) > 100_000
        plan = pf.plan([("k", "in", absent)])
        assert plan.skipped_by("bloom filter") == pf.num_row_groups  # all inside the bounds, none stored
        assert pf.read(filters=[("k", "in", absent)]).num_rows == 0
        sorted_plan = pf.plan([("sk", "in", [int(x) for x in range(0, 20_000, 7)])])
        assert sorted_plan.skipped_by("statistics") >= 4
        assert sorted_plan.kept[0].columns[0].pages_kept < sorted_plan.kept[0].columns[0].pages


def test_large_sets_are_not_matched_one_value_at_a_time(big_set_file, monkeypatch):
    from parquet_codec import bloom, column_index, predicate, row_filter

    calls = []

    def counting(module, name):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, **k: calls.append(name) or original(*a, **k))

    counting(column_index, "value_key")
    counting(column_index.PageBounds, "_compare")
    counting(predicate, "literal_key")
    counting(row_filter, "literal_key")
    counting(row_filter, "_key")
    counting(row_filter, "_compare")
    counting(bloom.Sbbf, "might_contain_any")
    for column, values in (("k", "ints"), ("sk", "ints"), ("ts", "times"), ("s", "strings"), ("f", "floats")):
        for op in ("in", "not in"):
            table = pc.read_table(big_set_file, columns=[column], filters=[(column, op, BIG_SETS[values])])
            assert table.num_rows > 0
    assert calls == []
    # A 10-value set takes the same path.
    assert pc.read_table(big_set_file, filters=[("k", "in", BIG_SETS["ints"][:10])]).num_rows >= 0
    assert calls == []


@pytest.fixture(scope="module")
def cross_type_file(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("cross") / "cross.parquet")
    pq.write_table(pa.table({
        "ts": pa.array([dt.datetime(2023, 11, 14, 22, 13, 20), dt.datetime(2023, 11, 14, 22, 13, 21)],
                       pa.timestamp("us")),
        "d": pa.array([dt.date(2024, 5, 16), dt.date(2024, 5, 17)]),
        "b": pa.array([b"a", b"b"]),
        "i": pa.array([2**53, 2**53 + 1], pa.int64()),
        "u": pa.array([1643063513662524416, 1643063513662524400], pa.uint64()),
        "f": pa.array([1.5, 2.0]),
        "dec": pa.array([Decimal("0.05"), Decimal("0.10")], pa.decimal128(10, 2)),
    }), path, row_group_size=1, write_page_index=True)
    return path


@pytest.mark.parametrize("filters", [
    # A value of another type that the column's type holds exactly is exact.
    [("ts", "==", np.datetime64("2023-11-14T22:13:20", "ns"))],
    [("ts", "<", np.datetime64("2023-11-14T22:13:20.000000001"))],
    [("ts", "in", [np.datetime64("2023-11-14T22:13:21", "ns")])],
    [("d", "==", dt.datetime(2024, 5, 17))], [("d", "<", dt.datetime(2024, 5, 17))],
    [("d", "<", dt.datetime(2024, 5, 17, 1))], [("d", "not in", [dt.datetime(2024, 5, 17)])],
    [("b", "!=", "a")], [("b", "in", ["a"])],
    # Floats on integer columns compare exactly, not through float64.
    [("i", "in", [2.0**53])], [("u", "in", [1.6430635136625244e18])], [("i", "not in", [2.0**53])],
    # Decimals on number columns, floats on decimal ones (the decimal a float spells).
    [("i", "==", Decimal(2**53))], [("f", "<", Decimal("2"))], [("f", "in", [Decimal("1.5")])],
    [("dec", "==", 0.1)], [("dec", "<", 0.1)], [("dec", "in", [0.1])], [("dec", "!=", 0.1)],
])
def test_values_of_other_types_compare_as_pyarrow(cross_type_file, filters):
    name = filters[0][0]
    ours = pc.read_table(cross_type_file, columns=[name], filters=filters).to_pylist()
    assert ours == pq.read_table(cross_type_file, columns=[name], filters=filters).to_pylist()


@pytest.fixture(scope="module")
def duckdb_timestamps(tmp_path_factory) -> str:
    """DuckDB's timestamps of each unit, local and UTC-adjusted, a row an hour
    across three days, in row groups of 12 with bloom filters."""
    duckdb = pytest.importorskip("duckdb")
    path = str(tmp_path_factory.mktemp("duck") / "ts.parquet")
    query = ("select (TIMESTAMP '2024-05-15 22:00:00' + to_hours(range)) ts, "
             "(TIMESTAMPTZ '2024-05-15 22:00:00+00' + to_hours(range)) tz, "
             "(TIMESTAMP '2024-05-15 22:00:00' + to_hours(range))::TIMESTAMP_NS tns, "
             "(TIMESTAMP '2024-05-15 22:00:00' + to_hours(range))::TIMESTAMP_S tsec from range(60)")
    duckdb.connect().execute(f"COPY ({query}) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 12)")
    return path


@pytest.mark.parametrize("column", ["ts", "tz", "tns", "tsec"])
@pytest.mark.parametrize("op, value", [("==", dt.date(2024, 5, 16)), ("<", dt.date(2024, 5, 16)),
                                       (">=", dt.date(2024, 5, 17)), ("!=", dt.date(2024, 5, 16)),
                                       ("in", [dt.date(2024, 5, 17), dt.date(2024, 5, 18)]),
                                       ("not in", [dt.date(2024, 5, 16)])])
def test_dates_compare_with_timestamps_as_their_midnight(duckdb_timestamps, column, op, value):
    """As pyarrow casts a date filter value: midnight, in UTC on a UTC-adjusted column."""
    filters = [(column, op, value)]
    ours = pc.read_table(duckdb_timestamps, columns=[column], filters=filters).to_pylist()
    assert ours == pq.read_table(duckdb_timestamps, columns=[column], filters=filters).to_pylist()
    assert ours


@pytest.mark.parametrize("filters", [
    [("i", "==", 2.0**53)], [("i", "<=", 2.0**53)], [("i", "<", 2.0**53 + 0.5)], [("i", ">", 2.0**53 + 0.5)],
])
def test_floats_on_integers_beyond_2_53_are_exact(cross_type_file, filters):
    """(pyarrow refuses these comparisons.)"""
    (name, op, value), = filters
    expected = [{"i": v} for v in (2**53, 2**53 + 1) if _py_match(v, op, Decimal(value))]
    assert pc.read_table(cross_type_file, columns=["i"], filters=filters).to_pylist() == expected


@pytest.mark.parametrize("filters", [[("ts", "==", 0)], [("d", "<", 1)], [("ts", "in", [1.5])]])
def test_numbers_do_not_compare_with_dates_and_times(cross_type_file, filters):
    """As pyarrow: a number is not an instant."""
    with pytest.raises(SchemaError, match="is a number"):
        pc.read_table(cross_type_file, filters=filters)
