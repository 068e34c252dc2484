"""The options of :class:`parquet_codec.writer.ParquetWriter`, as pyarrow names
them, and their resolution into the :class:`~parquet_codec.column_writer.ColumnOptions`
of each leaf column.

Per column options (``compression``, ``compression_level``,
``use_dictionary``, ``column_encoding``, ``write_statistics``,
``use_byte_stream_split``) take one value for all columns, a dict by column,
or (the booleans) a list of columns; a column is named by its top-level
column or a dotted leaf path, and a top-level name covers every leaf under it.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_codec.column_writer import (
    DEFAULT_DICTIONARY_PAGE_SIZE,
    DEFAULT_MAX_ROWS_PER_PAGE,
    DEFAULT_PAGE_SIZE,
    ColumnOptions,
    check_encoding,
)
from parquet_codec.compression import codec_from_name, codec_name
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import CompressionCodec, Encoding, Type
from parquet_codec.schema import SchemaNode
from parquet_codec.sorting import SortingColumn


def _per_column(value: Any, leaf: SchemaNode, default: Any, what: str) -> Any:
    """Resolve an option given as one value, a dict by column, or a list of columns."""
    names = (leaf.dotted_path, leaf.path[0])
    if isinstance(value, Mapping):
        for name in names:
            if name in value:
                return value[name]
        return default
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(name in value for name in names)
    if value is None:
        return default
    return value


def _codec(name: Any) -> int:
    if isinstance(name, int):
        return name
    if name is None:
        return CompressionCodec.UNCOMPRESSED
    try:
        return codec_from_name(str(name))
    except ValueError as exc:
        raise UnsupportedError(str(exc)) from None


#: The levels the codec libraries take, inclusive (zstandard, brotli, lz4's HC levels): pyarrow
#: takes any int for these codecs and its C libraries clamp it, so a level outside is clamped too.
_CLAMPED_LEVELS = {CompressionCodec.ZSTD: (-(2**17), 22), CompressionCodec.BROTLI: (0, 11),
                   CompressionCodec.LZ4: (1, 12), CompressionCodec.LZ4_RAW: (1, 12)}
_ZLIB_DEFAULT_LEVEL = 6  # what zlib makes of -1 (Z_DEFAULT_COMPRESSION)


def _compression_level(level: Any, codec: int, column: str) -> int | None:
    """A column's compression level as pyarrow takes it: clamped where pyarrow
    accepts any level (zstd, brotli, lz4); gzip's zlib takes -1..9 only, and
    codecs without levels (uncompressed, snappy) refuse one."""
    if level is None:
        return None
    try:
        level = operator.index(level)
    except TypeError:
        raise UnsupportedError(f"column {column!r}: compression level must be an integer, not {level!r}") from None
    if codec in _CLAMPED_LEVELS:
        low, high = _CLAMPED_LEVELS[codec]
        return min(max(level, low), high)
    name = codec_name(codec) if codec in CompressionCodec._VALUES_TO_NAMES else str(codec)
    if codec == CompressionCodec.GZIP:
        if level == -1:
            return _ZLIB_DEFAULT_LEVEL
        if 0 <= level <= 9:
            return level
        raise UnsupportedError(f"column {column!r}: gzip compression level must be in -1..9, not {level}")
    raise UnsupportedError(f"column {column!r}: codec {name!r} does not support setting a compression level")


def _encoding(name: Any) -> int | None:
    if name is None or isinstance(name, int):
        return name
    code = Encoding._NAMES_TO_VALUES.get(str(name).upper())
    if code is None:
        raise UnsupportedError(f"unknown encoding {name!r}")
    return code


def _max_rows_per_page(value: int | None) -> int | None:
    """pyarrow's ``max_rows_per_page``; None: no cap (page_cuts.py says why)."""
    if value is None:
        return DEFAULT_MAX_ROWS_PER_PAGE
    rows = value.__index__() if hasattr(value, "__index__") and not isinstance(value, bool) else 0
    if rows <= 0:
        # pyarrow takes 0 without complaint and never finishes the page; refuse it instead.
        raise UnsupportedError(f"max_rows_per_page must be a positive integer, not {value!r}")
    return rows


def _page_version(value: Any) -> int:
    text = str(value)
    if text in ("1.0", "1"):
        return 1
    if text in ("2.0", "2"):
        return 2
    raise UnsupportedError(f"data_page_version must be '1.0' or '2.0', not {value!r}")


@dataclass(frozen=True)
class WriterOptions:
    """Every option of :class:`ParquetWriter`, as pyarrow names them."""

    #: A codec name for every column, or {column: codec}; None, and a column the dict
    #: does not name, are UNCOMPRESSED, as in pyarrow (the default, not given, is snappy).
    compression: Any = "snappy"
    compression_level: Any = None
    use_dictionary: Any = True
    column_encoding: Mapping[str, str] | str | None = None
    data_page_version: str = "1.0"
    row_group_size: int | None = None
    #: Estimated input bytes per row group at most (writer.DEFAULT_MAX_ROW_GROUP_BYTES when neither
    #: this nor row_group_size is given; a row_group_size alone is honoured exactly, as in pyarrow).
    max_row_group_bytes: int | None = None
    data_page_size: int | None = None
    #: Rows per data page at most (None: no cap, unlike pyarrow's 20000); nested pages start at a record.
    max_rows_per_page: int | None = None
    #: BYTE_STREAM_SPLIT for columns written without a dictionary: True for every column, or a list.
    use_byte_stream_split: Any = False
    #: False names list elements after the Arrow value field ("item"), as pyarrow does (written_names.py).
    use_compliant_nested_type: bool = True
    dictionary_pagesize_limit: int | None = None
    write_statistics: Any = True
    write_page_checksum: bool = False
    key_value_metadata: Mapping[str, str | None] | None = None
    #: Store the Arrow schema of tables that carry one (from pyarrow, or read from a file
    #: that stored one) under ARROW:schema, as pyarrow does (arrow_origin.py). False also leaves
    #: out the table's own metadata (pandas' too), as pyarrow does; key_value_metadata is written.
    store_schema: bool = True
    sorting_columns: Sequence[SortingColumn] | None = None  # (pyarrow's and the Thrift struct too)
    statistics_truncate_length: int | None = 4096
    #: ColumnIndex and OffsetIndex for every column chunk, after the row groups (writer_indexes.py).
    write_page_index: bool = True
    #: {column: {"ndv": N, "fpp": P} | True}, as pyarrow names it (writer_indexes.bloom_specs).
    bloom_filter_options: Mapping[str, Any] | None = None
    #: Whose bloom filter sizing to reproduce: "arrow" (pyarrow 26) or "parquet-java".
    bloom_filter_sizing: str = "arrow"
    #: Largest bitset in bytes (default: 128 MiB with Arrow sizing, 1 MiB with parquet-java's).
    bloom_filter_max_bytes: int | None = None
    #: crypto.FileEncryptionProperties (explicit keys, or from CryptoFactory); None writes plaintext.
    encryption: Any = None
    #: Spark's schema entry (spark.py): True derives it, or a SparkSchema / its JSON; None writes none.
    spark_schema: Any = None
    #: Stored types (stored_types.py): "1.0", "2.4" or "2.6" (None: "2.6").
    version: str | None = "2.6"
    #: Cast every timestamp to "ms" or "us"; lost precision raises unless allow_truncated_timestamps.
    coerce_timestamps: str | None = None
    allow_truncated_timestamps: bool = False
    #: Timestamps as Impala INT96, without annotation (before coerce_timestamps).
    use_deprecated_int96_timestamps: bool | None = None
    #: Decimals of precision <= 18 as INT32 / INT64.
    store_decimal_as_integer: bool = False
    #: TIME columns annotated isAdjustedToUTC=true.
    write_time_adjusted_to_utc: bool = False
    #: "spark": Spark-safe top-level names and INT96 timestamps unless said otherwise (written_names.py).
    flavor: str | None = None
    #: Where a path is written: a pyarrow or fsspec filesystem (sink.py).
    filesystem: Any = None
    #: pyarrow's batch size for its column writers; pages here are cut by size, so it has no use.
    write_batch_size: int | None = None
    #: pyarrow's ParquetWriter takes it and writes with its "V2" engine whatever it says; no effect here either.
    writer_engine_version: Any = None
    #: A list the written file's FileMetaData (metadata_views) is appended to on close, as pyarrow's.
    metadata_collector: list | None = field(default=None, compare=False)
    #: pyarrow's content-defined page chunking; not implemented (a true value raises).
    use_content_defined_chunking: Any = False

    def __post_init__(self) -> None:
        if self.flavor is not None and self.flavor != "spark":
            raise UnsupportedError(f"unknown flavor {self.flavor!r}; the only flavor is 'spark'")
        if self.use_content_defined_chunking:
            raise UnsupportedError("use_content_defined_chunking is not supported by this writer")
        if self.metadata_collector is not None and not callable(getattr(self.metadata_collector, "append", None)):
            # checked now: it is used only after the file is published
            raise TypeError(f"metadata_collector must be a list, not {type(self.metadata_collector).__name__}")

    def column(self, leaf: SchemaNode) -> ColumnOptions:
        """The options of one leaf column."""
        encoding = _encoding(_per_column(self.column_encoding, leaf, None, "column_encoding"))
        use_dictionary = bool(_per_column(self.use_dictionary, leaf, True, "use_dictionary"))
        if self._byte_stream_split(leaf):
            if encoding is not None:
                raise UnsupportedError(f"column {leaf.dotted_path!r}: use_byte_stream_split cannot be passed "
                                       "together with column_encoding")
            # pyarrow prefers the dictionary: a column it may dictionary-encode (any but BOOLEAN)
            # ignores BYTE_STREAM_SPLIT, unchecked, and falls back to its usual encoding.
            if not use_dictionary or leaf.physical_type == Type.BOOLEAN:
                encoding = Encoding.BYTE_STREAM_SPLIT
        if encoding is not None:
            check_encoding(encoding, leaf.physical_type, leaf.dotted_path)
        codec = _codec(_per_column(self.compression, leaf, None, "compression"))
        return ColumnOptions(
            codec=codec,
            compression_level=_compression_level(_per_column(self.compression_level, leaf, None, "compression_level"),
                                                 codec, leaf.dotted_path),
            use_dictionary=use_dictionary,
            encoding=encoding,
            page_version=_page_version(self.data_page_version),
            data_page_size=self.data_page_size or DEFAULT_PAGE_SIZE,
            dictionary_pagesize_limit=self.dictionary_pagesize_limit or DEFAULT_DICTIONARY_PAGE_SIZE,
            write_statistics=bool(_per_column(self.write_statistics, leaf, True, "write_statistics")),
            write_page_checksum=bool(self.write_page_checksum),
            statistics_truncate_length=self.statistics_truncate_length,
            max_rows_per_page=_max_rows_per_page(self.max_rows_per_page),
        )

    def _byte_stream_split(self, leaf: SchemaNode) -> bool:
        """Whether ``use_byte_stream_split`` selects the leaf. As in pyarrow, True
        selects every column and refuses any ``column_encoding``; a list names
        columns, none of which ``column_encoding`` may also name."""
        chosen, explicit = self.use_byte_stream_split, self.column_encoding
        if chosen is None or chosen is False:
            return False
        if chosen is True:
            if explicit is not None:
                raise UnsupportedError("use_byte_stream_split=True cannot be passed together with column_encoding")
            return True
        names = [chosen] if isinstance(chosen, str) else list(chosen)
        if explicit is not None and (not isinstance(explicit, Mapping)
                                     or any(explicit.get(name) is not None for name in names)):
            raise UnsupportedError("use_byte_stream_split cannot name a column column_encoding also sets")
        return bool(_per_column(names, leaf, False, "use_byte_stream_split"))


__all__ = ["WriterOptions"]
