"""Page boundaries (page_cuts.py): every page makes progress, whatever the page size."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc


@pytest.mark.parametrize("page_size", [-1, -(10**9)])
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_page_size_below_zero_gives_one_value_pages(tmp_path: Path, page_size: int, use_dictionary: bool) -> None:
    """A data_page_size below zero (pyarrow takes it and writes its smallest pages)
    closes each page after one value instead of never closing the first."""
    table = pa.table({"s": [f"x{i}" for i in range(50)], "n": [None if i % 3 else i for i in range(50)]})
    path = tmp_path / "small_pages.parquet"
    pc.write_table(table, path, data_page_size=page_size, use_dictionary=use_dictionary)
    assert pq.read_table(path).equals(table)
    with pc.ParquetFile(path) as pf:
        assert len(pf.offset_index(0, "s").page_locations) == 50
        assert len(pf.offset_index(0, "n").page_locations) >= 17  # pages of nulls only cost nothing
