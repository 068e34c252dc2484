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


@pytest.mark.parametrize("row_groups", [None, 0, 2.5, "0"])
def test_row_groups_that_are_not_a_list_of_indices(tmp_path, row_groups) -> None:
    path = tmp_path / "x.parquet"
    pc.write_table({"a": [1, 2, 3]}, path, row_group_size=1)
    with pc.ParquetFile(path) as pf:
        with pytest.raises(TypeError, match="row_groups must be a list of row group indices"):
            pf.read_row_groups(row_groups)
        if row_groups is not None:  # None: every row group, as pyarrow's
            with pytest.raises(TypeError, match="row_groups must be a list of row group indices"):
                next(pf.iter_batches(row_groups=row_groups))
        assert pf.read_row_groups(iter([2, 0])).to_pydict() == {"a": [3, 1]}


@pytest.mark.parametrize(("buffer_size", "error"), [(-1, ValueError), (float("nan"), ValueError), ("x", TypeError),
                                                    ([], TypeError)])
def test_buffer_size_refused_as_pyarrow(tmp_path, buffer_size, error) -> None:
    """An I/O hint here, but one pyarrow refuses below zero is refused too (0 and None are fine)."""
    path = tmp_path / "x.parquet"
    pc.write_table({"a": [1]}, path)
    with pytest.raises(error, match="buffer_size"):
        pc.read_table(path, buffer_size=buffer_size)
    assert pc.read_table(path, buffer_size=0).num_rows == pc.read_table(path, buffer_size=None).num_rows == 1
