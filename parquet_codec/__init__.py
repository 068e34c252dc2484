"""parquet-codec: the Apache Parquet file format in Python and numpy."""

from parquet_codec._version import __version__
from parquet_codec.crypto import CryptoFactory, FileDecryptionProperties, FileEncryptionProperties
from parquet_codec.dataset import ParquetDataset, read_dataset, read_pandas, read_table
from parquet_codec.dataset_write import write_to_dataset
from parquet_codec.errors import (
    ChecksumError,
    CorruptFileError,
    DecodingError,
    DecompressionError,
    DecryptionError,
    EncryptionError,
    MetadataError,
    ParquetError,
    ResourceLimitError,
    SchemaError,
    UnsupportedError,
)
from parquet_codec.metadata_views import ColumnChunkMetaData, FileMetaData, RowGroupMetaData, Statistics
from parquet_codec.reader import ParquetFile, read_metadata, read_schema
from parquet_codec.schema import Schema
from parquet_codec.schema_views import ColumnSchema, ParquetLogicalType, ParquetSchema
from parquet_codec.sorting import SortingColumn
from parquet_codec.table import Column, Table
from parquet_codec.writer import ParquetWriter, write_metadata, write_table

__all__ = [
    "ChecksumError",
    "Column",
    "ColumnChunkMetaData",
    "ColumnSchema",
    "CryptoFactory",
    "CorruptFileError",
    "DecodingError",
    "DecompressionError",
    "DecryptionError",
    "EncryptionError",
    "FileDecryptionProperties",
    "FileEncryptionProperties",
    "FileMetaData",
    "MetadataError",
    "ParquetDataset",
    "ParquetError",
    "ParquetFile",
    "ParquetLogicalType",
    "ParquetSchema",
    "ParquetWriter",
    "ResourceLimitError",
    "RowGroupMetaData",
    "Schema",
    "SchemaError",
    "SortingColumn",
    "Statistics",
    "Table",
    "UnsupportedError",
    "__version__",
    "read_dataset",
    "read_metadata",
    "read_pandas",
    "read_schema",
    "read_table",
    "write_metadata",
    "write_table",
    "write_to_dataset",
]
