"""Module AADs (Parquet Modular Encryption, section 4.4 "Additional Authenticated Data").

Every GCM-encrypted module is authenticated together with an AAD that names
the file and the module's place in it, so a module moved to another place
(another page, column, row group or file) fails authentication.

    file AAD   = aad_prefix + aad_file_unique
    module AAD = file AAD + module type (1 byte)
                 [+ row group ordinal + column ordinal (int16 LE each), all but the footer]
                 [+ page ordinal (int16 LE), data pages and data page headers only]
"""

from __future__ import annotations

import struct
from enum import IntEnum

from parquet_codec.errors import EncryptionError

# Ordinals are 2-byte signed shorts in the AAD (section 4.4.2), so a file
# cannot hold more than this many row groups, columns or pages per chunk when
# encrypted (parquet-java and Arrow C++ enforce the same limit).
MAX_ORDINAL = 0x7FFF


class ModuleType(IntEnum):
    """The module types of section 4.4.2 and their one-byte AAD codes."""

    FOOTER = 0
    COLUMN_META_DATA = 1
    DATA_PAGE = 2
    DICTIONARY_PAGE = 3
    DATA_PAGE_HEADER = 4
    DICTIONARY_PAGE_HEADER = 5
    COLUMN_INDEX = 6
    OFFSET_INDEX = 7
    BLOOM_FILTER_HEADER = 8
    BLOOM_FILTER_BITSET = 9

    @property
    def label(self) -> str:
        """A readable name for error messages ("data page header")."""
        return _LABELS[self]

    @property
    def has_page_ordinal(self) -> bool:
        return self in (ModuleType.DATA_PAGE, ModuleType.DATA_PAGE_HEADER)

    @property
    def is_page(self) -> bool:
        """Pages proper: the modules AES_GCM_CTR_V1 encrypts with CTR (section 4.2.2)."""
        return self in (ModuleType.DATA_PAGE, ModuleType.DICTIONARY_PAGE)


_LABELS = {t: t.name.lower().replace("_", " ").replace("meta data", "metadata") for t in ModuleType}
#: The modules AES_GCM_CTR_V1 encrypts with CTR.
PAGE_TYPES = frozenset(t for t in ModuleType if t.is_page)


def file_aad(aad_prefix: bytes | None, aad_file_unique: bytes | None) -> bytes:
    """The file part of every module AAD: the (optional) prefix, then the file's unique id."""
    return bytes(aad_prefix or b"") + bytes(aad_file_unique or b"")


def _ordinal(value: int, what: str) -> bytes:
    if not 0 <= value <= MAX_ORDINAL:
        raise EncryptionError(f"{what} ordinal {value} does not fit the 16-bit AAD field (max {MAX_ORDINAL})")
    return struct.pack("<h", value)


def module_aad(
    file_aad_bytes: bytes,
    module_type: ModuleType,
    row_group: int | None = None,
    column: int | None = None,
    page: int | None = None,
) -> bytes:
    """The AAD of one module, per the table of section 4.4.2."""
    module_type = ModuleType(module_type)
    if module_type == ModuleType.FOOTER:
        return file_aad_bytes + b"\x00"
    if row_group is None or column is None:
        raise EncryptionError(f"{module_type.label} AAD needs a row group and a column ordinal")
    aad = file_aad_bytes + bytes((module_type,)) + _ordinal(row_group, "row group") + _ordinal(column, "column")
    if module_type.has_page_ordinal:
        if page is None:
            raise EncryptionError(f"{module_type.label} AAD needs a page ordinal")
        aad += _ordinal(page, "page")
    return aad


def footer_aad(file_aad_bytes: bytes) -> bytes:
    return module_aad(file_aad_bytes, ModuleType.FOOTER)


class ChunkAads:
    """The module AADs of one column chunk, as :func:`module_aad` builds them, with
    everything but the page ordinal built once: a chunk asks for one or two per page."""

    __slots__ = ("_prefixes",)

    def __init__(self, file_aad_bytes: bytes, row_group: int, column: int) -> None:
        ordinals = _ordinal(row_group, "row group") + _ordinal(column, "column")
        self._prefixes = {t: file_aad_bytes + bytes((t,)) + ordinals for t in ModuleType if t != ModuleType.FOOTER}

    def __call__(self, module_type: ModuleType, page: int | None = None) -> bytes:
        prefix = self._prefixes[module_type]
        if module_type not in _PAGE_ORDINAL_TYPES:
            return prefix
        if page is None:
            raise EncryptionError(f"{ModuleType(module_type).label} AAD needs a page ordinal")
        return prefix + _ordinal(page, "page")


_PAGE_ORDINAL_TYPES = frozenset(t for t in ModuleType if t.has_page_ordinal)


__all__ = ["MAX_ORDINAL", "PAGE_TYPES", "ChunkAads", "ModuleType", "file_aad", "footer_aad", "module_aad"]
