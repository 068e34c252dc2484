"""Fuzz targets: each takes arbitrary bytes and exercises one layer of the reader.

* ``read``: the whole read path (footer, every row group, column, page, row;
  ``to_pylist`` and ``to_arrow``), under :data:`MEMORY_LIMIT`.
* ``footer``: the lazy footer parser and the schema built from it.
* ``decode``: every decoder and decompressor; the first :data:`PARAMS` bytes
  choose the decoder and its parameters (see :func:`decode_params`), the rest
  is the payload.
* ``decrypt``: the read path of encrypted files, with the corpus's known keys.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from parquet_codec import compression
from parquet_codec.crypto import FileDecryptionProperties
from parquet_codec.encodings import (
    BitPacked,
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    RleBitPackedHybrid,
    decode_indices,
    decode_plain,
)
from parquet_codec.encodings.rle_batch import decode_streams
from parquet_codec.errors import DecryptionError, ParquetError
from parquet_codec.format.ttypes import Type
from parquet_codec.io import BufferSource
from parquet_codec.limits import memory_budget
from parquet_codec.metadata import MAGIC, FileMetadata, read_footer
from parquet_codec.metadata_views import FileMetaData
from parquet_codec.reader import ParquetFile

try:
    import pyarrow  # noqa: F401

    HAVE_ARROW = True
except ImportError:  # pragma: no cover - pyarrow is optional
    HAVE_ARROW = False

# Bytes of declared sizes one fuzzed read may allocate (limits.memory_budget).
MEMORY_LIMIT = 16 * 2**20


def _read(pf: ParquetFile) -> None:
    table = pf.read()
    for name in table.column_names:
        table.column(name)
    if HAVE_ARROW:
        table.to_arrow()
    table.to_pylist()


def read(data: bytes) -> None:
    """Open ``data`` as a file and read everything in it."""
    with ParquetFile(data, memory_limit=MEMORY_LIMIT) as pf:
        _read(pf)


def footer(data: bytes) -> None:
    """Parse ``data`` as a whole file's footer when it has the magic, else as a bare FileMetaData."""
    if data[:4] == MAGIC:
        _touch_footer(read_footer(BufferSource(data)))
    else:
        _touch_footer(FileMetadata(data))


def _touch_footer(meta: FileMetadata) -> None:
    meta.writer  # noqa: B018 - every accessor parses something
    meta.key_value_metadata  # noqa: B018
    schema = meta.schema
    schema.fields  # noqa: B018
    str(schema)
    for index in range(meta.num_row_groups):
        meta.row_group(index)
    view = FileMetaData(meta)
    view.to_dict()  # pyarrow's view: typed statistics of every chunk
    for column in view.schema:  # and its schema view: Arrow's names for every type
        repr(column)
        column.logical_type.to_json()


# -- decoders ---------------------------------------------------------------
class DecodeParams(NamedTuple):
    decoder: int
    width: int  # bit width, physical type or codec, as the decoder needs
    count: int
    type_length: int
    size: int  # declared uncompressed size


_PARAMS = struct.Struct("<BBIiI")
PARAMS = _PARAMS.size
_PHYSICAL = (Type.BOOLEAN, Type.INT32, Type.INT64, Type.INT96, Type.FLOAT, Type.DOUBLE, Type.BYTE_ARRAY,
             Type.FIXED_LEN_BYTE_ARRAY)


def decode_params(data: bytes) -> tuple[DecodeParams, memoryview]:
    """The parameters at the start of ``data`` (zero-padded) and the payload after them."""
    head = data[:PARAMS].ljust(PARAMS, b"\0")
    decoder, width, count, type_length, size = _PARAMS.unpack(head)
    # Counts: mostly small, sometimes the full 32-bit range (huge declared counts).
    if not count & 0x80000000:
        count &= 0xFFFF
    return DecodeParams(decoder, width, count & 0x7FFFFFFF, type_length, size & 0x7FFFFFFF), memoryview(data)[PARAMS:]


def encode_params(params: DecodeParams, payload: bytes) -> bytes:
    """Inverse of :func:`decode_params` (counts above 0xFFFF get the huge-count flag)."""
    count = params.count | (0x80000000 if params.count > 0xFFFF else 0)
    return _PARAMS.pack(params.decoder, params.width, count, params.type_length, params.size) + payload


def _physical(p: DecodeParams) -> int:
    return _PHYSICAL[p.width % len(_PHYSICAL)]


def level_streams_payload(streams: list[tuple[bytes, int]]) -> bytes:
    """The payload :func:`_level_streams` reads: the stream count, each
    stream's value count and byte length (u32), then the streams."""
    head = bytes([len(streams) - 1]) + b"".join(struct.pack("<I", c) for _, c in streams)
    return head + b"".join(struct.pack("<I", len(s)) for s, _ in streams) + b"".join(s for s, _ in streams)


def _level_streams(p: DecodeParams, d: memoryview) -> None:
    """Many level streams decoded together (what a column chunk's pages get)
    must agree with decoding them one by one, or decline (None)."""
    width, k = p.width % 32 + 1, (d[0] % 32 + 1) if len(d) else 0
    head = 1 + 8 * k
    if not k or len(d) <= head:
        return
    counts = np.frombuffer(d[1 : 1 + 4 * k], dtype="<u4").astype(np.int64) % (1 << 16)
    data = np.frombuffer(d[head:], dtype=np.uint8)
    cuts = np.frombuffer(d[1 + 4 * k : head], dtype="<u4").astype(np.int64).cumsum() % len(data)
    bounds = np.unique(np.concatenate(([0], cuts, [len(data)])))
    counts = np.resize(counts, len(bounds) - 1)  # (the cuts may make one stream more)
    got = decode_streams(data, bounds, counts, width, np.uint8 if width <= 8 else None)
    if got is None:
        return
    try:
        expected = [RleBitPackedHybrid.decode(data[a:b], width, int(c))[0]
                    for a, b, c in zip(bounds[:-1].tolist(), bounds[1:].tolist(), counts, strict=True)]
    except ParquetError as exc:
        raise AssertionError(f"decode_streams accepted streams one of which is malformed: {exc}") from None
    if not np.array_equal(got, np.concatenate(expected)):
        raise AssertionError("decode_streams disagrees with decoding the streams one by one")


_DECODERS: tuple[Callable[[DecodeParams, memoryview], object], ...] = (
    lambda p, d: decode_plain(d, _physical(p), p.count, type_length=p.type_length),
    lambda p, d: RleBitPackedHybrid.decode(d, p.width % 66, p.count, length_prefixed=bool(p.width & 0x80)),
    lambda p, d: BitPacked.decode(d, p.width % 66, p.count),
    lambda p, d: decode_indices(d, p.count),
    lambda p, d: DeltaBinaryPacked.decode(d, (Type.INT32, Type.INT64)[p.width & 1], p.count),
    lambda p, d: DeltaLengthByteArray.decode(d, p.count),
    lambda p, d: DeltaByteArray.decode(d, _physical(p), p.count, type_length=p.type_length),
    lambda p, d: ByteStreamSplit.decode(d, _physical(p), p.count, type_length=p.type_length),
    lambda p, d: compression.decompress(p.width % 9, d, p.size),
    _level_streams,
)
DECODER_NAMES = ("plain", "rle", "bit_packed", "dictionary_indices", "delta_binary_packed",
                 "delta_length_byte_array", "delta_byte_array", "byte_stream_split", "decompress", "level_streams")


def decode(data: bytes) -> None:
    """Run the decoder the parameters choose on the payload, under :data:`MEMORY_LIMIT`."""
    params, payload = decode_params(data)
    with memory_budget(MEMORY_LIMIT):
        _DECODERS[params.decoder % len(_DECODERS)](params, payload)


# -- decryption -------------------------------------------------------------
# The corpus's keys (parquet-testing NOTES.md); our own encrypted seeds use the 128-bit ones.
KEY_FOOTER = b"0123456789012345"
KEY_COLUMNS = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
_KEY_FOOTER_256 = b"01234567890123456789012345678901"
_COLUMNS_256 = ("double_field", "float_field", "boolean_field", "int32_field", "ba_field", "flba_field",
                "int64_field.list.element", "int96_field")
_KEYS_256 = {c: f"1234567890123456789012345678901{n}".encode() for n, c in enumerate(_COLUMNS_256, start=2)}


def decryption_properties() -> list[FileDecryptionProperties]:
    """The key sets tried in turn: 128-bit, 128-bit with the AAD prefix "tester", 256-bit."""
    return [FileDecryptionProperties(KEY_FOOTER, KEY_COLUMNS),
            FileDecryptionProperties(KEY_FOOTER, KEY_COLUMNS, aad_prefix=b"tester"),
            FileDecryptionProperties(_KEY_FOOTER_256, _KEYS_256)]


_PROPERTIES: list[FileDecryptionProperties] = []


def decrypt(data: bytes) -> None:
    """Read an encrypted file with each known key set until one opens it."""
    if not _PROPERTIES:
        _PROPERTIES.extend(decryption_properties())
    for properties in _PROPERTIES[:-1]:
        try:
            with ParquetFile(data, decryption=properties, memory_limit=MEMORY_LIMIT) as pf:
                _read(pf)
            return
        except DecryptionError:
            continue
        except ParquetError:
            raise
    with ParquetFile(data, decryption=_PROPERTIES[-1], memory_limit=MEMORY_LIMIT) as pf:
        _read(pf)


TARGETS: dict[str, Callable[[bytes], None]] = {"read": read, "footer": footer, "decode": decode, "decrypt": decrypt}
# Targets whose errors must say where (a file offset, row group, column or page).
NEEDS_WHERE = {"read": True, "footer": True, "decode": False, "decrypt": True}

__all__ = ["DECODER_NAMES", "level_streams_payload", "MEMORY_LIMIT", "NEEDS_WHERE", "PARAMS", "TARGETS", "DecodeParams", "decode_params",
           "encode_params"]
