"""The footer as pyarrow.parquet presents it: FileMetaData, RowGroupMetaData,
ColumnChunkMetaData and Statistics, with pyarrow's names, Python values and
``to_dict()``.

Each view wraps the decoded Thrift struct (spec, "Metadata") and passes every
other attribute through to it, so ``row_group(0).columns[0].meta_data`` still
reaches the struct itself. Statistics bounds are given as the Python values
``to_pylist`` gives for the column (int, float, str, bytes, Decimal, date,
time, datetime), and as values of their physical type as ``min_raw`` / ``max_raw``. Which
bounds count is Arrow's rule: ``min_value``/``max_value`` under a TYPE_ORDER
column order, the deprecated ``min``/``max`` in files without column orders,
none under another column order or for a type without a defined order; and
no statistics at all where the writer is known to have compared byte arrays
as signed bytes (parquet-mr before 1.10, parquet-cpp before 1.3).
"""

from __future__ import annotations

import os
import struct
import textwrap
from collections.abc import Callable
from typing import Any, BinaryIO

from parquet_codec.encodings.plain import plain_dtype, plain_values, type_name
from parquet_codec.format.ttypes import (
    ColumnChunk,
    ColumnMetaData,
    CompressionCodec,
    Encoding,
    Type,
)
from parquet_codec.metadata import MAGIC, FileMetadata, key_value_bytes
from parquet_codec.schema import SchemaNode
from parquet_codec.schema_views import ColumnSchema, ParquetLogicalType, ParquetSchema, object_line
from parquet_codec.sink import open_sink
from parquet_codec.sorting import SortingColumn
from parquet_codec.statistics import SIGNED, UNDEFINED, bound_value, sort_order
from parquet_codec.thrift_io import serialize
from parquet_codec.types import LogicalInfo, logical_info

#: The ColumnMetaData of a chunk (row group, leaf): decrypted when the reader can.
MetaOf = Callable[[int, SchemaNode], ColumnMetaData | None]


def _name(names: dict, value: int | None) -> str | None:
    return None if value is None else names.get(value, f"UNKNOWN({value})")


class _View:
    """Attributes it does not define come from the wrapped struct; views are
    equal when their structs are (pyarrow's ``equals``)."""

    _wrapped: Any

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # (not the struct's: also keeps copy and pickle from recursing)
            raise AttributeError(name)
        return getattr(self._wrapped, name)

    def _struct(self) -> Any:
        return self._wrapped

    def equals(self, other: object) -> bool:
        return type(other) is type(self) and self._struct() == other._struct()

    def _text(self, fields: dict[str, Any]) -> str:
        """pyarrow's text of the view: the object, then a field per line (a
        value starting with a line break: its lines under the field's name)."""
        lines = [object_line(self)]
        for name, value in fields.items():
            text = str(value)
            gap = "" if text.startswith("\n") else " "
            lines.append(f"  {name}:{gap}{text}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        return self.equals(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the structs)


class FileMetaData(_View):
    """pyarrow.parquet.FileMetaData over a lazily decoded footer."""

    def __init__(self, footer: FileMetadata, meta_of: MetaOf | None = None,
                 arrow_schema: Callable[[], Any] | None = None) -> None:
        """``meta_of``: a chunk's (decrypted) ColumnMetaData; ``arrow_schema``:
        the file's pyarrow.Schema (``schema.to_arrow_schema()``)."""
        self._wrapped = footer
        self._meta_of = meta_of
        self._arrow_schema = arrow_schema
        self._groups: dict[int, RowGroupMetaData] = {}

    @property
    def footer(self) -> FileMetadata:
        """The lazily decoded footer behind the view."""
        return self._wrapped

    @property
    def created_by(self) -> str:
        return self._wrapped.created_by or ""

    @property
    def schema(self) -> ParquetSchema:
        return ParquetSchema(self._wrapped.schema, self._arrow_schema)

    @property
    def num_columns(self) -> int:
        return len(self._wrapped.schema.leaves)

    @property
    def format_version(self) -> str:
        """"1.0" for version 1; later versions, as pyarrow, read as the latest "2.6"."""
        return "1.0" if self._wrapped.version == 1 else "2.6"

    @property
    def serialized_size(self) -> int:
        return self._wrapped.size

    @property
    def metadata(self) -> dict[bytes, bytes] | None:
        """The key-value metadata as bytes, as pyarrow gives it (None when there is none)."""
        pairs = self._wrapped.key_value_metadata
        return {key_value_bytes(k): b"" if v is None else key_value_bytes(v) for k, v in pairs.items()} or None

    def set_file_path(self, path: str) -> None:
        """Name the file every column chunk lies in, as a ``_metadata``
        summary file names each data file (relative to the dataset's root)."""
        top = self._wrapped.to_thrift()
        for group in top.row_groups:
            for chunk in group.columns:
                chunk.file_path = path
        self._replace(top)

    def append_row_groups(self, other: FileMetaData) -> None:
        """Add the row groups of ``other`` (a file of the same schema) after these."""
        top, theirs = self._wrapped.to_thrift(), other.footer.to_thrift()
        if top.schema != theirs.schema:
            raise ValueError(f"append_row_groups requires equal schemas: this one has {self.num_columns} "
                             f"columns, the other {other.num_columns}, or they differ in a type or name")
        top.row_groups = list(top.row_groups) + list(theirs.row_groups)
        top.num_rows += theirs.num_rows
        self._replace(top)

    def write_metadata_file(self, where: str | os.PathLike | BinaryIO, filesystem: Any = None) -> None:
        """Write the footer alone as a Parquet file (a ``_metadata`` or
        ``_common_metadata`` file): magic, FileMetaData, its length, magic."""
        body = serialize(self._wrapped.to_thrift())
        sink = open_sink(where, filesystem)
        try:
            sink.write(MAGIC + body + struct.pack("<I", len(body)) + MAGIC)
            sink.commit()
        except BaseException:
            sink.abort()
            raise

    def _struct(self) -> Any:
        return self._wrapped.to_thrift()

    def _replace(self, top: Any) -> None:
        self._wrapped = FileMetadata(serialize(top))
        self._groups.clear()

    def row_group(self, index: int) -> RowGroupMetaData:
        view = self._groups.get(index)
        if view is None:
            group = self._wrapped.row_group(index)
            view = self._groups[index] = RowGroupMetaData(group, index, self._wrapped, self._meta_of)
        return view

    def to_dict(self) -> dict[str, Any]:
        return {
            "created_by": self.created_by, "num_columns": self.num_columns, "num_rows": self.num_rows,
            "num_row_groups": self.num_row_groups,
            "row_groups": [self.row_group(i).to_dict() for i in range(self.num_row_groups)],
            "format_version": self.format_version, "serialized_size": self.serialized_size,
        }

    def __repr__(self) -> str:
        return self._text({name: getattr(self, name) for name in (
            "created_by", "num_columns", "num_rows", "num_row_groups", "format_version", "serialized_size")})


class RowGroupMetaData(_View):
    """pyarrow.parquet.RowGroupMetaData over a RowGroup struct."""

    def __init__(self, group: Any, index: int, footer: FileMetadata, meta_of: MetaOf | None) -> None:
        self._wrapped = group
        self._index = index
        self._footer = footer
        self._meta_of = meta_of

    @property
    def num_columns(self) -> int:
        return len(self._wrapped.columns)

    @property
    def sorting_columns(self) -> tuple[SortingColumn, ...]:
        return tuple(SortingColumn.of(s) for s in self._wrapped.sorting_columns or ())

    def column(self, index: int) -> ColumnChunkMetaData:
        if not 0 <= index < self.num_columns:
            raise IndexError(f"column {index} out of range 0..{self.num_columns - 1}")
        leaf = self._footer.schema.leaves[index]
        chunk = self._wrapped.columns[index]
        meta = self._meta_of(self._index, leaf) if self._meta_of is not None else chunk.meta_data
        return ColumnChunkMetaData(chunk, meta, leaf, self._footer)

    def to_dict(self) -> dict[str, Any]:
        return {"num_columns": self.num_columns, "num_rows": self.num_rows, "total_byte_size": self.total_byte_size,
                "columns": [self.column(i).to_dict() for i in range(self.num_columns)],
                "sorting_columns": [s.to_dict() for s in self.sorting_columns]}

    def __repr__(self) -> str:
        return self._text({name: getattr(self, name) for name in (
            "num_columns", "num_rows", "total_byte_size", "sorting_columns")})


def _meta_field(name: str) -> property:
    """A ColumnChunkMetaData attribute that is the ColumnMetaData field ``name``."""
    return property(lambda self: self._field(name), doc=f"ColumnMetaData.{name}")


class ColumnChunkMetaData(_View):
    """pyarrow.parquet.ColumnChunkMetaData over a ColumnChunk struct and its
    ColumnMetaData (None for an encrypted column whose key is missing)."""

    def __init__(self, chunk: ColumnChunk, meta: ColumnMetaData | None, leaf: SchemaNode,
                 footer: FileMetadata) -> None:
        self._wrapped = chunk
        self._meta = meta
        self._leaf = leaf
        self._footer = footer

    def _field(self, name: str) -> Any:
        return None if self._meta is None else getattr(self._meta, name)

    def _struct(self) -> Any:
        return self._wrapped, self._meta

    # The ColumnMetaData fields pyarrow shows as they are (None without metadata).
    num_values = _meta_field("num_values")
    dictionary_page_offset = _meta_field("dictionary_page_offset")
    data_page_offset = _meta_field("data_page_offset")
    index_page_offset = _meta_field("index_page_offset")
    total_compressed_size = _meta_field("total_compressed_size")
    total_uncompressed_size = _meta_field("total_uncompressed_size")
    bloom_filter_offset = _meta_field("bloom_filter_offset")
    bloom_filter_length = _meta_field("bloom_filter_length")

    @property
    def file_path(self) -> str:
        return self._wrapped.file_path or ""

    @property
    def physical_type(self) -> str:
        return type_name(self._leaf.physical_type)

    @property
    def path_in_schema(self) -> str:
        return self._leaf.dotted_path

    @property
    def compression(self) -> str | None:
        """The codec by Arrow's names, as pyarrow gives it: LZ4_RAW is "LZ4"
        (what ``compression="lz4"`` writes), the Hadoop-framed LZ4 "LZ4_HADOOP"."""
        return _name(_CODEC_NAMES, self._field("codec"))

    @property
    def encodings(self) -> tuple[str, ...]:
        return tuple(_name(Encoding._VALUES_TO_NAMES, e) for e in self._field("encodings") or ())

    @property
    def is_stats_set(self) -> bool:
        return self.statistics is not None

    @property
    def statistics(self) -> Statistics | None:
        """None also where the writer is known to have ordered the values wrongly."""
        stats = self._field("statistics")
        if stats is None:
            return None
        found = Statistics(stats, self._meta.num_values, self._leaf, self._bounds_order())
        return found if _ordered_right(self._footer.writer, found) else None

    def _bounds_order(self) -> str | None:
        """Which bounds count, as pyarrow reads them: "type" (``min_value`` and
        ``max_value``) under a TYPE_ORDER column order; "legacy" (the deprecated
        ``min``/``max``) without column orders; None under another order."""
        orders = self._footer.column_orders
        if orders is None:
            return "legacy"
        index = self._leaf.column_index
        return "type" if index < len(orders) and orders[index].TYPE_ORDER is not None else None

    @property
    def geo_statistics(self) -> GeoStatistics | None:
        geo = self._field("geospatial_statistics")
        return None if geo is None else GeoStatistics(geo)

    @property
    def is_geo_stats_set(self) -> bool:
        return self.geo_statistics is not None

    @property
    def metadata(self) -> dict[bytes, bytes] | None:
        """The chunk's own key-value metadata as bytes, as pyarrow gives it (None when there is none)."""
        pairs = self._field("key_value_metadata") or ()
        return {key_value_bytes(p.key): key_value_bytes(p.value or "") for p in pairs} or None

    @property
    def has_dictionary_page(self) -> bool:
        return self._field("dictionary_page_offset") is not None

    @property
    def has_index_page(self) -> bool:
        return self._field("index_page_offset") is not None

    @property
    def has_offset_index(self) -> bool:
        return self._wrapped.offset_index_offset is not None

    @property
    def has_column_index(self) -> bool:
        return self._wrapped.column_index_offset is not None

    def to_dict(self) -> dict[str, Any]:
        stats = self.statistics
        return {
            "file_offset": self.file_offset, "file_path": self.file_path, "physical_type": self.physical_type,
            "num_values": self.num_values, "path_in_schema": self.path_in_schema, "is_stats_set": stats is not None,
            "statistics": None if stats is None else stats.to_dict(),
            "geo_statistics": None if self.geo_statistics is None else self.geo_statistics.to_dict(),
            "compression": self.compression,
            "encodings": self.encodings, "has_dictionary_page": self.has_dictionary_page,
            "dictionary_page_offset": self.dictionary_page_offset, "data_page_offset": self.data_page_offset,
            "total_compressed_size": self.total_compressed_size,
            "total_uncompressed_size": self.total_uncompressed_size,
            "bloom_filter_offset": self.bloom_filter_offset, "bloom_filter_length": self.bloom_filter_length,
        }

    def __repr__(self) -> str:
        fields = self.to_dict()
        # The statistics and geospatial statistics as their own text, indented under their names.
        fields["statistics"] = "\n" + textwrap.indent(repr(self.statistics), " " * 4)
        fields["geo_statistics"] = "\n" + textwrap.indent(repr(self.geo_statistics), " " * 4)
        return self._text(fields)


class Statistics(_View):
    """pyarrow.parquet.Statistics over a Statistics struct."""

    def __init__(self, stats: Any, num_values: int | None, leaf: SchemaNode, order: str | None = "type") -> None:
        self._wrapped = stats
        self._num_values = num_values
        self._leaf = leaf
        self._info: LogicalInfo = logical_info(leaf.element)
        self._order = order  # which bounds count: see ColumnChunkMetaData._bounds_order
        #: The column's sort order: "signed", "unsigned" or "undefined".
        self.order = sort_order(self._info)

    @property
    def physical_type(self) -> str:
        return type_name(self._leaf.physical_type)

    @property
    def logical_type(self) -> ParquetLogicalType:
        return ColumnSchema(self._leaf).logical_type

    @property
    def converted_type(self) -> str:
        """The column's converted type as pyarrow names it ("NONE" for none)."""
        return ColumnSchema(self._leaf).converted_type

    @property
    def num_values(self) -> int | None:
        """Non-null values, as pyarrow counts them."""
        nulls = self._wrapped.null_count
        if self._num_values is None:
            return None
        return self._num_values - (nulls or 0)

    @property
    def has_null_count(self) -> bool:
        return self._wrapped.null_count is not None

    @property
    def has_distinct_count(self) -> bool:
        return self._wrapped.distinct_count is not None

    @property
    def _bounds(self) -> tuple[bytes, bytes] | None:
        stats = self._wrapped
        if self._order is None or self.order == UNDEFINED:
            return None
        if self._order == "type" and stats.min_value is not None and stats.max_value is not None:
            return stats.min_value, stats.max_value
        if stats.min is not None and stats.max is not None and self.order == SIGNED:
            return stats.min, stats.max
        return None

    @property
    def has_min_max(self) -> bool:
        return self._bounds is not None

    @property
    def min_raw(self) -> Any:
        """The lower bound as a value of the physical type, as pyarrow gives
        it: bool, int (INT32 and INT64 as signed), float, bytes (BYTE_ARRAY,
        FIXED_LEN_BYTE_ARRAY); None for INT96, which pyarrow has no value of."""
        return self._physical(0)

    @property
    def max_raw(self) -> Any:
        """The upper bound, as :attr:`min_raw`."""
        return self._physical(1)

    @property
    def min(self) -> Any:
        bounds = self._bounds
        return None if bounds is None else self._value(bytes(bounds[0]))

    @property
    def max(self) -> Any:
        bounds = self._bounds
        return None if bounds is None else self._value(bytes(bounds[1]))

    def _physical(self, which: int) -> Any:
        bounds = self._bounds
        if bounds is None or self._leaf.physical_type == Type.INT96:
            return None
        raw, physical = bytes(bounds[which]), self._leaf.physical_type
        dtype = plain_dtype(physical)
        if dtype is None or len(raw) != dtype.itemsize:  # (byte arrays, or a bound of the wrong size: the bytes)
            return raw
        return plain_values(raw, physical, 1)[0].item()

    @property
    def is_min_value_exact(self) -> bool | None:
        return self._wrapped.is_min_value_exact if self.has_min_max else None

    @property
    def is_max_value_exact(self) -> bool | None:
        return self._wrapped.is_max_value_exact if self.has_min_max else None

    def _value(self, raw: bytes | None) -> Any:
        """A bound as the column's Python value; the bytes themselves where they
        do not decode as one value of the type, and, as pyarrow keeps them,
        for the types it has no Python value of bounds for."""
        if raw is None or self._info.kind in _RAW_BOUNDS:
            return raw
        try:
            return bound_value(raw, self._info)
        except Exception:  # a bound of the wrong size, a date beyond Python's range: show what is stored
            return raw

    def to_dict(self) -> dict[str, Any]:
        has = self.has_min_max
        return {"has_min_max": has, "min": self.min if has else None, "max": self.max if has else None,
                "null_count": self._wrapped.null_count, "distinct_count": self._wrapped.distinct_count,
                "num_values": self.num_values, "physical_type": self.physical_type}

    def __repr__(self) -> str:
        fields = self.to_dict()
        fields["logical_type"], fields["converted_type (legacy)"] = self.logical_type, self.converted_type
        return self._text(fields)


_BOX = ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")


class GeoStatistics(_View):
    """pyarrow.parquet.GeoStatistics over a GeospatialStatistics struct: the
    geometry types present and the bounding box (None for an absent bound)."""

    def __init__(self, geo: Any) -> None:
        self._wrapped = geo

    @property
    def geospatial_types(self) -> list[int] | None:
        return list(self._wrapped.geospatial_types or ()) or None

    def _corner(self, name: str) -> float | None:
        box = self._wrapped.bbox
        return None if box is None else getattr(box, name)

    # The box's bounds, one property each.
    xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax = (property(lambda self, n=name: self._corner(n)) for name in _BOX)

    def to_dict(self) -> dict[str, Any]:
        return {"geospatial_types": self.geospatial_types, **{name: self._corner(name) for name in _BOX}}

    def __repr__(self) -> str:
        pairs = (f"  {low}: {self._corner(low)}, {high}: {self._corner(high)}"
                 for low, high in zip(_BOX[::2], _BOX[1::2], strict=True))
        return "\n".join([object_line(self), f"  geospatial_types: {self.geospatial_types}", *pairs])


#: Column kinds whose bounds pyarrow gives as the stored bytes.
_RAW_BOUNDS = frozenset({"float16", "interval", "int96", "uuid", "json", "bson"})
_CODEC_NAMES = {**CompressionCodec._VALUES_TO_NAMES, CompressionCodec.LZ4: "LZ4_HADOOP",
                CompressionCodec.LZ4_RAW: "LZ4"}


def _ordered_right(writer: tuple[str, tuple[int, ...]], stats: Statistics) -> bool:
    """Whether the bounds can be trusted, by the writers Arrow knows to have
    compared values as signed bytes (parquet-mr before 1.10, parquet-cpp
    before 1.3, PARQUET-251): for those, only signed orders are right (Arrow
    trusts no other bounds of theirs, even equal ones)."""
    name, version = writer
    legacy = (name == "parquet-mr" and version < (1, 10)) or (name == "parquet-cpp" and version < (1, 3))
    return not legacy or stats.order == SIGNED


__all__ = ["ColumnChunkMetaData", "FileMetaData", "GeoStatistics", "RowGroupMetaData", "Statistics"]
