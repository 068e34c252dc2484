"""Byte sources: the only module that touches files.

Everything above works on byte ranges requested from a :class:`ByteSource`,
so paths, in-memory buffers and file objects are served by the same code.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from parquet_codec.errors import CorruptFileError, ParquetError
from parquet_codec.filesystems import Filesystem, filesystem_of_uri, local_path
from parquet_codec.limits import reserve

Source = str | os.PathLike | bytes | bytearray | memoryview | BinaryIO


class ByteSource:
    """Random access to the bytes of one file."""

    size: int
    name: str

    def read(self, offset: int, length: int) -> memoryview:
        """Exactly ``length`` bytes at ``offset``; a range past the end is corrupt input."""
        if offset < 0 or length < 0 or offset + length > self.size:
            raise CorruptFileError(
                f"byte range {offset}..{offset + length} lies outside the file of {self.size} bytes",
                file_offset=offset,
            )
        return self._read(offset, length)

    def _read(self, offset: int, length: int) -> memoryview:
        raise NotImplementedError

    def close(self) -> None:
        pass


class BufferSource(ByteSource):
    """Any object with the buffer protocol (bytes, mmap, pyarrow.Buffer, ...), read in place."""

    def __init__(self, data: Any, name: str = "<buffer>") -> None:
        view = memoryview(data)
        # A strided view cannot be cast to bytes in place: its bytes are copied once.
        self._view = view.cast("B") if view.c_contiguous else memoryview(view.tobytes())
        self.size = len(self._view)
        self.name = name

    def _read(self, offset: int, length: int) -> memoryview:
        return self._view[offset : offset + length]


class FileSource(ByteSource):
    """A path (opened and owned here) or a seekable binary file object."""

    def __init__(self, handle: BinaryIO, name: str, owned: bool) -> None:
        self._handle = handle
        self._owned = owned
        self.name = name
        if getattr(handle, "closed", False) is True:  # the caller's mistake, as Python's own I/O calls it
            raise ValueError(f"{name} is closed: open the file again to read it")
        try:
            end = handle.seek(0, os.SEEK_END)
            # seek returns the new position in io's protocol, None in some (mmap's, older APIs').
            self.size = end if end is not None else handle.tell()
        except (OSError, ValueError, AttributeError) as exc:
            raise ParquetError(f"cannot seek in {name}: {exc}") from None
        try:
            self._fd: int | None = handle.fileno()
        except (OSError, AttributeError, ValueError):
            self._fd = None
        # A seek and the read after it are one step: threads reading one
        # ParquetFile would otherwise read at each other's positions.
        self._seek_lock = threading.Lock()

    def _read(self, offset: int, length: int) -> memoryview:
        reserve(length, f"a read of {length} bytes at offset {offset}")
        if self._owned and self._handle.closed:
            raise ValueError(f"{self.name} is closed: open the file again to read it")
        if self._fd is not None and self._owned:
            data = self._whole(lambda size, at: os.pread(self._fd, size, at), offset, length)
        else:
            with self._seek_lock:
                self._handle.seek(offset)
                data = self._whole(lambda size, at: self._handle.read(size), offset, length)
        if len(data) != length:
            raise CorruptFileError(f"short read: the file ends {len(data)} bytes into a read of {length} bytes "
                                   f"(it is {self.size} bytes long when opened)", file_offset=offset)
        return memoryview(data)

    def _whole(self, read: Callable[[int, int], Any], offset: int, length: int) -> Any:
        """``length`` bytes from ``offset`` by ``read(size, at)``, read again
        while it returns fewer (raw files, pipes, sockets and network
        filesystems may): only an empty read means the end of the file."""
        data = read(length, offset)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{self.name} gives {type(data).__name__}, not bytes: open it in binary mode ('rb')")
        if len(data) >= length:
            return data
        parts, got = [data], len(data)
        while got < length:
            more = read(length - got, offset + got)
            if not more:
                break
            parts.append(more)
            got += len(more)
        return b"".join(parts)

    def close(self) -> None:
        if self._owned:
            self._handle.close()


def open_source(source: Source | ByteSource, filesystem: Any = None) -> ByteSource:
    """A path, a bytes-like object (an mmap, a pyarrow.Buffer) or a binary file object as a ByteSource;
    a path is opened with ``filesystem`` when given (a pyarrow filesystem's
    ``open_input_file``, or an fsspec-style ``open(path, "rb")``)."""
    if isinstance(source, ByteSource):
        return source
    if filesystem is None and isinstance(source, str) and "://" in source:
        filesystem, source = filesystem_of_uri(source)
    if filesystem is not None and isinstance(source, (str, os.PathLike)):
        path = local_path(source, filesystem)
        return FileSource(Filesystem(filesystem).open_input(path), path, owned=True)
    if isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        return BufferSource(source)
    if isinstance(source, (str, os.PathLike)):
        path = local_path(source)
        return FileSource(open(path, "rb"), path, owned=True)  # noqa: SIM115 - closed by FileSource.close
    if hasattr(source, "read") and hasattr(source, "seek"):
        return FileSource(source, _name_of(source), owned=False)
    if type(source).__module__.startswith("pyarrow") and hasattr(source, "to_pybytes"):
        return BufferSource(source)  # a pyarrow.Buffer, as pyarrow.parquet reads one
    raise TypeError(f"cannot read Parquet from {type(source).__name__}")


def _name_of(handle: Any) -> str:
    """How messages name a caller's file object: its path, or what it is
    (a pipe or socket opened from a descriptor has the descriptor as its name)."""
    name = getattr(handle, "name", None)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if isinstance(name, str):
        return name
    if isinstance(name, int):
        return f"<file descriptor {name}>"
    return f"<{type(handle).__name__}>"


__all__ = ["ByteSource", "BufferSource", "FileSource", "Source", "open_source"]
