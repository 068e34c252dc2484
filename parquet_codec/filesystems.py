"""Filesystems besides the local disk: a pyarrow ``FileSystem``, an fsspec one, a URI.

pyarrow and fsspec name the few calls this package makes differently
(``open_input_file`` / ``open``, ``open_output_stream`` / ``open``, ``move`` /
``mv``, ``delete_file`` / ``rm``, ``create_dir`` / ``makedirs``, ...);
:class:`Filesystem` gives each one name. Without a filesystem (None) its
folder calls work on the local disk; local files are opened by ``io`` and
``sink`` themselves.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from typing import Any, BinaryIO

from parquet_codec.errors import ParquetError


class Filesystem:
    """One pyarrow or fsspec filesystem (or the local disk, for folders)."""

    def __init__(self, fs: Any = None) -> None:
        if fs is not None and not (hasattr(fs, "open_input_file") or hasattr(fs, "open")):
            raise TypeError(f"filesystem must be a pyarrow FileSystem or an fsspec-style filesystem, "
                            f"not {type(fs).__name__}")
        self.fs = fs
        self._pyarrow = fs is not None and hasattr(fs, "open_input_file")

    def join(self, *parts: str) -> str:
        return os.path.join(*parts) if self.fs is None else posixpath.join(*parts)

    def open_input(self, path: str) -> BinaryIO:
        return self.fs.open_input_file(path) if self._pyarrow else self.fs.open(path, "rb")

    def open_output(self, path: str) -> BinaryIO:
        return self.fs.open_output_stream(path) if self._pyarrow else self.fs.open(path, "wb")

    def move(self, source: str, target: str) -> None:
        (self.fs.move if self._pyarrow else self.fs.mv)(source, target)

    def delete_file(self, path: str) -> None:
        (self.fs.delete_file if self._pyarrow else self.fs.rm)(path)

    def size(self, path: str) -> int:
        """The size of the file at ``path`` in bytes."""
        if self.fs is None:
            return os.path.getsize(path)
        return self.fs.get_file_info(path).size if self._pyarrow else self.fs.size(path)

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a folder."""
        if self.fs is None:
            return os.path.isdir(path)
        if self._pyarrow:
            from pyarrow.fs import FileType

            return self.fs.get_file_info(path).type == FileType.Directory
        isdir = getattr(self.fs, "isdir", None)  # (an object with only open, mv and rm has files only)
        return bool(isdir(path)) if isdir is not None else False

    def files_under(self, folder: str) -> list[str]:
        """The paths of the files in ``folder`` and its subfolders, sorted."""
        if self.fs is None:
            return sorted(os.path.join(root, name) for root, _, names in os.walk(folder) for name in names)
        if self._pyarrow:
            from pyarrow.fs import FileSelector, FileType

            infos = self.fs.get_file_info(FileSelector(folder, recursive=True))
            return sorted(info.path for info in infos if info.type == FileType.File)
        return sorted(self.fs.find(folder))

    def make_dir(self, folder: str) -> None:
        """Create ``folder`` and its parents; nothing when it exists."""
        if self.fs is None:
            os.makedirs(folder, exist_ok=True)
        elif self._pyarrow:
            self.fs.create_dir(folder, recursive=True)
        else:
            self.fs.makedirs(folder, exist_ok=True)

    def has_entries(self, folder: str) -> bool:
        """Whether ``folder`` exists with anything in it (hidden files count, as for pyarrow)."""
        if self.fs is None:
            return os.path.isdir(folder) and bool(os.listdir(folder))
        if self._pyarrow:
            from pyarrow.fs import FileSelector

            return bool(self.fs.get_file_info(FileSelector(folder, allow_not_found=True)))
        return bool(self.fs.exists(folder) and self.fs.ls(folder, detail=False))

    def clear(self, folder: str) -> None:
        """Delete everything in ``folder`` (files and subfolders), keeping the folder."""
        if self.fs is None:
            for path in [os.path.join(folder, n) for n in os.listdir(folder)] if os.path.isdir(folder) else []:
                shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        elif self._pyarrow:
            self.fs.delete_dir_contents(folder, missing_dir_ok=True)
        elif self.fs.exists(folder):
            for entry in self.fs.ls(folder, detail=False):
                self.fs.rm(entry, recursive=True)


def local_path(path: str | os.PathLike, filesystem: Any = None) -> str:
    """A path as pyarrow takes one: on the local disk (no filesystem, or pyarrow's
    LocalFileSystem) a leading '~' is the home folder; other filesystems get it as it is."""
    path = os.fspath(path)
    local = filesystem is None or (type(filesystem).__name__ == "LocalFileSystem"
                                   and type(filesystem).__module__.startswith("pyarrow"))
    return os.path.expanduser(path) if local else path


def filesystem_of_uri(uri: str) -> tuple[Any, str]:
    """The filesystem and path of a URI ("file:///...", "s3://bucket/key", ...), as
    pyarrow resolves them (needs pyarrow, as pyarrow.parquet does for URIs)."""
    try:
        from pyarrow.fs import FileSystem
    except ImportError:
        raise ParquetError(f"{uri!r} is a URI: opening one needs pyarrow's filesystems "
                           "(or pass filesystem=)") from None
    return FileSystem.from_uri(uri)


__all__ = ["Filesystem", "filesystem_of_uri", "local_path"]
