"""The arguments of a read are checked before anything is read (read_arguments.py)."""

from __future__ import annotations

import pytest

import parquet_codec as pc


@pytest.mark.parametrize("columns", [5, 2.5, object(), "a", b"a"])
def test_columns_that_are_not_a_list_of_names(tmp_path, columns) -> None:
    path = tmp_path / "x.parquet"
    pc.write_table({"a": [1]}, path)
    with pytest.raises(TypeError, match="columns must be a list of names"):
        pc.read_table(path, columns=columns)
    with pytest.raises(TypeError, match="columns must be a list of names"):
        pc.ParquetFile(path).read(columns=columns)
