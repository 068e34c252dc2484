"""Writing Parquet files: :class:`ParquetWriter` and :func:`write_table`
(File Format: the file layout, "Metadata", "Column chunks").

A file is ``PAR1``, the row groups' column chunks, the Thrift FileMetaData,
its 4-byte length and ``PAR1`` again. Row groups are written as they are
flushed, so memory holds one row group at a time; the footer is written on
close.

Output is atomic for paths: the bytes go to a temporary file in the target's
folder, which is flushed, fsynced and renamed over the target only when the
file is complete. An exception on the way (or leaving the ``with`` block by
one) removes the temporary file and leaves any previous file untouched. A
writer left open is closed when it is collected, as pyarrow's is. A file
object is written sequentially, never seeked, and not closed.

Options take pyarrow's names (:mod:`parquet_codec.writer_options`); per
column ones name a top-level column or a dotted leaf path
(``"a.list.element"``). Pages are cut by ``data_page_size`` and, when given,
``max_rows_per_page`` (:mod:`parquet_codec.page_cuts`).

The type options (``version``, ``coerce_timestamps``,
``use_deprecated_int96_timestamps``, ``store_decimal_as_integer``,
``write_time_adjusted_to_utc``) choose the types stored, as pyarrow does
(:mod:`parquet_codec.stored_types`); the writer's schema describes the
tables given, ``writer.schema`` the file's.

After the row groups come the page indexes (``write_page_index=True`` by
default) and the bloom filters (``bloom_filter_options``), laid out as
parquet-java lays them out (:mod:`parquet_codec.writer_indexes`); only their
small serialized modules are kept in memory until close.

``encryption`` (crypto.FileEncryptionProperties, direct or from
CryptoFactory) encrypts every module of the listed columns (all columns
under uniform encryption) with its module AAD: page headers and pages as
they are written (CRCs cover the ciphertext), column metadata, page indexes
and bloom filters; the footer is encrypted ("PARE") or signed (plaintext
footer). Encrypted DATA_PAGE_V2 pages use parquet-java's layout (levels in
plaintext, readable by Spark) unless the properties ask for Arrow's
(``data_page_v2_layout="arrow"``, readable by pyarrow); neither reader reads
the other's. External key material is written beside the file when it is
committed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import struct
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO

from parquet_codec._version import __version__
from parquet_codec.arrays import concat
from parquet_codec.arrow_origin import stored_schema
from parquet_codec.arrow_schema import ARROW_SCHEMA_KEY, ArrowField, schema_to_metadata
from parquet_codec.column_writer import ChunkOut, write_column_chunk
from parquet_codec.crypto import ColumnChunkEncryptor, FileEncryptionProperties, FileEncryptor, footer_bytes
from parquet_codec.errors import EncryptionError, ParquetError, SchemaError, UnsupportedError
from parquet_codec.format.ttypes import (
    ColumnOrder,
    FileMetaData,
    KeyValue,
    RowGroup,
    TypeDefinedOrder,
)
from parquet_codec.format.ttypes import SortingColumn as ThriftSortingColumn
from parquet_codec.io import BufferSource
from parquet_codec.levels import shred
from parquet_codec.metadata import MAGIC, FileMetadata, key_value_bytes, key_value_text, read_footer
from parquet_codec.metadata_views import FileMetaData as MetadataView
from parquet_codec.nested import PRIMITIVE
from parquet_codec.schema import Schema, SchemaNode
from parquet_codec.sink import open_sink
from parquet_codec.sorting import SortingColumn
from parquet_codec.spark import ROW_METADATA_KEY, row_metadata
from parquet_codec.stored_types import StoredTypes
from parquet_codec.table import Table
from parquet_codec.thrift_io import serialize
from parquet_codec.types import LogicalInfo, logical_info
from parquet_codec.writer_indexes import TrailingModules, bloom_filter_bytes, bloom_specs, page_index_bytes
from parquet_codec.writer_options import WriterOptions
from parquet_codec.writer_schema import (
    MISMATCH,
    arrow_difference,
    bare_elements,
    check_groups,
    check_names,
    parquet_difference,
)
from parquet_codec.written_names import arrow_element_names, arrow_list_names, spark_field_names

#: Rows per row group when none is given (pyarrow's default).
DEFAULT_ROW_GROUP_SIZE = 1024 * 1024
#: Estimated in-memory bytes per row group when none is given (parquet-java's block size).
DEFAULT_MAX_ROW_GROUP_BYTES = 128 * 1024 * 1024
CREATED_BY = f"parquet-codec version {__version__}"


class ParquetWriter:
    """Write row groups to one file; use as a context manager or call :meth:`close`.

    Each :meth:`write_table` call writes its rows as one or more row groups of
    at most ``row_group_size`` rows (and about ``max_row_group_bytes`` bytes
    of input, when that is given or ``row_group_size`` is not), each flushed
    before the next is encoded.
    """

    def __init__(self, where: str | os.PathLike | BinaryIO, schema: Schema, *,
                 element_names: Mapping[tuple[str, ...], str] | None = None, **options: Any) -> None:
        """``schema``: a :class:`Schema`, or a pyarrow schema (typed as pyarrow.parquet writes
        it, and stored as ARROW:schema). ``element_names``: the Arrow names of the list elements
        (written_names.arrow_element_names), which ``use_compliant_nested_type=False`` writes as
        pyarrow does (default ``item``)."""
        if "encryption_properties" in options:  # pyarrow's name for ``encryption``
            options.setdefault("encryption", options.pop("encryption_properties"))
        if options.get("flavor") == "spark" and options.get("use_deprecated_int96_timestamps") is None:
            options["use_deprecated_int96_timestamps"] = True  # as pyarrow's Spark flavor
        arrow_template = self._arrow_schema = None
        if not isinstance(schema, Schema) and type(schema).__module__.startswith("pyarrow"):
            from parquet_codec.convert import to_table

            arrow_template = to_table(schema.empty_table())
            if element_names is None:  # non-compliant lists keep the names of the schema's list fields
                element_names = arrow_element_names(schema)
            self._arrow_schema, schema = schema, arrow_template.schema
        if not isinstance(schema, Schema):
            raise TypeError(f"schema must be a parquet_codec or pyarrow Schema, not {type(schema).__name__}")
        check_groups(schema)
        self.options = WriterOptions(**options)
        self._stored_types = StoredTypes.from_options(self.options)
        # ``schema`` describes the tables given; the file stores the types the options ask for.
        self.input_schema = schema
        self.schema = schema = self._stored_types.schema(schema)  # what every column option below applies to
        # Tables are compared to these.
        self._bare_schemas = (bare_elements(self.schema), bare_elements(self.input_schema))
        # Lists renamed as pyarrow's non-compliant writer names them: tables still match
        # self.schema; the chunks' paths, the options' column names and the footer use these names.
        self._file_schema = schema = schema if self.options.use_compliant_nested_type \
            else arrow_list_names(schema, element_names)
        if self.options.flavor == "spark":
            self._file_schema = schema = spark_field_names(schema)
        self._columns = [self.options.column(leaf) for leaf in schema.leaves]
        self._row_group_size = _row_group_rows(self.options.row_group_size)
        self._infos: list[LogicalInfo] = [logical_info(leaf.element) for leaf in schema.leaves]
        self._sorting = _sorting_columns(self.options.sorting_columns, schema)
        self._spark_row_metadata = row_metadata(self.options.spark_schema, schema)  # checked before any byte
        self._added_metadata: dict[str, str] = {}
        opts = self.options
        self._blooms = bloom_specs(opts.bloom_filter_options, schema.leaves, opts.bloom_filter_sizing,
                                   opts.bloom_filter_max_bytes)
        self._encryptor = _file_encryptor(opts.encryption, schema)
        self._trailing = TrailingModules()  # page indexes and bloom filters, written on close
        self._row_groups: list[RowGroup] = []
        self._written_meta: FileMetaData | None = None  # the footer, once written (for metadata_collector)
        self._chunks: list[list[ChunkOut]] = []
        self._num_rows = 0
        self._closed = False
        self._table_metadata: dict[str, str] | None = None  # from the first table written
        self._origins: list[ArrowField] | None = None
        if arrow_template is not None:
            self._remember_arrow(arrow_template)
        self._sink = open_sink(where, self.options.filesystem)
        try:
            self._sink.write(MAGIC if self._encryptor is None else self._encryptor.magic)
        except BaseException:
            self._closed = True
            self._sink.abort()
            raise
        self._opened = True  # from here on, __del__ closes a writer left open

    @property
    def num_row_groups(self) -> int:
        return len(self._row_groups)

    @property
    def row_group_chunks(self) -> list[list[ChunkOut]]:
        """The chunks written so far, per row group (their page records feed a page index)."""
        return self._chunks

    def write_table(self, table: Any, row_group_size: int | None = None) -> None:
        """Append rows: a :class:`Table` or anything :func:`convert.to_table` takes.

        A typed table (a :class:`Table`, a pyarrow Table or RecordBatch) must have the
        writer's schema, as in pyarrow: its columns, in order, of the same types and
        nullability (metadata and field ids may differ; the writer's are written); a
        pyarrow one given to a writer made from a pyarrow schema is compared as Arrow
        types. Untyped data (a dict of columns, a list of row dicts, a pandas
        DataFrame) is converted to the writer's types, and must name its columns."""
        self._check_open()
        table = self._typed(table)
        if self._table_metadata is None:
            self._remember_arrow(table)
        if table.schema is not self.schema:
            table = self._stored_types.table(table, self.schema)
        step = self._rows_per_group(table, row_group_size)
        try:
            # An empty table is one empty row group, as pyarrow writes it (each call: one more).
            for start in range(0, table.num_rows, step) if table.num_rows else [0]:
                self._write_row_group(table.slice(start, step))
        except BaseException:
            self.abort()
            raise

    def _typed(self, data: Any) -> Table:
        """``data`` as a Table whose schema is ``self.schema`` or ``self.input_schema`` (that
        very object); a SchemaError says how the schema of a typed table differs."""
        from parquet_codec.convert import to_table

        if isinstance(data, Table):
            table = data
        elif (type(data).__module__ or "").startswith("pyarrow") and hasattr(data, "schema"):
            if self._arrow_schema is not None and not data.schema.equals(self._arrow_schema, check_metadata=False):
                raise SchemaError(MISMATCH + arrow_difference(data.schema, self._arrow_schema))
            table = to_table(data)
        else:
            table = to_table(data)  # as typed; converted to the writer's schema only if that differs
            if set(table.column_names) != {f.name for f in self.input_schema.fields}:
                check_names(data, [f.name for f in self.input_schema.fields])
            if bare_elements(table.schema) not in self._bare_schemas:
                return to_table(data, schema=self.input_schema)
        bare = bare_elements(table.schema)
        for schema, writers in zip((self.schema, self.input_schema), self._bare_schemas, strict=True):
            if table.schema is schema:
                return table
            if bare == writers:  # field ids aside (Arrow metadata to pyarrow): the writer's are written
                return Table(schema, {c.name: c.array for c in table.columns}, table.num_rows, metadata=table.metadata,
                             origin=table.origin, read_options=table.read_options, dictionaries=table.dictionaries)
        raise SchemaError(MISMATCH + parquet_difference(table.schema, self.input_schema))

    def write_batch(self, batch: Any, row_group_size: int | None = None) -> None:
        """:meth:`write_table` of a record batch (pyarrow's name)."""
        self.write_table(batch, row_group_size)

    def write(self, table_or_batch: Any, row_group_size: int | None = None) -> None:
        """:meth:`write_table` of a table or a record batch (pyarrow's name)."""
        self.write_table(table_or_batch, row_group_size)

    def add_key_value_metadata(self, key_value_metadata: Mapping[str | bytes, str | bytes]) -> None:
        """Add entries to the footer's key-value metadata, replacing any of the
        same key (pyarrow's; text or bytes, which are kept as they are)."""
        self._check_open()
        if not isinstance(key_value_metadata, Mapping):
            raise TypeError(f"key_value_metadata must be a mapping of keys to values, "
                            f"not {type(key_value_metadata).__name__}")

        def text(item: str | bytes) -> str:
            return key_value_text(item) if isinstance(item, bytes) else str(item)

        self._added_metadata.update({text(k): text(v) for k, v in key_value_metadata.items()})

    def _remember_arrow(self, table: Table) -> None:
        """The first table's metadata, and the Arrow fields its columns came from
        when every column has one (stored as ARROW:schema)."""
        self._table_metadata = dict(table.metadata)
        origin = table.origin
        if len(origin) == table.num_columns:
            self._origins = [origin[name] for name in table.column_names]

    def _rows_per_group(self, table: Table, row_group_size: int | None) -> int:
        explicit = _row_group_rows(row_group_size) if row_group_size is not None else self._row_group_size
        rows = explicit or DEFAULT_ROW_GROUP_SIZE
        # A row count given is honoured exactly, as pyarrow does; only max_row_group_bytes given,
        # or no size at all, caps the rows by their estimated bytes.
        cap = self.options.max_row_group_bytes or (DEFAULT_MAX_ROW_GROUP_BYTES if explicit is None else None)
        if cap and table.num_rows:
            per_row = max(1.0, _table_bytes(table) / table.num_rows)
            rows = min(rows, max(1, int(cap // per_row)))
        return rows

    def _write_row_group(self, table: Table) -> None:
        start = self._sink.position
        chunks: list[ChunkOut] = []
        for column in table.columns:
            leaves = shred(column.field, column.array)
            if column.dictionaries and column.field.kind == PRIMITIVE:  # an Arrow dictionary's entries, in order
                leaves = {path: data._replace(dictionary=concat(column.dictionaries)) for path, data in leaves.items()}
            for node in column.field.leaf_nodes():
                index = node.column_index
                data, node = leaves[node.path], self._file_schema.leaves[index]  # the file's names for the path
                try:
                    sealer = self._column_encryptor(node)
                    out = write_column_chunk(node, self._infos[index], data, self._columns[index],
                                             self._sink.position, sealer)
                    for part in out.parts:
                        self._sink.write(part)
                    self._after_chunk(out, node, data.values, sealer)
                except ParquetError as exc:
                    exc.add_context(row_group=len(self._row_groups), column=node.dotted_path)
                    raise
                chunks.append(out)
        metas = [c.chunk.meta_data for c in chunks]
        self._row_groups.append(RowGroup(
            columns=[c.chunk for c in chunks], num_rows=table.num_rows,
            total_byte_size=sum(m.total_uncompressed_size for m in metas),
            total_compressed_size=sum(m.total_compressed_size for m in metas),
            file_offset=start, ordinal=len(self._row_groups), sorting_columns=self._sorting,
        ))
        self._chunks.append(chunks)
        self._num_rows += table.num_rows

    def _column_encryptor(self, node: SchemaNode) -> ColumnChunkEncryptor | None:
        if self._encryptor is None:
            return None
        return self._encryptor.column(len(self._row_groups), node.column_index, node.dotted_path)

    def _after_chunk(self, out: ChunkOut, node: SchemaNode, values: Any, sealer: ColumnChunkEncryptor | None) -> None:
        """Release the written bytes; keep the chunk's page indexes and bloom filter for close."""
        out.parts = []
        index, opts = node.column_index, self.options
        info = self._infos[index]
        column_index = offset_index = bloom = None
        if opts.write_page_index:
            column_index, offset_index = page_index_bytes(out, info, statistics=self._columns[index].write_statistics,
                                                          encryptor=sealer)
        spec = self._blooms.get(index)
        if spec is not None:
            bloom = bloom_filter_bytes(spec, node, info, values, sizing=opts.bloom_filter_sizing,
                                       max_bytes=opts.bloom_filter_max_bytes, encryptor=sealer)
        self._trailing.add(out.chunk, column_index=column_index, offset_index=offset_index, bloom_filter=bloom)

    def _seal_chunks(self) -> None:
        """Encrypted files: crypto metadata on every encrypted chunk, its metadata
        encrypted where the mode asks (after the bloom filter offsets are known)."""
        if self._encryptor is None:
            return
        paths = [leaf.dotted_path for leaf in self._file_schema.leaves]
        for ordinal, group in enumerate(self._row_groups):
            for column, chunk in enumerate(group.columns):
                self._encryptor.seal_column_chunk(chunk, ordinal, column, paths[column])

    def _footer(self) -> bytes:
        kv: dict[str, str | None] = {}
        if self.options.store_schema:  # without it, pyarrow writes none of the table's own metadata either
            if self._origins is not None:
                origins = [dataclasses.replace(o, name=f.name) for o, f in zip(self._origins, self._file_schema.fields,
                                                                                 strict=True)]
                kv[ARROW_SCHEMA_KEY] = schema_to_metadata(stored_schema(origins, self._table_metadata or {}))
            kv.update(self._table_metadata or {})
        kv.update(self.options.key_value_metadata or {})
        kv.update(self._added_metadata)
        if self._spark_row_metadata is not None:
            kv[ROW_METADATA_KEY] = self._spark_row_metadata  # the spark_schema option wins over a given entry
        meta = FileMetaData(
            version=self._stored_types.format_version, schema=self._file_schema.to_elements(), num_rows=self._num_rows,
            row_groups=self._row_groups, created_by=CREATED_BY,
            key_value_metadata=[KeyValue(key=key_value_bytes(k), value=None if v is None else key_value_bytes(v))
                                for k, v in kv.items()]
            if kv else None,
            column_orders=[ColumnOrder(TYPE_ORDER=TypeDefinedOrder()) for _ in self.schema.leaves],
        )
        self._written_meta = meta
        if self._encryptor is not None:
            return footer_bytes(meta, self._encryptor)
        body = serialize(meta)
        return body + struct.pack("<I", len(body)) + MAGIC

    def close(self) -> None:
        """Write the page indexes, bloom filters and footer, and commit the file
        (rename a temporary file into place; external key material is stored then)."""
        if self._closed:
            return
        try:
            self._trailing.write(self._sink)
            self._seal_chunks()
            self._sink.write(self._footer())
            self._sink.commit(before_publish=self._store_key_material)
        except BaseException:
            self.abort()
            raise
        self._closed = True
        if self.options.metadata_collector is not None:
            footer = FileMetadata(serialize(self._written_meta))
            self.options.metadata_collector.append(MetadataView(footer, arrow_schema=_arrow_schema_of(footer)))

    def _store_key_material(self) -> None:
        """External key material (CryptoFactory with internal_key_material=False): the
        sidecar is written as the file is committed, beside the file actually written."""
        store = getattr(self.options.encryption, "key_material_store", None)
        if store is not None:
            filesystem = getattr(self._sink, "filesystem", None)
            store.save(self._sink.target, None if filesystem is None else filesystem.fs)

    def abort(self) -> None:
        """Give up: remove the temporary file; an existing target is left untouched."""
        if not self._closed:
            self._closed = True
            self._sink.abort()

    def __del__(self) -> None:
        """Close a writer that was opened and never closed or aborted, as pyarrow's
        ParquetWriter does, so the file is complete; if closing fails, the file is
        abandoned (close aborts). Nothing is raised from here."""
        if not self.__dict__.get("_opened") or self._closed:
            return
        try:
            self.close()
        except Exception:  # close has aborted; an exception here could only be printed
            with contextlib.suppress(Exception):
                self.abort()

    def _check_open(self) -> None:
        if self._closed:
            raise ParquetError("the writer is closed")

    def __enter__(self) -> ParquetWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _row_group_rows(size: Any) -> int | None:
    """A row group size as pyarrow takes it: a number of rows, a float truncated to
    whole rows; None for the default. Less than one row raises (pyarrow: "Row
    group size cannot be 0"; it takes a negative size as the default)."""
    if size is None:
        return None
    try:
        if isinstance(size, (str, bytes)):
            raise TypeError
        rows = int(size)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"row_group_size must be a number of rows, not {size!r}") from None
    if rows <= 0:
        raise UnsupportedError(f"row_group_size must be at least one row, got {size!r}")
    return rows


def _sorting_columns(keys: Sequence[Any] | None, schema: Schema) -> list[ThriftSortingColumn] | None:
    """The row groups' declared order: SortingColumns (this package's,
    pyarrow's or the Thrift struct), each naming a leaf column of ``schema``."""
    if not keys:
        return None
    out = []
    for key in keys:
        try:
            column = SortingColumn.of(key)
        except TypeError as exc:
            raise UnsupportedError(f"sorting_columns: {exc}") from None
        schema.column(column.column_index)  # range check
        out.append(column.to_thrift())
    return out


def _file_encryptor(encryption: Any, schema: Schema) -> FileEncryptor | None:
    """The file's encryptor (a fresh aad_file_unique per file), after checking that
    every column given a key exists."""
    if encryption is None:
        return None
    if not isinstance(encryption, FileEncryptionProperties):
        if (type(encryption).__module__ or "").startswith("pyarrow"):
            raise EncryptionError(f"pyarrow's {type(encryption).__name__} (pyarrow.parquet.encryption) cannot be "
                                  "used by this writer: give parquet_codec.crypto.FileEncryptionProperties, "
                                  "directly or made by parquet_codec.crypto.CryptoFactory.encryption_properties")
        raise EncryptionError("encryption must be parquet_codec.crypto.FileEncryptionProperties (given directly or "
                              f"made by CryptoFactory.encryption_properties), not {type(encryption).__name__}")
    encryption.check_columns([leaf.dotted_path for leaf in schema.leaves])
    return FileEncryptor(encryption)


def _table_bytes(table: Table) -> int:
    """Rough in-memory size of a table's buffers (for the row group byte cap)."""
    from parquet_codec.arrays import BinaryArray, ListArray, MapArray, PrimitiveArray, StructArray

    def size(array: Any) -> int:
        total = 0 if array.validity is None else len(array.validity)
        if isinstance(array, PrimitiveArray):
            return total + array.values.nbytes
        if isinstance(array, BinaryArray):
            return total + array.offsets.nbytes + int(array.offsets[-1] - array.offsets[0])
        if isinstance(array, StructArray):
            return total + sum(size(c) for c in array.children.values())
        if isinstance(array, ListArray):
            return total + array.offsets.nbytes + size(array.values)
        if isinstance(array, MapArray):
            return total + array.offsets.nbytes + size(array.keys) + (0 if array.items is None else size(array.items))
        return total

    return sum(size(c.array) for c in table.columns)


def write_metadata(schema: Any, where: str | os.PathLike | BinaryIO, metadata_collector: Sequence[Any] | None = None,
                   filesystem: Any = None, **options: Any) -> None:
    """Write a footer-only Parquet file for ``schema`` (a :class:`Schema` or a pyarrow
    schema), as ``pyarrow.parquet.write_metadata``: ``_common_metadata`` without
    ``metadata_collector``; ``_metadata`` with it, holding the row groups of every
    FileMetaData collected (each with its file_path set)."""
    if options.get("encryption") or options.get("encryption_properties"):
        raise UnsupportedError("write_metadata writes plaintext footers only")
    empty = io.BytesIO()
    with ParquetWriter(empty, schema, **options):
        pass
    footer = read_footer(BufferSource(empty.getvalue()))
    summary = MetadataView(footer, arrow_schema=_arrow_schema_of(footer))
    for collected in metadata_collector or ():
        summary.append_row_groups(collected)
    summary.write_metadata_file(where, filesystem)


def write_table(table: Any, where: str | os.PathLike | BinaryIO, *, schema: Schema | None = None,
                **options: Any) -> None:
    """Write ``table`` (a :class:`Table`, a pyarrow Table, a pandas DataFrame, a
    dict of columns or a list of row dicts) to ``where`` as one Parquet file."""
    from parquet_codec.convert import to_table

    names = None if options.get("use_compliant_nested_type", True) else arrow_element_names(table)
    if not isinstance(table, Table) or schema is not None:
        table = to_table(table, schema=schema)
    with ParquetWriter(where, table.schema, element_names=names, **options) as writer:
        writer.write_table(table)


def _arrow_schema_of(footer: FileMetadata) -> Any:
    """The written file's Arrow schema, for its metadata view (``schema.to_arrow_schema()``)."""
    def compute() -> Any:
        from parquet_codec.reader import arrow_schema  # the reader's rules (a peer module)

        return arrow_schema(footer)

    return compute


__all__ = ["CREATED_BY", "DEFAULT_ROW_GROUP_SIZE", "ParquetWriter", "SortingColumn", "WriterOptions",
           "write_metadata", "write_table"]

