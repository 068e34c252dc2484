"""The package's one error hierarchy.

Every failure caused by the bytes of a file (or by a request the package
cannot serve) is a :class:`ParquetError`. Low layers know only offsets inside
the buffer they were given; higher layers attach where that buffer came from
(row group, column, page, file offset) with :meth:`ParquetError.add_context`
as the error travels up, so the final message names the place in the file.
"""

from __future__ import annotations

_CONTEXT_ORDER = ("file", "row_group", "column", "page", "file_offset")


class ParquetError(Exception):
    """Base of every error the package raises on bad input."""

    def __init__(self, message: str, **context: object) -> None:
        super().__init__(message)
        self.message = message
        self.context: dict[str, object] = {k: v for k, v in context.items() if v is not None}

    def add_context(self, **context: object) -> ParquetError:
        """Record where the failing bytes were; inner (earlier) values win."""
        for key, value in context.items():
            if value is not None:
                self.context.setdefault(key, value)
        return self

    def __str__(self) -> str:
        if not self.context:
            return self.message
        keys = sorted(self.context, key=lambda k: (_CONTEXT_ORDER.index(k) if k in _CONTEXT_ORDER else 99, k))
        where = ", ".join(f"{k.replace('_', ' ')} {self.context[k]!r}" if k == "column" else f"{k.replace('_', ' ')} {self.context[k]}" for k in keys)
        return f"{self.message} ({where})"


class CorruptFileError(ParquetError, ValueError):
    """The bytes contradict the format: truncated, out of range, inconsistent."""


class MetadataError(CorruptFileError):
    """A Thrift structure (footer, page header, index) cannot be parsed or is invalid."""


class DecodingError(CorruptFileError):
    """An encoded payload (levels, values, dictionary) cannot be decoded."""


class DecompressionError(CorruptFileError):
    """A compressed page does not decompress to its declared size."""


class ChecksumError(CorruptFileError):
    """A page's CRC-32 does not match its bytes."""


class SchemaError(ParquetError, ValueError):
    """A schema is malformed, or data does not fit the schema it is given."""


class UnsupportedError(ParquetError, NotImplementedError):
    """A valid feature of the format this package does not implement (e.g. LZO)."""


class ResourceLimitError(ParquetError, MemoryError):
    """Honouring the file would exceed a configured memory or size limit."""


class DecryptionError(ParquetError):
    """A module cannot be decrypted or authenticated (wrong key, tampering)."""


class EncryptionError(ParquetError):
    """Encryption properties are invalid or cannot be applied."""


__all__ = [
    "ParquetError",
    "CorruptFileError",
    "MetadataError",
    "DecodingError",
    "DecompressionError",
    "ChecksumError",
    "SchemaError",
    "UnsupportedError",
    "ResourceLimitError",
    "DecryptionError",
    "EncryptionError",
]
