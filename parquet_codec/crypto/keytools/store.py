"""External key material: the sidecar ``_KEY_MATERIAL_FOR_<file name>.json``
beside a data file (parquet-java's HadoopFSKeyMaterialStore; pyarrow's
FileSystemKeyMaterialStore). It is one JSON object mapping key ids in the
file ("footerKey", "columnKey0", ...) to key material JSON text.
"""

from __future__ import annotations

import contextlib
import json
import os

from parquet_codec.crypto.keytools.material import parse_json
from parquet_codec.errors import DecryptionError, EncryptionError

SIDECAR_PREFIX = "_KEY_MATERIAL_FOR_"
SIDECAR_SUFFIX = ".json"


def sidecar_path(file_path: str | os.PathLike) -> str:
    """Where the key material of ``file_path`` lives."""
    path = os.fspath(file_path)
    folder, name = os.path.split(path)
    return os.path.join(folder, f"{SIDECAR_PREFIX}{name}{SIDECAR_SUFFIX}")


class KeyMaterialStore:
    """The key material of one data file, kept outside it."""

    def __init__(self, file_path: str | os.PathLike) -> None:
        self.file_path = os.fspath(file_path)
        self.path = sidecar_path(file_path)
        self._materials: dict[str, str] | None = None

    def add(self, key_id_in_file: str, material: str) -> None:
        if self._materials is None:
            self._materials = {}
        self._materials[key_id_in_file] = material

    def save(self, file_path: str | os.PathLike | None = None) -> None:
        """Write the sidecar atomically (a reader never sees half of it); the writer
        calls this when it commits the data file, naming where that file goes
        (``file_path``; default: the path given at creation)."""
        if not self._materials:
            raise EncryptionError("no key material to store")
        path = self.path if file_path is None else sidecar_path(file_path)
        temporary = f"{path}.tmp-{os.getpid()}"
        try:
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump(self._materials, handle, separators=(",", ":"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise EncryptionError(f"cannot write the external key material {path}: {exc.strerror}") from None

    def get(self, key_id_in_file: str) -> str:
        if self._materials is None:
            self._materials = self._load()
        material = self._materials.get(key_id_in_file)
        if not isinstance(material, str):
            raise DecryptionError(f"key material {key_id_in_file!r} is not in {self.path}")
        return material

    def _load(self) -> dict[str, str]:
        try:
            with open(self.path, "rb") as handle:
                text = handle.read()
        except OSError as exc:
            raise DecryptionError(f"cannot read the external key material {self.path}: {exc.strerror}") from None
        return parse_json(text, f"external key material {self.path}")  # type: ignore[return-value]


__all__ = ["KeyMaterialStore", "SIDECAR_PREFIX", "sidecar_path"]
