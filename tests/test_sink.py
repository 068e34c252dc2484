"""Output sinks: files published whole, through the OS or a filesystem's calls."""

from __future__ import annotations

import os

import pytest

import parquet_codec as pc
from parquet_codec.sink import FilesystemSink, Sink, open_sink


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def test_a_path_appears_only_on_commit(tmp_path) -> None:
    path = tmp_path / "out.parquet"
    sink = open_sink(path)
    assert isinstance(sink, Sink) and not isinstance(sink, FilesystemSink)
    sink.write(b"abc")
    assert not path.exists() and len(_leftovers(tmp_path)) == 1
    sink.commit()
    assert path.read_bytes() == b"abc" and sink.position == 3 and not _leftovers(tmp_path)


def test_an_aborted_path_keeps_the_old_file(tmp_path) -> None:
    path = tmp_path / "out.parquet"
    path.write_bytes(b"old")
    sink = open_sink(path)
    sink.write(b"new")
    sink.abort()
    assert path.read_bytes() == b"old" and not _leftovers(tmp_path)


def test_a_symbolic_link_is_followed(tmp_path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "data.parquet"
    target.write_bytes(b"old")
    link = tmp_path / "link.parquet"
    link.symlink_to("real/data.parquet")
    sink = open_sink(link)
    sink.write(b"new")
    sink.commit()
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert not _leftovers(tmp_path) and not _leftovers(tmp_path / "real")


def test_a_dangling_link_creates_its_target(tmp_path) -> None:
    link = tmp_path / "link.parquet"
    link.symlink_to("made.parquet")
    pc.write_table({"a": [1, 2]}, link)
    assert link.is_symlink() and pc.read_table(tmp_path / "made.parquet").to_pydict() == {"a": [1, 2]}


def test_a_fifo_is_written_directly(tmp_path) -> None:
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    pc.write_table({"a": [1, 2]}, fifo)
    reader.join(10)
    assert received and not fifo.is_file() and pc.read_table(received[0]).to_pydict() == {"a": [1, 2]}
    assert not _leftovers(tmp_path)


class FsspecLike:
    """The calls an fsspec filesystem offers: open, mv, rm (on the local disk)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def open(self, path: str, mode: str) -> object:
        self.calls.append("open")
        return open(path, mode)  # noqa: SIM115 - the sink closes it

    def mv(self, source: str, target: str) -> None:
        self.calls.append("mv")
        os.replace(source, target)

    def rm(self, path: str) -> None:
        self.calls.append("rm")
        os.unlink(path)


def _filesystems() -> list[object]:
    found: list[object] = [FsspecLike()]
    try:
        from pyarrow.fs import LocalFileSystem
    except ImportError:
        return found
    return [*found, LocalFileSystem()]


@pytest.mark.parametrize("filesystem", _filesystems(), ids=lambda fs: type(fs).__name__)
def test_a_filesystem_publishes_on_commit(tmp_path, filesystem) -> None:
    path = str(tmp_path / "out.parquet")
    pc.write_table({"x": [1, 2, 3]}, path, filesystem=filesystem)
    assert pc.read_table(path).to_pydict() == {"x": [1, 2, 3]}
    assert pc.read_table(path, filesystem=filesystem).to_pydict() == {"x": [1, 2, 3]}
    assert not _leftovers(tmp_path)
    if isinstance(filesystem, FsspecLike):
        assert filesystem.calls == ["open", "mv", "open"]


@pytest.mark.parametrize("filesystem", _filesystems(), ids=lambda fs: type(fs).__name__)
def test_a_failed_write_through_a_filesystem_leaves_nothing(tmp_path, filesystem) -> None:
    path = tmp_path / "out.parquet"
    path.write_bytes(b"old")
    schema = pc.Table.from_pydict({"x": [1]}).schema
    with pytest.raises(pc.SchemaError), pc.ParquetWriter(str(path), schema, filesystem=filesystem) as writer:
        writer.write_table({"y": ["not the schema"]})
    assert path.read_bytes() == b"old" and not _leftovers(tmp_path)


def test_a_uri_is_written_and_read_through_its_filesystem(tmp_path) -> None:
    pytest.importorskip("pyarrow.fs")
    uri = (tmp_path / "by uri.parquet").as_uri()
    pc.write_table({"x": [1, 2]}, uri)
    assert (tmp_path / "by uri.parquet").exists() and not _leftovers(tmp_path)
    assert pc.read_table(uri).to_pydict() == {"x": [1, 2]}


def test_errors_name_the_path_asked_for(tmp_path) -> None:
    """A missing folder or a folder in the file's place is named as given, not as the temporary file."""
    target = tmp_path / "missing" / "x.parquet"
    with pytest.raises(FileNotFoundError) as caught:
        open_sink(str(target))
    assert caught.value.filename == str(target)
    (tmp_path / "adir").mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        pc.write_table({"a": [1]}, tmp_path / "adir")
    assert caught.value.filename == str(tmp_path / "adir")
    assert os.listdir(tmp_path / "adir") == [] and sorted(os.listdir(tmp_path)) == ["adir"]


def test_a_text_file_is_refused_before_writing(tmp_path) -> None:
    with open(tmp_path / "t.parquet", "w") as text, pytest.raises(TypeError, match="binary mode"):
        pc.write_table({"a": [1]}, text)
    assert (tmp_path / "t.parquet").read_bytes() == b""


@pytest.mark.parametrize("filesystem", _filesystems(), ids=lambda fs: type(fs).__module__.split(".")[0])
def test_errors_through_a_filesystem_name_the_path_asked_for(tmp_path, filesystem) -> None:
    target = str(tmp_path / "missing" / "x.parquet")
    with pytest.raises(FileNotFoundError) as caught:
        pc.write_table({"a": [1]}, target, filesystem=filesystem)
    assert caught.value.filename == target and ".tmp" not in str(caught.value)
