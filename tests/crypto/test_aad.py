"""Module AADs: byte layout of section 4.4.2 for every module type."""

from __future__ import annotations

import pytest

from parquet_codec.crypto.aad import MAX_ORDINAL, ChunkAads, ModuleType, file_aad, footer_aad, module_aad
from parquet_codec.errors import EncryptionError

FILE = file_aad(b"prefix", b"\x01\x02\x03\x04\x05\x06\x07\x08")


def test_module_type_codes_follow_the_specification():
    assert [m.value for m in ModuleType] == list(range(10))
    assert ModuleType(4).label == "data page header"
    assert ModuleType.COLUMN_META_DATA.label == "column metadata"


def test_file_aad_is_prefix_then_unique():
    assert FILE == b"prefix\x01\x02\x03\x04\x05\x06\x07\x08"
    assert file_aad(None, b"u") == b"u"


def test_footer_aad_has_only_the_type_byte():
    assert footer_aad(FILE) == FILE + b"\x00"
    assert module_aad(FILE, ModuleType.FOOTER, 5, 6, 7) == FILE + b"\x00"


@pytest.mark.parametrize("module_type", [m for m in ModuleType if m != ModuleType.FOOTER])
def test_module_aad_layout(module_type):
    aad = module_aad(FILE, module_type, row_group=0x0102, column=0x0304, page=0x0506)
    expected = FILE + bytes([module_type]) + b"\x02\x01\x04\x03"
    if module_type in (ModuleType.DATA_PAGE, ModuleType.DATA_PAGE_HEADER):
        expected += b"\x06\x05"  # only data pages and their headers carry a page ordinal
    assert aad == expected


def test_ordinals_are_bounded_by_int16():
    assert module_aad(b"", ModuleType.DATA_PAGE, MAX_ORDINAL, 0, 0)[1:3] == b"\xff\x7f"
    with pytest.raises(EncryptionError, match="row group ordinal 32768"):
        module_aad(b"", ModuleType.DATA_PAGE, MAX_ORDINAL + 1, 0, 0)
    with pytest.raises(EncryptionError, match="page ordinal -1"):
        module_aad(b"", ModuleType.DATA_PAGE, 0, 0, -1)


def test_missing_ordinals_are_an_error():
    with pytest.raises(EncryptionError, match="needs a row group"):
        module_aad(b"", ModuleType.COLUMN_INDEX)
    with pytest.raises(EncryptionError, match="needs a page ordinal"):
        module_aad(b"", ModuleType.DATA_PAGE_HEADER, 0, 0)


@pytest.mark.parametrize("module_type", [m for m in ModuleType if m != ModuleType.FOOTER])
def test_chunk_aads_are_the_module_aads(module_type):
    aads = ChunkAads(FILE, 0x0102, 0x0304)
    for page in (0, 1, 0x0506, MAX_ORDINAL):
        page_part = page if module_type.has_page_ordinal else None
        assert aads(module_type, page_part) == module_aad(FILE, module_type, 0x0102, 0x0304, page)


def test_chunk_aads_check_ordinals():
    with pytest.raises(EncryptionError, match="column ordinal 32768"):
        ChunkAads(FILE, 0, MAX_ORDINAL + 1)
    aads = ChunkAads(FILE, 1, 2)
    with pytest.raises(EncryptionError, match="data page AAD needs a page ordinal"):
        aads(ModuleType.DATA_PAGE)
    with pytest.raises(EncryptionError, match="page ordinal 32768"):
        aads(ModuleType.DATA_PAGE_HEADER, MAX_ORDINAL + 1)
