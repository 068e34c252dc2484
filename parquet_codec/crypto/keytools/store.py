"""External key material: the sidecar ``_KEY_MATERIAL_FOR_<file name>.json``
beside a data file (parquet-java's HadoopFSKeyMaterialStore; pyarrow's
FileSystemKeyMaterialStore). It is one JSON object mapping key ids in the
file ("footerKey", "columnKey0", ...) to key material JSON text.

The sidecar lives on the local disk, or on the pyarrow or fsspec filesystem
the data file is on. It is always replaced whole: written to a temporary
file beside it, then moved over it, so a reader never sees half of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
from typing import Any

from parquet_codec.crypto.keytools.material import KeyMaterial, parse_json
from parquet_codec.errors import DecryptionError, EncryptionError
from parquet_codec.filesystems import Filesystem

SIDECAR_PREFIX = "_KEY_MATERIAL_FOR_"
SIDECAR_SUFFIX = ".json"
_TEMPORARY_PREFIX = "_TMP"


def sidecar_path(file_path: str | os.PathLike, filesystem: Any = None) -> str:
    """Where the key material of ``file_path`` lives (on ``filesystem``, when given)."""
    path = os.fspath(file_path)
    split, join = (os.path.split, os.path.join) if filesystem is None else (posixpath.split, posixpath.join)
    folder, name = split(path)
    return join(folder, f"{SIDECAR_PREFIX}{name}{SIDECAR_SUFFIX}")


class KeyMaterialStore:
    """The key material of one data file, kept outside it (on ``filesystem``:
    a pyarrow or fsspec filesystem; None: the local disk)."""

    def __init__(self, file_path: str | os.PathLike, filesystem: Any = None) -> None:
        self.file_path = os.fspath(file_path)
        self.filesystem = filesystem
        self.path = sidecar_path(file_path, filesystem)
        self._materials: dict[str, str] | None = None

    def add(self, key_id_in_file: str, material: str) -> None:
        if self._materials is None:
            self._materials = {}
        self._materials[key_id_in_file] = material

    def save(self, file_path: str | os.PathLike | None = None, filesystem: Any = None) -> None:
        """Write the sidecar atomically; the writer calls this when it commits
        the data file, naming where that file went (``file_path``, on
        ``filesystem``; default: the path and filesystem given at creation)."""
        if not self._materials:
            raise EncryptionError("no key material to store")
        if file_path is not None:
            path = sidecar_path(file_path, filesystem)
        else:
            path, filesystem = self.path, self.filesystem
        text = json.dumps(self._materials, separators=(",", ":"))
        try:
            if filesystem is None:
                _replace_local(path, text)
            else:
                _replace_on(Filesystem(filesystem), path, text)
        except OSError as exc:
            raise EncryptionError(f"cannot write the external key material {path}: {exc.strerror or exc}") from None

    def get(self, key_id_in_file: str) -> str:
        material = self._loaded().get(key_id_in_file)
        if not isinstance(material, str):
            raise DecryptionError(f"key material {key_id_in_file!r} is not in {self.path}")
        return material

    def material(self, key_id_in_file: str) -> KeyMaterial:
        """The key material of ``key_id_in_file``, parsed."""
        text = self.get(key_id_in_file)
        return KeyMaterial.parse(parse_json(text, f"key material {key_id_in_file!r} in {self.path}"))

    def key_ids(self) -> list[str]:
        """The key ids in the file that the sidecar holds material for."""
        return list(self._loaded())

    def _loaded(self) -> dict[str, str]:
        if self._materials is None:
            self._materials = self._load()
        return self._materials

    def _load(self) -> dict[str, str]:
        try:
            if self.filesystem is None:
                with open(self.path, "rb") as handle:
                    text = handle.read()
            else:
                with Filesystem(self.filesystem).open_input(self.path) as handle:
                    text = handle.read()
        except OSError as exc:
            raise DecryptionError(f"cannot read the external key material {self.path}: "
                                  f"{exc.strerror or exc}") from None
        return parse_json(text, f"external key material {self.path}")  # type: ignore[return-value]


def _replace_local(path: str, text: str) -> None:
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _replace_on(filesystem: Filesystem, path: str, text: str) -> None:
    folder, name = posixpath.split(path)
    temporary = posixpath.join(folder, f"{_TEMPORARY_PREFIX}{name}")  # as Arrow's and parquet-java's stores name it
    try:
        with filesystem.open_output(temporary) as handle:
            handle.write(text.encode("utf-8"))
        filesystem.move(temporary, path)
    except Exception as exc:  # a filesystem's own errors are not all OSErrors
        with contextlib.suppress(Exception):
            filesystem.delete_file(temporary)
        raise OSError(str(exc)) from exc


__all__ = ["KeyMaterialStore", "SIDECAR_PREFIX", "sidecar_path"]
