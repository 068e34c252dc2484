"""Tests of parquet_codec.page: page headers parsed in place agree with the
general path, and PLAIN pages without levels land straight in the value buffer."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec import chunk_reader, column, page
from parquet_codec.encodings.prefix_strip import strip_prefixes
from parquet_codec.errors import ParquetError
from parquet_codec.io import BufferSource

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")


def _file(**options: object) -> bytes:
    rng = np.random.default_rng(3)
    table = pa.table({"i": pa.array(rng.integers(0, 300, 3000)), "b": pa.array(rng.random(3000) < 0.5)},
                     schema=pa.schema([pa.field("i", pa.int64(), False), pa.field("b", pa.bool_(), False)]))
    sink = io.BytesIO()
    pq.write_table(table, sink, max_rows_per_page=400, write_page_checksum=True, **options)
    return sink.getvalue()


def _chunk(data: bytes, index: int = 0) -> tuple[int, int, int]:
    meta = pc.ParquetFile(data).metadata.row_group(0).columns[index].meta_data
    start, length = column.chunk_range(meta, len(data))
    return start, length, meta.num_values


def _pages(chunk: memoryview, start: int, num_values: int) -> list[tuple[object, int, int, bytes]]:
    return [(p.header, p.ordinal, p.offset, bytes(p.body)) for p in page.iter_pages(chunk, start, num_values)]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_headers_in_place_match_the_window_path(version):
    data = _file(data_page_version=version, compression="snappy")
    start, length, n = _chunk(data)
    whole = memoryview(bytes(data[start : start + length]))  # a file read: the run is a bytes object
    inside = memoryview(data)[start : start + length]  # an in-memory file: a view inside one
    copied = memoryview(bytearray(data))[start : start + length]  # no bytes owner: small windows
    assert page._bytes_owner(whole) == (whole.obj, 0)
    assert page._bytes_owner(inside) == (data, start)
    assert page._bytes_owner(copied) is None
    expected = _pages(copied, start, n)
    assert len(expected) > 3
    assert _pages(whole, start, n) == expected
    assert _pages(inside, start, n) == expected


def test_runs_iterated_together_keep_their_own_bytes():
    data = _file()
    runs = [(memoryview(bytes(data[s : s + k])), s, n) for s, k, n in (_chunk(data, 0), _chunk(data, 1))]
    together: list[list[tuple[object, int, int, bytes]]] = [[], []]
    for pair in itertools.zip_longest(*(page.iter_pages(*run) for run in runs)):
        for pages, p in zip(together, pair, strict=True):
            if p is not None:
                pages.append((p.header, p.ordinal, p.offset, bytes(p.body)))
    assert together == [_pages(*run) for run in runs]


@pytest.mark.parametrize("cut", [1, 7])
def test_a_cut_header_fails_alike_in_place_and_in_windows(cut):
    data = _file(compression="none")
    start, length, n = _chunk(data)
    second = list(page.iter_pages(memoryview(data)[start : start + length], start, n))[1]
    end = second.offset - start + cut  # the run stops inside the second page's header
    errors = []
    for run in (memoryview(bytes(data[start : start + end])), memoryview(bytearray(data[start : start + end]))):
        with pytest.raises(ParquetError) as info:
            list(page.iter_pages(run, start, n))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("codec", ["none", "snappy", "zstd"])
def test_plain_pages_without_levels_read_like_pyarrow(version, codec):
    data = _file(data_page_version=version, compression=codec, use_dictionary=False)
    assert pc.read_table(data).to_arrow().equals(pq.read_table(io.BytesIO(data)))


@pytest.mark.parametrize("codec", ["none", "snappy"])
def test_strided_or_read_only_out_takes_the_general_path(codec):
    data = _file(compression=codec, use_dictionary=False)
    pf = pc.ParquetFile(data)
    chunk, leaf = pf.metadata.row_group(0).columns[0], pf.schema.leaves[0]
    expected = pq.read_table(io.BytesIO(data)).column("i").to_numpy()
    strided = np.zeros(2 * len(expected), dtype=np.int64)[::2]
    column.read_column_chunk(BufferSource(data), chunk, leaf, out=strided)
    np.testing.assert_array_equal(strided, expected)
    frozen = np.zeros(len(expected), dtype=np.int64)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        column.read_column_chunk(BufferSource(data), chunk, leaf, out=frozen)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("codec, private", [("none", False), ("snappy", True), ("gzip", False), ("zstd", True)])
def test_decompressed_values_are_the_pages_own(version, codec, private):
    """Only a buffer decompressed for the page, and writable, may be
    overwritten by a decoder: never the file's bytes of an uncompressed page."""
    data = _file(data_page_version=version, compression=codec, use_dictionary=False)
    start, length, n = _chunk(data)
    chunk = memoryview(bytearray(data))[start : start + length]
    codec_id = pc.ParquetFile(data).metadata.row_group(0).columns[0].meta_data.codec
    raw = next(page.iter_pages(chunk, start, n))
    sections = page.split_data_page(raw, codec_id, 0, 0)
    assert sections.private == (private and not sections.values.readonly)
    assert page.read_data_page(raw, codec_id, 0, 0).private == sections.private
    if not private:
        assert not sections.private


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("codec", ["none", "snappy"])
def test_plain_strings_leave_a_callers_buffer_alone(version, codec, monkeypatch):
    """Stripping the length prefixes of PLAIN strings overwrites a decompressed
    page, and a copy of the caller's bytes for an uncompressed one."""
    stripped = []
    monkeypatch.setattr(chunk_reader, "strip_prefixes", lambda *args: stripped.append(strip_prefixes(*args)))
    values = [f"value-{i}" * (1 + i % 4) for i in range(5000)]
    sink = io.BytesIO()
    pq.write_table(pa.table({"s": values}), sink, data_page_version=version, compression=codec,
                   use_dictionary=False, data_page_size=4096)
    buffer = bytearray(sink.getvalue())
    before = bytes(buffer)
    for _ in range(2):
        assert pc.read_table(buffer).column("s").to_pylist() == values
    assert buffer == before
    assert len(stripped) >= 4


def test_a_header_that_does_not_parse_is_located_in_the_file():
    data = bytearray(_file(compression="none"))
    start, length, n = _chunk(bytes(data))
    second = list(page.iter_pages(memoryview(bytes(data))[start : start + length], start, n))[1]
    data[second.offset] = 0xFF  # a field header of an unknown compact-protocol type
    for run in (memoryview(bytes(data[start : start + length])), memoryview(bytearray(data[start : start + length]))):
        with pytest.raises(ParquetError) as info:
            list(page.iter_pages(run, start, n))
        assert info.value.context["file_offset"] == second.offset and info.value.context["page"] == 1
