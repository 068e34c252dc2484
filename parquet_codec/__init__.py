"""parquet-codec: the Apache Parquet file format in Python and numpy."""

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

__version__ = "0.1.0"

__all__ = [
    "ChecksumError",
    "CorruptFileError",
    "DecodingError",
    "DecompressionError",
    "DecryptionError",
    "EncryptionError",
    "MetadataError",
    "ParquetError",
    "ResourceLimitError",
    "SchemaError",
    "UnsupportedError",
    "__version__",
]
