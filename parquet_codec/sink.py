"""Where a writer's bytes go: a file published only when complete.

A path is written to a temporary file beside it and renamed into place on
commit (after an fsync), so a reader never sees a half-written file and a
failed write leaves the old file untouched; the new file gets the mode a
plain ``open`` would give it. A symbolic link is followed (the file it
names is replaced, as writing through it would); a path that is not a
regular file (a FIFO, a device) is written directly. With a filesystem
(pyarrow's ``FileSystem`` or an fsspec-style one) the same is done through
its calls: write a temporary path, then move it into place. A caller's file
object is written as given.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import posixpath
import stat
import tempfile
import uuid
from collections.abc import Callable
from typing import Any, BinaryIO

from parquet_codec.filesystems import Filesystem, filesystem_of_uri, local_path


def _published_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where the system tells it
    (changing it, even for an instant, affects files other threads create)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o077)  # the restrictive side while it is briefly changed
    os.umask(mask)
    return mask


class Sink:
    """Sequential output with a position counter: a temporary file renamed on
    commit, or a caller's file object."""

    def __init__(self, where: str | os.PathLike | BinaryIO) -> None:
        self.position = 0
        self.owned = False  # a handle opened here, closed on commit
        if isinstance(where, (str, os.PathLike)):
            self.target: str | None = os.path.realpath(local_path(where))
            if _special(self.target):  # nothing to publish atomically: write it as it is
                self.temp, self.handle, self.owned = None, open(self.target, "wb"), True  # noqa: SIM115 (closed on commit or abort)
                return
            if os.path.isdir(self.target):  # refused before any byte is written, as open() would refuse it
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), self.target)
            folder, name = os.path.split(self.target)
            try:
                fd, self.temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            except OSError as exc:  # a missing or unwritable folder: name the file asked for, not the temporary one
                raise type(exc)(exc.errno, exc.strerror, self.target) from None
            # mkstemp creates the file private (0600); the published file gets the
            # mode a plain open() would give it: the replaced file's, or 0666 less the umask.
            os.fchmod(fd, _published_mode(self.target))
            self.handle: BinaryIO = os.fdopen(fd, "wb")
        elif isinstance(where, io.TextIOBase):
            raise TypeError(f"cannot write Parquet to a text file ({getattr(where, 'name', type(where).__name__)}): "
                            "open it in binary mode ('wb')")
        elif hasattr(where, "write"):
            self.target, self.temp, self.handle = None, None, where
        else:
            raise TypeError(f"cannot write Parquet to {type(where).__name__}")

    def write(self, data: bytes) -> None:
        self.handle.write(data)
        self.position += len(data)

    def commit(self, before_publish: Callable[[], None] | None = None) -> None:
        """Make the bytes durable, run ``before_publish`` (companion files), then publish."""
        if self.temp is None:
            if hasattr(self.handle, "flush"):
                self.handle.flush()
            if self.owned:
                self.handle.close()
            if before_publish is not None:
                before_publish()
            return
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        if before_publish is not None:
            before_publish()
        os.replace(self.temp, self.target)
        self.temp = None
        _fsync_folder(os.path.dirname(self.target))

    def abort(self) -> None:
        """Drop the temporary file; the target is left as it was."""
        if self.temp is None:
            if self.owned:
                self.handle.close()
            return
        try:
            self.handle.close()
        finally:
            self._remove(self.temp)
            self.temp = None

    def _remove(self, path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _special(path: str) -> bool:
    """Whether ``path`` exists and is not a regular file (or a folder, which open refuses)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _fsync_folder(folder: str) -> None:
    """Make the rename durable; not every platform can open a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class FilesystemSink(Sink):
    """A path written through a filesystem: a temporary path moved into place on commit."""

    def __init__(self, where: str, filesystem: Any) -> None:
        self.position, self.owned = 0, False
        self.filesystem = Filesystem(filesystem)
        self.target = local_path(where, filesystem)
        folder, name = posixpath.split(self.target)
        self.temp = posixpath.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
        try:
            self.handle = self.filesystem.open_output(self.temp)
        except OSError as exc:  # a missing or unwritable folder: name the file asked for, not the temporary one
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise type(exc)(exc.errno, reason, self.target) from exc

    def commit(self, before_publish: Callable[[], None] | None = None) -> None:
        self.handle.close()
        if before_publish is not None:
            before_publish()
        self.filesystem.move(self.temp, self.target)
        self.temp = None

    def _remove(self, path: str) -> None:
        with contextlib.suppress(OSError):
            self.filesystem.delete_file(path)


def open_sink(where: str | os.PathLike | BinaryIO, filesystem: Any = None) -> Sink:
    """The sink for ``where``: a path (through ``filesystem`` when given, or the
    filesystem of a URI such as "s3://bucket/key") or a file object."""
    if filesystem is None and isinstance(where, str) and "://" in where:
        filesystem, where = filesystem_of_uri(where)
    if filesystem is not None and isinstance(where, (str, os.PathLike)):
        return FilesystemSink(os.fspath(where), filesystem)
    return Sink(where)


__all__ = ["FilesystemSink", "Sink", "open_sink"]
