"""Byte sources: paths, buffers and file objects serve the same ranges."""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from parquet_codec.errors import CorruptFileError
from parquet_codec.io import open_source


@pytest.fixture
def sources(tmp_path):
    data = bytes(range(256)) * 4
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    handle = open(path, "rb")  # noqa: SIM115
    yield data, [open_source(data), open_source(str(path)), open_source(path), open_source(io.BytesIO(data)),
                 open_source(handle)]
    handle.close()


def test_ranges_agree(sources):
    data, srcs = sources
    for src in srcs:
        assert src.size == len(data)
        assert bytes(src.read(10, 20)) == data[10:30]
        assert bytes(src.read(len(data) - 1, 1)) == data[-1:]
        assert bytes(src.read(5, 0)) == b""


def test_out_of_range_reads_are_corrupt_input(sources):
    data, srcs = sources
    for src in srcs:
        for offset, length in ((len(data), 1), (-1, 2), (0, len(data) + 1), (3, -1)):
            with pytest.raises(CorruptFileError):
                src.read(offset, length)


def test_unknown_source_type():
    with pytest.raises(TypeError):
        open_source(42)


def test_a_closed_file_and_a_text_file_are_named_as_such(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"0123456789")
    source = open_source(str(path))
    source.close()
    with pytest.raises(ValueError, match="is closed"):
        source.read(0, 4)
    with open(path, encoding="latin-1") as text, pytest.raises(TypeError, match="binary mode"):
        open_source(text).read(0, 4)


def test_threads_reading_one_file_object_get_their_own_ranges():
    data = bytes(range(256)) * 64

    class Yielding(io.BytesIO):
        def seek(self, *args):  # lets another thread run between a seek and its read
            where = super().seek(*args)
            time.sleep(0.0005)
            return where

    src = open_source(Yielding(data))
    wrong = []

    def read(start: int) -> None:
        for _ in range(50):
            if bytes(src.read(start, 100)) != data[start : start + 100]:
                wrong.append(start)

    threads = [threading.Thread(target=read, args=(start,)) for start in (0, 1000, 5000, 9000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong


def test_buffers_of_every_kind_are_read_in_place(tmp_path):
    """mmap (whose seek returns None) and pyarrow.Buffer, as pyarrow reads them; a
    strided memoryview and one of another item format give the bytes they span."""
    import mmap

    import pyarrow as pa

    data = bytes(range(256)) * 4
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        source = open_source(mapped)
        assert source.size == len(data) and bytes(source.read(10, 20)) == data[10:30]
        del source
    assert bytes(open_source(pa.py_buffer(data)).read(1000, 24)) == data[1000:]
    doubled = memoryview(bytes(b for b in data for _ in (0, 1)))[::2]
    assert bytes(open_source(doubled).read(3, 5)) == data[3:8]
    assert bytes(open_source(memoryview(data).cast("i")).read(0, 8)) == data[:8]


def test_a_file_object_whose_seek_returns_none(tmp_path):
    data = bytes(range(100))

    class OldStyle:
        def __init__(self) -> None:
            self._inner = io.BytesIO(data)

        def seek(self, offset, whence=0):
            self._inner.seek(offset, whence)  # returns None, as mmap's and some older file APIs do

        def tell(self):
            return self._inner.tell()

        def read(self, n=-1):
            return self._inner.read(n)

    source = open_source(OldStyle())
    assert source.size == 100 and bytes(source.read(90, 10)) == data[90:]


def test_short_reads_are_continued():
    """A file object may return fewer bytes than asked (raw I/O, sockets); only an empty read is the end."""
    data = bytes(range(256)) * 40

    class Trickle(io.RawIOBase):
        def __init__(self) -> None:
            self._inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return True

        def seek(self, offset, whence=0):
            return self._inner.seek(offset, whence)

        def readinto(self, buffer) -> int:
            chunk = self._inner.read(min(len(buffer), 7))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    source = open_source(Trickle())
    assert bytes(source.read(100, 5000)) == data[100:5100]


def test_a_file_that_shrank_after_opening(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(1000))
    source = open_source(path)
    path.write_bytes(bytes(300))
    with pytest.raises(CorruptFileError, match="ends 100 bytes into a read of 500 bytes"):
        source.read(200, 500)
    source.close()


def test_a_file_object_closed_before_reading(tmp_path):
    """A ValueError saying so, as pyarrow and Python's I/O give, not a ParquetError about seeking."""
    import parquet_codec as pc

    path = tmp_path / "f.parquet"
    pc.write_table({"a": [1]}, path)
    handle = open(path, "rb")  # noqa: SIM115
    handle.close()
    with pytest.raises(ValueError, match="is closed") as caught:
        pc.read_table(handle)
    assert not isinstance(caught.value, pc.ParquetError)


def test_a_pipe_is_named_as_a_descriptor():
    """A stream that cannot seek is refused, naming it as a descriptor rather than a bare number."""
    from parquet_codec.errors import ParquetError

    read_end, write_end = os.pipe()
    with open(read_end, "rb") as stream, open(write_end, "wb"), \
            pytest.raises(ParquetError, match=rf"cannot seek in <file descriptor {read_end}>"):
        open_source(stream)
