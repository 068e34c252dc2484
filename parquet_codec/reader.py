"""Reading Parquet files: :class:`ParquetFile` and :func:`read_table`.

The footer is parsed once (lazily per row group). A read fetches only the
byte ranges of the requested columns in the requested row groups, decodes
each column chunk into levels and values, and assembles the nested arrays of
each top-level field.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import cached_property
from typing import Any

import numpy as np

from parquet_codec.arrays import Array, PrimitiveArray, concat
from parquet_codec.arrow_origin import split_metadata
from parquet_codec.arrow_read import DEFAULT as DEFAULT_READ
from parquet_codec.arrow_read import ArrowReadOptions, geo_metadata
from parquet_codec.arrow_schema import ArrowField
from parquet_codec.batches import record_batches
from parquet_codec.bloom import Sbbf, read_bloom_filter
from parquet_codec.chunk_reader import empty_leaf
from parquet_codec.column import (
    LEGACY_DICTIONARY_PADDING,
    check_local,
    read_column_chunk,
)
from parquet_codec.column_index import read_column_index
from parquet_codec.encodings.plain import plain_dtype
from parquet_codec.errors import (
    CorruptFileError,
    DecryptionError,
    ParquetError,
    ResourceLimitError,
    SchemaError,
)
from parquet_codec.format.ttypes import ColumnIndex, ColumnMetaData, OffsetIndex
from parquet_codec.io import ByteSource, Source, open_source
from parquet_codec.levels import assemble, keep_dictionary, merged_dictionaries
from parquet_codec.limits import memory_budget, reserve_items
from parquet_codec.memory import default_pool
from parquet_codec.metadata import FileMetadata, read_footer
from parquet_codec.metadata_views import FileMetaData
from parquet_codec.nested import PRIMITIVE
from parquet_codec.offset_index import read_offset_index
from parquet_codec.read_arguments import (
    check_batch_size,
    check_buffer_size,
    column_names,
    memory_limit_bytes,
    row_group_indices,
    with_pandas_index,
)
from parquet_codec.scan import ReadPlan, Scanner, duration_units
from parquet_codec.schema import Schema, SchemaNode
from parquet_codec.table import Table
from parquet_codec.types import logical_info
from parquet_codec.value_slots import plausible_items

DEFAULT_BATCH_SIZE = 65536


class ParquetFile:
    """One Parquet file opened for reading.

    ``source`` is a path, a bytes-like object or a binary file object.
    ``verify_checksums`` checks the CRC-32 of every page that carries one.
    ``decryption`` opens encrypted files: crypto.FileDecryptionProperties, or a
    crypto.CryptoFactory (key material resolved for this file).
    ``memory_limit`` caps the bytes one read may allocate for sizes the file
    declares (limits.memory_budget); past it a ResourceLimitError is raised.

    pyarrow's parameters mean what they mean there: ``read_dictionary``,
    ``binary_type``, ``list_type``, ``coerce_int96_timestamp_unit`` and
    ``arrow_extensions_enabled`` choose Arrow types (arrow_read.py);
    ``filesystem`` opens a path; ``decryption_properties`` and
    ``page_checksum_verification`` are other names for ``decryption`` and
    ``verify_checksums``. ``memory_map``, ``buffer_size`` and ``pre_buffer``
    are I/O hints this reader has no use for (it reads each column chunk's
    byte range once). ``metadata`` (a FileMetaData read before, as by
    :func:`read_metadata`) spares reading the footer again. pyarrow's
    ``thrift_string_size_limit``, ``thrift_container_size_limit`` and
    ``schema_depth_limit`` need no raising here (every length in the footer is
    bounded by the footer's own size, the schema's depth by the number of its
    elements), and ``common_metadata`` is unused, as in pyarrow.
    """

    def __init__(self, source: Source, *, verify_checksums: bool = True, decryption: object | None = None,
                 memory_limit: int | None = None, read_dictionary: Iterable[str] | None = None,
                 binary_type: Any = None, list_type: Any = None, coerce_int96_timestamp_unit: str | None = None,
                 arrow_extensions_enabled: bool = True, filesystem: Any = None,
                 decryption_properties: object | None = None, page_checksum_verification: bool | None = None,
                 memory_map: bool = False, buffer_size: int = 0, pre_buffer: bool = True,
                 metadata: FileMetaData | None = None, common_metadata: object = None,
                 thrift_string_size_limit: int | None = None, thrift_container_size_limit: int | None = None,
                 schema_depth_limit: int | None = None) -> None:
        if metadata is not None and not isinstance(metadata, FileMetaData):
            raise TypeError(f"metadata must be a FileMetaData of this package (read_metadata), "
                            f"not {type(metadata).__name__}")
        check_buffer_size(buffer_size)
        decryption = decryption_properties if decryption is None else decryption
        if page_checksum_verification is not None:
            verify_checksums = page_checksum_verification
        self.read_options = ArrowReadOptions.of(
            read_dictionary=read_dictionary, binary_type=binary_type, list_type=list_type,
            coerce_int96_timestamp_unit=coerce_int96_timestamp_unit, arrow_extensions_enabled=arrow_extensions_enabled)
        self._source: ByteSource = open_source(source, filesystem)
        self.verify_checksums = verify_checksums
        self.memory_limit = memory_limit_bytes(memory_limit)
        self._decryptors: dict[tuple[int, int], Any] = {}  # (row group, leaf) -> ColumnChunkDecryptor | None
        self._closed = False
        try:
            if decryption is not None:
                from parquet_codec.crypto import resolve_decryption

                by_path = filesystem is not None and isinstance(source, (str, os.PathLike))
                decryption = resolve_decryption(decryption, self._source.name, filesystem if by_path else None)
            footer = read_footer(self._source, decryption) if metadata is None else metadata.footer
            self.metadata: FileMetaData = FileMetaData(footer, self._shown_meta, functools.partial(arrow_schema, footer))
            self.schema: Schema = footer.schema
            self.schema.fields  # noqa: B018 - resolve LIST/MAP shapes now, so a bad schema fails on open
        except ParquetError as exc:
            exc.add_context(file=self._source.name)
            self._source.close()
            raise

    @cached_property
    def _chunk_padding(self) -> int:
        application, version = self.metadata.writer
        legacy = application.lower() == "parquet-mr" and (not version or version < (1, 2, 9))
        return LEGACY_DICTIONARY_PADDING if legacy else 0

    @cached_property
    def _arrow(self) -> tuple[dict[str, str], dict[str, ArrowField]]:
        """The tables' metadata and the columns' stored Arrow fields (arrow_origin.py)."""
        return split_metadata(self.metadata.key_value_metadata, self.schema.fields)

    @cached_property
    def _table_options(self) -> ArrowReadOptions:
        """The reading options the tables get: a stored Arrow schema overrides some."""
        if self._arrow[1]:
            return self.read_options.with_stored_schema()
        return replace(self.read_options,
                       geo_metadata=geo_metadata(self.schema.leaves, self.metadata.key_value_metadata))

    def _table(self, schema: Schema, arrays: dict[str, Array], num_rows: int,
               dictionaries: dict[str, list[Array]] | None = None) -> Table:
        metadata, origin = self._arrow
        return Table(schema, arrays, num_rows, metadata=metadata, origin=origin, read_options=self._table_options,
                     dictionaries=dictionaries)

    def _keeps_dictionary(self, leaf: SchemaNode) -> bool:
        """Whether a leaf reads as an Arrow dictionary (a flat column of
        strings or binaries of a stored dictionary type, or in
        ``read_dictionary``): then its chunks' dictionary pages are kept, since
        pyarrow's dictionaries list those values first, in their order. (Only
        this column's stored type is decoded.)"""
        if len(leaf.path) != 1:
            return False
        name, origin, options = leaf.path[0], self._arrow[1], self._table_options
        stored = origin.get(name) if origin else None
        kind = logical_info(leaf.element).kind
        stored_dictionary = stored is not None and stored.dictionary is not None and options.dictionaries_as is None
        return (stored_dictionary and options.holds_dictionary_values(kind)) or options.reads_dictionary(name, kind)

    @property
    def num_row_groups(self) -> int:
        return self.metadata.num_row_groups

    @property
    def num_rows(self) -> int:
        return self.metadata.num_rows

    @property
    def schema_arrow(self) -> Any:
        """The columns' pyarrow.Schema, as ``to_arrow`` types them (needs pyarrow)."""
        with _refused_as_limit(f"the Arrow schema of {len(self.schema.leaves)} columns does not fit in memory",
                               file=self._source.name):
            return self.read_row_groups([]).to_arrow().schema

    def read_row_group(self, i: int, columns: Sequence[str] | None = None, use_threads: bool = True,
                       use_pandas_metadata: bool = False) -> Table:
        """Row group ``i`` as a Table of the selected columns (all by default).
        ``use_pandas_metadata`` adds the DataFrame index columns the pandas metadata
        names; ``use_threads``, as in pyarrow's signature, changes nothing here."""
        schema = self._projection(self._with_index(columns, use_pandas_metadata))
        dictionaries: dict[str, list[Array]] = {}
        arrays = self._read_arrays(i, schema, dictionaries=dictionaries)
        return self._table(schema, arrays, self.metadata.row_group(i).num_rows, dictionaries)

    def read(self, columns: Sequence[str] | None = None, use_threads: bool = True, use_pandas_metadata: bool = False,
             *, filters: object = None) -> Table:
        """Every row group, as one Table; with ``filters`` (pyarrow's form, see
        :mod:`parquet_codec.predicate`) only the matching rows, in file order."""
        return self.read_row_groups(range(self.num_row_groups), columns, use_pandas_metadata=use_pandas_metadata,
                                    filters=filters)

    def read_row_groups(self, row_groups: Iterable[int], columns: Sequence[str] | None = None,
                        use_threads: bool = True, use_pandas_metadata: bool = False, *,
                        filters: object = None) -> Table:
        indices = row_group_indices(row_groups)
        with memory_budget(self.memory_limit):
            return self._read_row_groups(indices, self._with_index(columns, use_pandas_metadata), filters)

    def _with_index(self, columns: Sequence[str] | None, use_pandas_metadata: bool) -> Sequence[str] | None:
        """``columns`` and, when asked, the stored DataFrame index columns the
        ``pandas`` metadata names (a RangeIndex is not stored). Every public
        read passes its ``columns`` here: an iterable is read once, as a list."""
        columns = column_names(columns)
        if columns is None or not use_pandas_metadata:
            return columns
        return with_pandas_index(columns, self._arrow[0], [f.name for f in self.schema.fields])

    def _read_row_groups(self, indices: Iterable[int], columns: Sequence[str] | None, filters: object) -> Table:
        schema = self._projection(columns)
        if filters is not None:
            # Pruned by statistics, bloom filters and the page index, then filtered exactly (scan.py).
            tables = list(Scanner(self, schema, filters).tables(indices))
            if tables:
                return tables[0] if len(tables) == 1 else Table.concat(tables)
            indices = []
        indices = list(indices)
        # Flat fixed-width columns are decoded into one array each over the row
        # groups, instead of being joined (copied) afterwards; optional ones
        # have their values decoded straight into their rows (column.py).
        buffers = self._column_buffers(schema, indices) if indices else {}
        parts, rows, pages = [], 0, []
        for i in indices:
            n = self.metadata.row_group(i).num_rows
            pages.append({})
            parts.append(self._read_arrays(i, schema, {k: b[rows : rows + n] for k, b in buffers.items()}, pages[-1]))
            rows += n
        if not parts:
            return self._table(schema, {f.name: _empty(f) for f in schema.fields}, 0)
        named = list(zip(pages, parts, strict=True))
        dictionaries = {name: merged_dictionaries([(kept.get(name, ()), part[name]) for kept, part in named])
                        for name in dict.fromkeys(name for kept in pages for name in kept)}
        arrays = {f.name: _join([p[f.name] for p in parts], buffers.get(f.name)) for f in schema.fields}
        return self._table(schema, arrays, rows, dictionaries)

    def _column_buffers(self, schema: Schema, indices: list[int]) -> dict[str, np.ndarray]:
        """An array for every flat fixed-width field of ``schema`` over the rows
        of row groups ``indices``, where the chunks' sizes make it plausible."""
        groups = [self.metadata.row_group(i) for i in indices]
        rows = sum(g.num_rows for g in groups)
        buffers = {}
        for field in schema.fields:
            leaf = self.schema.leaf(field.node.path) if field.kind == PRIMITIVE else None
            dtype = None if leaf is None or leaf.max_repetition_level else plain_dtype(leaf.physical_type)
            stored = _stored_bytes(groups, leaf.column_index) if dtype is not None else None
            # A declared row count far beyond what the chunks' bytes (at most the
            # file) can hold is left to the general path, which reports it.
            if stored is None or not plausible_items(rows, dtype.itemsize, min(stored, self._source.size)):
                continue
            reserve_items(rows, dtype.itemsize, f"column {field.name!r} of {rows} rows")
            buffers[field.name] = default_pool().empty(rows, dtype)
        return buffers

    def iter_batches(
        self,
        batch_size: int = DEFAULT_BATCH_SIZE,
        row_groups: Iterable[int] | None = None,  # positional order as pyarrow's
        columns: Sequence[str] | None = None,
        use_threads: bool = True,
        use_pandas_metadata: bool = False,
        *,
        filters: object = None,
    ) -> Iterator[Table]:
        """Tables of ``batch_size`` rows (the last one fewer), as pyarrow's
        batches: one may join the end of a row group to the start of the
        next. One row group is decoded at a time; the rows carried over to
        the next batch are copied, so the row group they came from is
        released first. With ``filters``, only matching rows (row groups
        without any are skipped)."""
        check_batch_size(batch_size)
        indices = range(self.num_row_groups) if row_groups is None else row_group_indices(row_groups)
        columns = self._with_index(columns, use_pandas_metadata)
        if filters is not None:
            tables: Iterable[Table] = Scanner(self, self._projection(columns), filters).tables(indices)
        else:
            tables = (self.read_row_group(index, columns) for index in indices)
        yield from record_batches(tables, batch_size)

    def plan(self, filters: object, columns: Sequence[str] | None = None) -> ReadPlan:
        """What ``read(columns, filters=filters)`` would fetch, and why: row groups kept
        or skipped (statistics, bloom filter, page index), per column the pages
        kept and the bytes to fetch. ``str(plan)`` prints it as a table."""
        return Scanner(self, self._projection(columns), filters).plan()

    # ------------------------------------------------------------------
    def _projection(self, columns: Sequence[str] | None) -> Schema:
        columns = column_names(columns)
        if columns is None:
            return self.schema
        leaves: list[tuple[str, ...]] = []
        for name in columns:
            matched = [leaf.path for leaf in self.schema.leaves
                       if leaf.dotted_path == name or leaf.dotted_path.startswith(name + ".")]
            if not matched:
                raise SchemaError(f"no column {name!r} in the file; columns are {[f.name for f in self.schema.fields]}")
            leaves.extend(matched)
        return self.schema.project(leaves)

    def _read_arrays(self, index: int, schema: Schema, out: dict[str, np.ndarray] | None = None,
                     dictionaries: dict[str, list[Array]] | None = None) -> dict[str, Array]:
        with self.bounded(index):
            return self._read_group_arrays(index, schema, out or {}, {} if dictionaries is None else dictionaries)

    @contextmanager
    def bounded(self, index: int) -> Iterator[None]:
        """Decode row group ``index`` under the read's memory budget; an
        allocation refused anyway is a ResourceLimitError naming the row group."""
        refused = "row group does not fit in memory (a memory_limit refuses such reads before allocating)"
        with memory_budget(self.memory_limit), _refused_as_limit(refused, file=self._source.name, row_group=index):
            yield

    def _read_group_arrays(self, index: int, schema: Schema, out: dict[str, np.ndarray],
                           dictionaries: dict[str, list[Array]]) -> dict[str, Array]:
        """The arrays of row group ``index``; a field named in ``out`` (flat,
        fixed-width) is decoded into that array of the group's rows. The
        dictionary page of a column that reads as an Arrow dictionary is added to its
        list in ``dictionaries``."""
        group = self.metadata.row_group(index)
        arrays: dict[str, Array] = {}
        for field in schema.fields:
            target = out.get(field.name)
            leaves = {}
            for node in field.leaf_nodes():
                leaf = self.schema.leaf(node.path)
                try:
                    chunk = group.columns[leaf.column_index]
                    decryptor = self._decryptor(index, group, leaf, chunk)
                    meta = chunk.meta_data if decryptor is None else decryptor.metadata
                    leaves[node.path] = read_column_chunk(
                        self._source, chunk, leaf, verify_checksums=self.verify_checksums,
                        padding=self._chunk_padding, decryptor=decryptor, keep_dictionary=self._keeps_dictionary(leaf),
                        out=target if leaf.max_definition_level == 0 or _nulls_absent(meta, leaf) else None,
                        spread=target,
                    )
                except ParquetError as exc:
                    exc.add_context(file=self._source.name, row_group=index, column=leaf.dotted_path)
                    raise
            try:
                array = assemble(field, leaves, out=target, num_rows=group.num_rows)
            except ParquetError as exc:
                exc.add_context(file=self._source.name, row_group=index, column=field.name)
                raise
            if len(array) != group.num_rows:
                raise CorruptFileError(
                    f"column holds {len(array)} rows, the row group declares {group.num_rows}",
                    file=self._source.name, row_group=index, column=field.name,
                )
            arrays[field.name] = array
            keep_dictionary(dictionaries, field.name, leaves.values())
        return arrays

    def _decryptor(self, index: int, group: Any, leaf: Any, chunk: Any) -> object | None:
        """The crypto.ColumnChunkDecryptor of an encrypted chunk, None for a plaintext one
        (made once per chunk: it decrypts the chunk's ColumnMetaData)."""
        file_decryptor = self.metadata.decryptor
        if file_decryptor is None:
            if chunk.crypto_metadata is not None:
                raise DecryptionError("column is encrypted: decryption properties are required")
            return None
        key = (index, leaf.column_index)
        if key not in self._decryptors:
            self._decryptors[key] = file_decryptor.column(index, group.ordinal, leaf.column_index, chunk,
                                                          leaf.dotted_path)
        return self._decryptors[key]

    def _chunk_decryptor(self, row_group: int, leaf: Any) -> tuple[Any, Any]:
        """The ColumnChunk of ``leaf`` in ``row_group`` and its decryptor (None when plaintext)."""
        group = self.metadata.row_group(row_group)
        chunk = group.columns[leaf.column_index]
        with self._index_context(row_group, leaf):
            return chunk, self._decryptor(row_group, group, leaf, chunk)

    def _local_chunk(self, row_group: int, leaf: Any) -> tuple[Any, Any]:
        """:meth:`_chunk_decryptor`, for reading from the chunk's byte ranges:
        not those of a chunk another file holds (in a summary file)."""
        chunk, decryptor = self._chunk_decryptor(row_group, leaf)
        with self._index_context(row_group, leaf):
            check_local(chunk)
        return chunk, decryptor

    def _shown_meta(self, row_group: int, leaf: Any) -> ColumnMetaData | None:
        """The ColumnMetaData metadata views show: decrypted when the keys are at
        hand, else what the footer holds (stripped, or none, for an encrypted column)."""
        try:
            return self._column_meta(row_group, leaf)
        except ParquetError:
            return self.metadata.row_group(row_group).columns[leaf.column_index].meta_data

    def _column_meta(self, row_group: int, leaf: Any) -> ColumnMetaData | None:
        """The ColumnMetaData of a chunk: decrypted for an encrypted column (Encryption,
        section 5.3), since the footer may hold none or one without statistics."""
        chunk, decryptor = self._chunk_decryptor(row_group, leaf)
        return chunk.meta_data if decryptor is None else decryptor.metadata

    # Bloom filters and page index (read on demand, never on open) ---------
    # Those of an encrypted column are GCM modules under its key (Encryption, section 4.4.2).
    def bloom_filter(self, row_group: int, column: str | int) -> Sbbf | None:
        """The bloom filter of one column chunk (``column``: dotted path or leaf
        index), or None when the chunk has none. Its ``might_contain`` takes
        Python values of the column's type (time spans too for a column stored
        for an Arrow duration)."""
        leaf = self._leaf(column)
        chunk, decryptor = self._local_chunk(row_group, leaf)
        meta = chunk.meta_data if decryptor is None else decryptor.metadata
        if meta is None or meta.bloom_filter_offset is None:
            return None
        with self._index_context(row_group, leaf):
            found = read_bloom_filter(self._source, meta.bloom_filter_offset, meta.bloom_filter_length,
                                      info=logical_info(leaf.element), decryptor=decryptor)
        found.duration_unit = duration_units(self._arrow[1], [leaf.dotted_path]).get(leaf.dotted_path)
        return found

    def column_index(self, row_group: int, column: str | int) -> ColumnIndex | None:
        """The ColumnIndex (per-page bounds) of one column chunk, or None."""
        leaf = self._leaf(column)
        chunk, decryptor = self._local_chunk(row_group, leaf)
        with self._index_context(row_group, leaf):
            return read_column_index(self._source, chunk, decryptor=decryptor)

    def offset_index(self, row_group: int, column: str | int) -> OffsetIndex | None:
        """The OffsetIndex (page locations and first rows) of one column chunk, or None."""
        leaf = self._leaf(column)
        chunk, decryptor = self._local_chunk(row_group, leaf)
        with self._index_context(row_group, leaf):
            return read_offset_index(self._source, chunk, num_rows=self.metadata.row_group(row_group).num_rows,
                                     decryptor=decryptor)

    def _leaf(self, column: str | int) -> Any:
        """The leaf node of a column given by dotted path or leaf index."""
        leaves = self.schema.leaves
        if isinstance(column, int):
            if not 0 <= column < len(leaves):
                raise IndexError(f"column {column} out of range 0..{len(leaves) - 1}")
            return leaves[column]
        matched = [node for node in leaves if node.dotted_path == column]
        if not matched:
            raise SchemaError(f"no leaf column {column!r}; leaves are {[n.dotted_path for n in leaves]}")
        return matched[0]

    @contextmanager
    def _index_context(self, row_group: int, leaf: Any) -> Iterator[None]:
        """Name the file, row group and column in errors raised while reading an index."""
        try:
            yield
        except ParquetError as exc:
            exc.add_context(file=self._source.name, row_group=row_group, column=leaf.dotted_path)
            raise

    def scan_contents(self, columns: Sequence[str] | None = None, batch_size: int = 65536) -> int:
        """Read every value of ``columns`` (all by default), batch by batch, and
        return the number of rows read, as pyarrow's (a full decode, checks included)."""
        return sum(batch.num_rows for batch in self.iter_batches(batch_size, columns=columns))

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, force: bool = False) -> None:
        """Release the source (``force``, pyarrow's, changes nothing: closing is immediate)."""
        self._source.close()
        self._closed = True

    def __enter__(self) -> ParquetFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @cached_property
    def spark_schema(self) -> Any:
        """Spark's schema (spark.SparkSchema) from the footer's
        ``org.apache.spark.sql.parquet.row.metadata`` entry, or None without one."""
        from parquet_codec.spark import read_spark_schema

        return read_spark_schema(self.metadata.key_value_metadata)


def _nulls_absent(meta: ColumnMetaData | None, leaf: Any) -> bool:
    """Whether a flat leaf's chunk says, in its statistics (``meta``, decrypted
    for an encrypted column), that it holds no nulls: its values are then
    decoded straight into the column's array, as a required column's are
    (should it hold nulls after all, the assembly spreads them out there)."""
    stats = None if meta is None else meta.statistics
    return leaf.max_repetition_level == 0 and stats is not None and stats.null_count == 0


def _stored_bytes(groups: list[Any], column: int) -> int | None:
    """The compressed bytes of one column over ``groups``; None when a chunk lacks them."""
    total = 0
    for group in groups:
        meta = group.columns[column].meta_data if column < len(group.columns) else None
        if meta is None or meta.total_compressed_size is None:
            return None
        total += max(meta.total_compressed_size, 0)
    return total


def _join(parts: list[Array], buffer: np.ndarray | None) -> Array:
    """The row groups' arrays of one field as one array; with ``buffer``, the
    parts are already its slices and only their validity is joined."""
    if buffer is None:
        return concat(parts)
    if len(parts) == 1:
        return parts[0]
    if all(p.validity is None for p in parts):
        return PrimitiveArray.of(buffer)
    return PrimitiveArray.of(buffer, np.concatenate([p.is_valid() for p in parts]))


@contextmanager
def _refused_as_limit(message: str, **context: Any) -> Iterator[None]:
    """An allocation the machine refuses is a ResourceLimitError with ``message``."""
    try:
        yield
    except ResourceLimitError:
        raise
    except MemoryError:
        raise ResourceLimitError(message, **context) from None


def arrow_schema(footer: FileMetadata) -> Any:
    """The pyarrow.Schema a file's columns read as with pyarrow's default
    options, its stored Arrow schema applied (needs pyarrow)."""
    schema = footer.schema
    metadata, origin = split_metadata(footer.key_value_metadata, schema.fields)
    options = DEFAULT_READ.with_stored_schema() if origin else \
        replace(DEFAULT_READ, geo_metadata=geo_metadata(schema.leaves, footer.key_value_metadata))
    with _refused_as_limit(f"the Arrow schema of {len(schema.leaves)} columns does not fit in memory"):
        arrays = {f.name: _empty(f) for f in schema.fields}
        return Table(schema, arrays, 0, metadata=metadata, origin=origin, read_options=options).to_arrow().schema


def _empty(field: Any) -> Array:
    """A zero-row array of ``field``'s shape."""
    return assemble(field, {node.path: empty_leaf(node) for node in field.leaf_nodes()}, num_rows=0)


def read_table(source: Source, columns: Sequence[str] | None = None, filters: object = None, *,
               use_threads: bool = True, use_pandas_metadata: bool = False, **options: Any) -> Table:
    """Read a whole file (or the named columns) into a Table.

    As in ``pyarrow.parquet.read_table``, ``columns`` come back in the order
    given, and a dotted name of a field inside structs ("a.b") is a column of
    its own (``ParquetFile.read`` keeps it inside its struct); with
    ``use_pandas_metadata`` the DataFrame index columns the pandas metadata
    names are read too. ``filters``: pyarrow's form (``[("x", ">", 5)]``,
    lists of such lists for OR); see :mod:`parquet_codec.predicate`. The
    other options are :class:`ParquetFile`'s. ``use_threads`` is accepted
    for pyarrow's sake: this reader decodes on the calling thread."""
    with ParquetFile(source, **options) as pf:
        return read_open(pf, columns, filters, use_pandas_metadata=use_pandas_metadata)


def read_open(pf: ParquetFile, columns: Iterable[str] | None = None, filters: object = None, *,
              use_pandas_metadata: bool = False, row_groups: Iterable[int] | None = None) -> Table:
    """:func:`read_table` of a file already open (of ``row_groups``, all by
    default): the columns in the order given, a struct field named by its
    dotted path a column of its own."""
    selected = pf._with_index(columns, use_pandas_metadata)
    indices = range(pf.num_row_groups) if row_groups is None else row_groups
    table = pf.read_row_groups(indices, selected, filters=filters)
    return table if selected is None else table.select(selected)


def read_metadata(where: Source, **options: Any) -> FileMetaData:
    """A file's footer (:class:`~parquet_codec.metadata_views.FileMetaData`), as
    ``pyarrow.parquet.read_metadata``; it stays usable after the file is closed.
    The options are :class:`ParquetFile`'s (``decryption_properties``, ``filesystem``, ...)."""
    with ParquetFile(where, **options) as pf:
        return pf.metadata


def read_schema(where: Source, **options: Any) -> Any:
    """A file's Arrow schema as ``pyarrow.parquet.read_schema`` gives it (the
    stored Arrow schema applied, the key-value metadata attached; needs pyarrow).
    The Parquet schema is ``ParquetFile(where).schema``."""
    with ParquetFile(where, **options) as pf:
        return pf.schema_arrow


__all__ = ["ParquetFile", "read_metadata", "read_open", "read_schema", "read_table"]
