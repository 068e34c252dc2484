"""Test helper: encrypt an existing plaintext Parquet file module by module.

Until the writer calls ``parquet_codec.crypto`` itself, this exercises the
writer-side API (FileEncryptor, ColumnChunkEncryptor.seal_page,
seal_column_chunk, footer_bytes) end to end: pages are copied as stored,
encrypted, and the footer is rewritten with the new offsets. Page indexes and
bloom filters of the input are dropped.
"""

from __future__ import annotations

import copy

from parquet_codec.crypto import FileEncryptionProperties, FileEncryptor, footer_bytes
from parquet_codec.format.ttypes import PageType
from parquet_codec.io import open_source
from parquet_codec.metadata import read_footer
from parquet_codec.page import iter_pages
from parquet_codec.thrift_io import serialize


def reencrypt(plain: bytes, properties: FileEncryptionProperties, *, aad_file_unique: bytes | None = None) -> bytes:
    """``plain`` (a plaintext-footer, unencrypted file) encrypted with ``properties``."""
    source = open_source(plain)
    metadata = read_footer(source)
    footer = metadata.to_thrift()
    encryptor = FileEncryptor(properties, aad_file_unique)
    paths = [leaf.dotted_path for leaf in metadata.schema.leaves]
    properties.check_columns(paths)
    out = bytearray(encryptor.magic)
    for rg_index, group in enumerate(footer.row_groups):
        group.ordinal = rg_index
        start = len(out)
        for col_index, chunk in enumerate(group.columns):
            _copy_chunk(source, out, encryptor, rg_index, col_index, chunk, paths[col_index])
        group.total_compressed_size = len(out) - start
        group.file_offset = start
    out += footer_bytes(footer, encryptor)
    return bytes(out)


def _copy_chunk(source, out: bytearray, encryptor: FileEncryptor, rg: int, col: int, chunk, path: str) -> None:
    meta = chunk.meta_data
    column = encryptor.column(rg, col, path)
    first = meta.dictionary_page_offset if meta.dictionary_page_offset else meta.data_page_offset
    data = source.read(first, meta.total_compressed_size)
    chunk_start = len(out)
    meta.dictionary_page_offset = None
    data_ordinal = 0
    for page in iter_pages(data, first, meta.num_values):
        header = copy.deepcopy(page.header)
        if page.type == PageType.DICTIONARY_PAGE:
            meta.dictionary_page_offset = len(out)
        elif data_ordinal == 0:
            meta.data_page_offset = len(out)
        if column is None:
            stored_header, body = serialize(header), bytes(page.body)
        else:
            ordinal = None if page.type == PageType.DICTIONARY_PAGE else data_ordinal
            stored_header, body = column.seal_page(header, bytes(page.body), ordinal)
        if page.type != PageType.DICTIONARY_PAGE:
            data_ordinal += 1
        out += stored_header + body
    meta.total_compressed_size = len(out) - chunk_start
    meta.bloom_filter_offset = meta.bloom_filter_length = None
    chunk.file_offset = chunk_start
    chunk.column_index_offset = chunk.column_index_length = None
    chunk.offset_index_offset = chunk.offset_index_length = None
    encryptor.seal_column_chunk(chunk, rg, col, path)
