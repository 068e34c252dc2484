"""Parquet value and level encodings (spec section "Encodings"), vectorized with numpy.

Every decoder takes the bytes, the number of values the caller expects and
an optional start ``offset``, and returns ``(values, bytes_consumed)``;
malformed input raises :class:`parquet_codec.errors.DecodingError`.
"""

from parquet_codec.encodings.bitpack import bit_length, pack, unpack
from parquet_codec.encodings.byte_arrays import ByteArrays, gather_ranges
from parquet_codec.encodings.byte_stream_split import ByteStreamSplit
from parquet_codec.encodings.delta import DeltaBinaryPacked, DeltaByteArray, DeltaLengthByteArray
from parquet_codec.encodings.dictionary import decode_indices, encode_indices, gather, index_bit_width
from parquet_codec.encodings.plain import decode_plain, encode_plain
from parquet_codec.encodings.rle import BitPacked, RleBitPackedHybrid

__all__ = [
    "BitPacked",
    "ByteArrays",
    "ByteStreamSplit",
    "DeltaBinaryPacked",
    "DeltaByteArray",
    "DeltaLengthByteArray",
    "RleBitPackedHybrid",
    "bit_length",
    "decode_indices",
    "decode_plain",
    "encode_indices",
    "encode_plain",
    "gather",
    "gather_ranges",
    "index_bit_width",
    "pack",
    "unpack",
]
