"""One set of calls over pyarrow's and fsspec's filesystems (and the local disk, for folders)."""

from __future__ import annotations

import pytest

from parquet_codec.filesystems import Filesystem


def _filesystems() -> list[object]:
    found: list[object] = []
    try:
        from pyarrow.fs import LocalFileSystem
        found.append(LocalFileSystem())
    except ImportError:
        pass
    try:
        import fsspec
        found.append(fsspec.filesystem("file"))
    except ImportError:
        pass
    return found


@pytest.mark.parametrize("fs", _filesystems(), ids=lambda fs: type(fs).__module__.split(".")[0])
def test_files_through_a_filesystem(tmp_path, fs) -> None:
    files = Filesystem(fs)
    folder = files.join(str(tmp_path), "a", "b")
    files.make_dir(folder)
    files.make_dir(folder)  # existing: nothing happens
    assert not files.has_entries(folder) and files.has_entries(str(tmp_path))
    first, second = files.join(folder, "x"), files.join(folder, "y")
    with files.open_output(first) as out:
        out.write(b"data")
    files.move(first, second)
    assert files.size(second) == 4
    with files.open_input(second) as source:
        assert source.read() == b"data"
    assert files.is_dir(folder) and not files.is_dir(second)
    assert files.files_under(str(tmp_path)) == [second]
    files.delete_file(second)
    assert not files.has_entries(folder)
    with files.open_output(first) as out:
        out.write(b"more")
    files.make_dir(files.join(folder, "sub"))
    files.clear(folder)
    assert not files.has_entries(folder) and (tmp_path / "a" / "b").is_dir()


def test_folders_on_the_local_disk(tmp_path) -> None:
    files = Filesystem()
    folder = files.join(str(tmp_path), "a")
    assert not files.has_entries(folder)
    files.make_dir(files.join(folder, "sub"))
    (tmp_path / "a" / "f").write_bytes(b"x")
    assert files.has_entries(folder) and files.size(str(tmp_path / "a" / "f")) == 1
    files.clear(folder)
    assert list((tmp_path / "a").iterdir()) == []


def test_a_leading_tilde_is_the_home_folder(tmp_path, monkeypatch) -> None:
    """As pyarrow: '~' in a local path is expanded when reading, writing and listing folders."""
    from pathlib import Path

    import parquet_codec as pc

    monkeypatch.setenv("HOME", str(tmp_path))
    table = {"a": [1, 2, 3]}
    pc.write_table(table, "~/one.parquet")
    assert (tmp_path / "one.parquet").exists()
    assert pc.read_table("~/one.parquet").to_pydict() == table
    assert pc.read_table(Path("~/one.parquet")).to_pydict() == table
    assert pc.read_metadata("~/one.parquet").num_rows == 3
    pc.write_to_dataset(table, "~/folder", partition_cols=["a"])
    assert (tmp_path / "folder" / "a=2").is_dir()
    assert sorted(pc.read_table("~/folder").to_pydict()["a"]) == [1, 2, 3]
    assert len(pc.ParquetDataset("~/folder").files) == 3


@pytest.mark.parametrize("bogus", [5, "local", object()])
def test_something_else_as_a_filesystem_is_a_type_error(tmp_path, bogus) -> None:
    import parquet_codec as pc

    path = tmp_path / "x.parquet"
    pc.write_table({"a": [1]}, path)
    with pytest.raises(TypeError, match="filesystem must be"):
        pc.read_table(str(path), filesystem=bogus)
    with pytest.raises(TypeError, match="filesystem must be"):
        pc.write_table({"a": [1]}, str(tmp_path / "y.parquet"), filesystem=bogus)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.parquet"]


def test_a_leading_tilde_through_pyarrows_local_filesystem(tmp_path, monkeypatch) -> None:
    """pyarrow expands '~' for its LocalFileSystem too, and for no other filesystem."""
    fs_module = pytest.importorskip("pyarrow.fs")
    import parquet_codec as pc

    monkeypatch.setenv("HOME", str(tmp_path))
    local = fs_module.LocalFileSystem()
    pc.write_table({"a": [1]}, "~/one.parquet", filesystem=local)
    assert (tmp_path / "one.parquet").exists()
    assert pc.read_table("~/one.parquet", filesystem=local).to_pydict() == {"a": [1]}
    pc.write_to_dataset({"a": [1], "k": [2]}, "~/folder", partition_cols=["k"], filesystem=local)
    assert pc.read_table("~/folder", filesystem=local).num_rows == 1
    sub_tree = fs_module.SubTreeFileSystem(str(tmp_path), local)
    with pytest.raises(FileNotFoundError):
        pc.read_table("~/one.parquet", filesystem=sub_tree)
