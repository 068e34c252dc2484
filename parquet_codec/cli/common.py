"""What every subcommand shares: decryption options, opening files, picking
columns, and reaching the bytes and decryptor of one column chunk."""

from __future__ import annotations

import argparse
import base64
import binascii
import contextlib
import functools
import importlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from parquet_codec.column import LEGACY_DICTIONARY_PADDING, check_local, chunk_range
from parquet_codec.errors import ParquetError, SchemaError, UnsupportedError
from parquet_codec.format.ttypes import ColumnChunk, ColumnMetaData
from parquet_codec.io import ByteSource, open_source
from parquet_codec.reader import ParquetFile
from parquet_codec.schema import SchemaNode

KEY_LENGTHS = (16, 24, 32)
_HEX = re.compile(r"[0-9a-fA-F]+")


class UsageError(ParquetError):
    """A command line that cannot be carried out (bad option value, no such column)."""


def non_negative_int(text: str) -> int:
    """An argparse type: a count of 0 or more (rows, characters)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


# ---------------------------------------------------------------- decryption options


def add_decryption_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "decryption", "keys are hex (32/48/64 digits) or base64, or prefixed hex:, base64: or text:")
    group.add_argument("--footer-key", metavar="KEY", help="key of the footer (and of uniformly encrypted columns)")
    group.add_argument("--column-key", metavar="COL:KEY", action="append", default=[],
                       help="key of one column, by dotted path (repeatable)")
    group.add_argument("--aad-prefix", metavar="TEXT", help="AAD prefix of files that do not store theirs")
    group.add_argument("--kms-keys", metavar="ID:KEY,...",
                       help="master keys of an in-memory KMS (parquet.encryption.key.list form, base64 keys)")
    group.add_argument("--kms-client", metavar="MODULE:CALLABLE",
                       help="a KmsClient factory taking a KmsConnectionConfig (as pyarrow's CryptoFactory)")
    group.add_argument("--kms-instance-id", default="", metavar="ID", help="KMS instance id")
    group.add_argument("--kms-instance-url", default="", metavar="URL", help="KMS instance URL")
    group.add_argument("--key-access-token", default="", metavar="TOKEN", help="KMS access token")


def parse_key(text: str, what: str) -> bytes:
    """A 16/24/32-byte AES key given as hex, base64 or (prefixed) text."""
    prefix, sep, rest = text.partition(":")
    if sep and prefix in ("hex", "base64", "text"):
        key = _decode_key(prefix, rest, what)
    elif _HEX.fullmatch(text) and len(text) // 2 in KEY_LENGTHS and len(text) % 2 == 0:
        key = bytes.fromhex(text)
    else:
        key = _decode_key("base64", text, what)
    if len(key) not in KEY_LENGTHS:
        raise UsageError(f"{what} has {len(key)} bytes; AES keys have 16, 24 or 32")
    return key


def _decode_key(kind: str, text: str, what: str) -> bytes:
    try:
        if kind == "hex":
            return bytes.fromhex(text)
        if kind == "text":
            return text.encode("utf-8")
        return base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        raise UsageError(f"{what} is neither hex nor base64 (prefix it with hex:, base64: or text:)") from None


def decryption_for(args: argparse.Namespace, path: str | None) -> object | None:
    """FileDecryptionProperties (explicit keys or a KMS) for one file, or None."""
    footer, columns = getattr(args, "footer_key", None), getattr(args, "column_key", None) or []
    kms = getattr(args, "kms_keys", None) or getattr(args, "kms_client", None)
    aad = getattr(args, "aad_prefix", None)
    if not (footer or columns or kms):
        if aad:
            raise UsageError("--aad-prefix needs keys (--footer-key, --column-key or a KMS)")
        return None
    try:
        from parquet_codec.crypto import FileDecryptionProperties
    except ImportError:  # pragma: no cover - the crypto package ships with the package
        raise UnsupportedError("this build has no decryption support") from None
    if kms:
        return _kms_factory(args).decryption_properties(
            path if path and os.path.exists(path) else None, aad_prefix=aad)
    keys = {}
    for item in columns:
        name, sep, key = item.partition(":")
        if not sep or not name:
            raise UsageError(f"--column-key {item!r} is not COLUMN:KEY")
        keys[name] = parse_key(key, f"key of column {name!r}")
    footer_key = parse_key(footer, "footer key") if footer else None
    return FileDecryptionProperties(footer_key, keys, aad_prefix=aad)


def _kms_factory(args: argparse.Namespace) -> Any:
    from parquet_codec.crypto import CryptoFactory, InMemoryKms, KmsConnectionConfig

    config = KmsConnectionConfig(kms_instance_id=args.kms_instance_id, kms_instance_url=args.kms_instance_url,
                                 key_access_token=args.key_access_token)
    if args.kms_client:
        module, sep, name = args.kms_client.partition(":")
        if not sep:
            raise UsageError(f"--kms-client {args.kms_client!r} is not MODULE:CALLABLE")
        try:
            factory = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise UsageError(f"cannot load KMS client {args.kms_client!r}: {exc}") from None
        return CryptoFactory(factory, config)
    return CryptoFactory(InMemoryKms.from_key_list(args.kms_keys), config)


def open_file(args: argparse.Namespace, path: str, **options: Any) -> ParquetFile:
    """A ParquetFile opened with the command line's decryption options, and
    reads bounded by :func:`memory_limit`."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a folder, not a Parquet file")
    options.setdefault("memory_limit", memory_limit())
    return ParquetFile(path, decryption=decryption_for(args, path), **options)


@functools.cache
def memory_limit() -> int | None:
    """An eighth of the machine's memory: what one read of a command may
    reserve for the sizes a file declares (a read holds a few times what it
    reserves), so a hostile file gets an error, not the out-of-memory killer
    (None where the system does not tell)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 8
    except (AttributeError, ValueError, OSError):
        return None


def expand_paths(paths: Sequence[str]) -> list[str]:
    """Files as given; folders replaced by the Parquet files under them (sorted)."""
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
                found.extend(os.path.join(folder, f) for f in files
                             if not f.startswith((".", "_")) and f.endswith((".parquet", ".parq", ".encrypted")))
            if not found:
                raise UsageError(f"{path}: no Parquet files (*.parquet, *.parq, *.encrypted) in this folder")
            out.extend(sorted(found))
        else:
            out.append(path)
    return out


# ---------------------------------------------------------------- columns


def split_names(values: Sequence[str] | None) -> list[str] | None:
    """``--columns a,b --columns c`` as ["a", "b", "c"]; None when not given."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def select_leaves(pf: ParquetFile, column: str | None) -> list[SchemaNode]:
    """Every leaf, or the leaves at or under ``column`` (a dotted path)."""
    leaves = pf.schema.leaves
    if column is None:
        return list(leaves)
    picked = [leaf for leaf in leaves if leaf.dotted_path == column or leaf.dotted_path.startswith(column + ".")]
    if not picked:
        raise SchemaError(f"no column {column!r}; leaf columns are {[leaf.dotted_path for leaf in leaves]}")
    return picked


def one_leaf(pf: ParquetFile, column: str) -> SchemaNode:
    leaves = select_leaves(pf, column)
    if len(leaves) != 1:
        raise UsageError(f"{column!r} has {len(leaves)} leaf columns; name one of "
                         f"{[leaf.dotted_path for leaf in leaves]}")
    return leaves[0]


# ---------------------------------------------------------------- column chunks


@dataclass
class Chunk:
    """One column chunk: where it is, its (decrypted) metadata and decryptor."""

    row_group: int
    leaf: SchemaNode
    chunk: ColumnChunk
    meta: ColumnMetaData | None
    decryptor: Any

    @property
    def encrypted(self) -> bool:
        return self.chunk.crypto_metadata is not None

    def read_bytes(self, source: ByteSource, padding: int = 0) -> tuple[memoryview, int]:
        """The chunk's page bytes and their file offset (``padding``: see :func:`chunk_padding`)."""
        check_local(self.chunk)
        start, length = chunk_range(self.meta, source.size, padding=padding)
        return source.read(start, length), start


def chunk_padding(pf: ParquetFile) -> int:
    """Bytes to read past a chunk's declared end: parquet-mr before 1.2.9
    left part of the dictionary page out of total_compressed_size (PARQUET-816)."""
    application, version = pf.metadata.writer
    legacy = application.lower() == "parquet-mr" and (not version or version < (1, 2, 9))
    return LEGACY_DICTIONARY_PADDING if legacy else 0


def chunk_of(pf: ParquetFile, row_group: int, leaf: SchemaNode) -> Chunk:
    """The chunk of ``leaf`` in ``row_group``; encrypted metadata is decrypted
    when the file was opened with keys."""
    group = pf.metadata.row_group(row_group)
    chunk = group.columns[leaf.column_index]
    decryptor = None
    file_decryptor = getattr(pf.metadata, "decryptor", None)
    if chunk.crypto_metadata is not None and file_decryptor is not None:
        decryptor = file_decryptor.column(row_group, group.ordinal, leaf.column_index, chunk, leaf.dotted_path)
    meta = decryptor.metadata if decryptor is not None else chunk.meta_data
    return Chunk(row_group, leaf, chunk, meta, decryptor)


def iter_chunks(pf: ParquetFile, leaves: Sequence[SchemaNode]) -> Iterator[Chunk]:
    for index in range(pf.num_row_groups):
        for leaf in leaves:
            yield chunk_of(pf, index, leaf)


def source_of(path: str) -> contextlib.closing[ByteSource]:
    """A byte source of the file for walking pages, closed when the ``with`` block ends."""
    return contextlib.closing(open_source(path))


__all__ = [
    "Chunk", "UsageError", "add_decryption_options", "chunk_of", "chunk_padding", "decryption_for", "expand_paths", "iter_chunks",
    "non_negative_int", "one_leaf", "open_file", "parse_key", "select_leaves", "source_of", "split_names",
]
