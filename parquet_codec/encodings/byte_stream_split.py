"""BYTE_STREAM_SPLIT (spec, Encodings, "Byte Stream Split: (BYTE_STREAM_SPLIT = 9)").

Byte ``k`` of every value goes to stream ``k``; the ``K`` streams of ``N``
bytes are concatenated. Encoding and decoding are a transpose of the
``(N, K)`` byte matrix. Supported for FLOAT, DOUBLE, INT32, INT64 and
FIXED_LEN_BYTE_ARRAY (``K = type_length``, values as ``(n, K)`` uint8).
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.plain import as_fixed_rows, as_numeric, fixed_width, type_name
from parquet_codec.encodings.varint import Buffer, decoding_error, views
from parquet_codec.format.ttypes import Type

_ENCODING = "BYTE_STREAM_SPLIT"
_MAX_STREAM_LOOP = 16
_SUPPORTED = (Type.FLOAT, Type.DOUBLE, Type.INT32, Type.INT64, Type.FIXED_LEN_BYTE_ARRAY)


def _layout(physical_type: int, type_length: int | None) -> tuple[int, np.dtype | None]:
    if physical_type not in _SUPPORTED:
        raise decoding_error(_ENCODING, f"{type_name(physical_type)} is not supported", 0)
    return fixed_width(physical_type, type_length, _ENCODING)


class ByteStreamSplit:
    """Encoder/decoder of BYTE_STREAM_SPLIT."""

    @staticmethod
    def decode(
        data: Buffer, physical_type: int, count: int, *, type_length: int | None = None, offset: int = 0
    ) -> tuple[np.ndarray, int]:
        """Decode ``count`` values from ``count * K`` bytes at ``offset``; return (values, bytes consumed)."""
        width, dtype = _layout(physical_type, type_length)
        if count < 0:
            raise ValueError(f"negative count {count}")
        _, arr = views(data)
        nbytes = count * width
        available = len(arr) - offset
        if nbytes > available:
            raise decoding_error(_ENCODING, f"{count} values need {nbytes} bytes, only {max(available, 0)} left", offset)
        streams = arr[offset : offset + nbytes].reshape(width, count)
        if width <= _MAX_STREAM_LOOP:
            rows = np.empty((count, width), dtype=np.uint8)
            for k in range(width):  # one strided copy per stream beats a generic transpose
                rows[:, k] = streams[k]
        else:
            rows = np.ascontiguousarray(streams.T)
        if dtype is None:
            return rows, nbytes
        return rows.view(dtype).reshape(count).astype(dtype.newbyteorder("=")), nbytes

    @staticmethod
    def encode(values: object, physical_type: int, *, type_length: int | None = None) -> bytes:
        """Encode values (numeric array-like, or ``(n, K)`` rows / bytes for FIXED_LEN_BYTE_ARRAY)."""
        width, dtype = _layout(physical_type, type_length)
        if dtype is None:
            rows = as_fixed_rows(values, width)
        else:
            rows = as_numeric(values, dtype).view(np.uint8).reshape(-1, width)
        return rows.T.tobytes()
