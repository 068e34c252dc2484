"""Writer options (writer_options.py) as pyarrow.parquet takes them."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc


def _file(data, **options) -> bytes:
    sink = io.BytesIO()
    pc.write_table(data, sink, **options)
    return sink.getvalue()


@pytest.mark.parametrize("version", [None, "V1", "V2", "anything"])
def test_writer_engine_version_is_accepted_and_changes_nothing(version) -> None:
    """pyarrow's ParquetWriter takes writer_engine_version and always writes with V2."""
    table = pa.table({"a": [1, 2, None]})
    raw = _file(table, writer_engine_version=version)
    assert pq.read_table(io.BytesIO(raw)).equals(table)
    assert raw == _file(table)
    theirs = io.BytesIO()
    with pq.ParquetWriter(theirs, table.schema, writer_engine_version=version) as writer:
        writer.write_table(table)


def _codecs(raw: bytes) -> list[str]:
    meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    return [meta.row_group(0).column(i).compression for i in range(meta.num_columns)]


@pytest.mark.parametrize("options", [{}, {"compression": None}, {"compression": {"a": "zstd"}},
                                     {"compression": {"b": "gzip", "a": None}}, {"compression": "NONE"},
                                     {"compression": "gzip"}])
def test_compression_none_and_unnamed_columns_are_uncompressed(options) -> None:
    """As pyarrow: no option is snappy; None, and a column a dict leaves out, uncompressed."""
    table = pa.table({"a": [1, 2] * 50, "b": ["x", "y"] * 50})
    theirs = io.BytesIO()
    their_options = {"compression": {k: v for k, v in options["compression"].items() if v is not None}} \
        if isinstance(options.get("compression"), dict) else options  # pyarrow refuses None in a dict
    pq.write_table(table, theirs, **their_options)
    assert _codecs(_file(table, **options)) == _codecs(theirs.getvalue())


LEVELS = {"zstd": [-(2**31), -131073, -5, 0, 1, 22, 23, 2**31 - 1], "brotli": [-100, -1, 0, 11, 12, 100],
          "gzip": [-2, -1, 0, 9, 10], "lz4": [-100, 0, 1, 12, 17, 1000], "snappy": [1], "none": [3]}


@pytest.mark.parametrize(("codec", "level"), [(c, lv) for c, levels in LEVELS.items() for lv in levels])
def test_compression_levels_accepted_and_refused_as_pyarrow(tmp_path, codec, level) -> None:
    """A level pyarrow takes is written (clamped to what the codec library takes:
    zstd -131072..22, brotli 0..11, lz4 1..12; gzip -1 is zlib's default); one it
    refuses (gzip outside -1..9, any level for snappy or none) raises before a byte is written."""
    table = pa.table({"a": list(range(100)), "b": ["x", "y"] * 50})
    try:
        pq.write_table(table, tmp_path / "theirs.parquet", compression=codec, compression_level=level)
        refused = False
    except (OSError, pa.ArrowInvalid):
        refused = True
    target = tmp_path / "ours.parquet"
    if refused:
        with pytest.raises(pc.UnsupportedError, match="compression level"):
            pc.write_table(table, target, compression=codec, compression_level=level)
        assert not target.exists()
    else:
        pc.write_table(table, target, compression=codec, compression_level=level)
        assert pq.read_table(target).equals(table)


def test_a_level_for_columns_left_uncompressed_is_refused_as_pyarrow() -> None:
    table = pa.table({"a": [1], "b": [2]})
    with pytest.raises(pa.ArrowInvalid):
        pq.write_table(table, io.BytesIO(), compression={"a": "zstd"}, compression_level=5)
    with pytest.raises(pc.UnsupportedError, match="'b'.*compression level"):
        _file(table, compression={"a": "zstd"}, compression_level=5)
    assert pq.read_table(io.BytesIO(_file(table, compression={"a": "zstd"}, compression_level={"a": 5}))).equals(table)


@pytest.mark.parametrize("collector", [5, {}, "x"])
def test_a_metadata_collector_that_is_not_a_list(tmp_path, collector) -> None:
    """Refused before anything is written (it is used only once the file is published)."""
    with pytest.raises(TypeError, match="metadata_collector must be a list"):
        pc.write_table({"a": [1]}, tmp_path / "x.parquet", metadata_collector=collector)
    assert list(tmp_path.iterdir()) == []
