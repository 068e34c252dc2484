"""PLAIN encoding for the eight physical types (spec, Encodings, "Plain: (PLAIN = 0)").

Decoded representations:

* BOOLEAN -> ``bool`` array (the bytes are bit-packed LSB first),
* INT32 / INT64 / FLOAT / DOUBLE -> ``int32`` / ``int64`` / ``float32`` / ``float64``,
* INT96 -> ``uint8`` array of shape ``(n, 12)``,
* BYTE_ARRAY -> :class:`ByteArrays`,
* FIXED_LEN_BYTE_ARRAY -> ``uint8`` array of shape ``(n, type_length)``.

Decoded arrays are fresh, writable copies, never views into the page buffer.

BYTE_ARRAY values form a dependency chain: value ``i + 1``'s 4-byte length
sits right after value ``i``'s bytes. The start positions are found by the
first of four means that succeeds, and the bytes are then gathered in one
vectorized copy:

* all values share the first value's length (hashes, UUIDs): checked with
  one strided comparison (~50 M values/s);
* values under 256 bytes with no three zero bytes in a row (text): the
  prefixes are the positions followed by three zero bytes, and the chain
  through them is checked in one pass (:func:`.prefix_walk.short_value_starts`);
* lock-step walkers (:mod:`.prefix_walk`), for many short values: each
  follows the chain through one block of the stream, and the blocks are
  proven to join up (2-4x faster than the loop on short strings);
* a loop over the length prefixes (``struct.unpack_from``, ~5-10 M
  values/s), which also reports malformed streams precisely. Pointer
  doubling over every byte position measured slower than this loop.

:func:`plain_byte_array_ranges` stops short of the copy, for callers that
copy the values straight into a larger buffer (a column chunk's builder).
"""

from __future__ import annotations

import struct
from array import array

import numpy as np

from parquet_codec.encodings.bitpack import pack, unpack
from parquet_codec.encodings.byte_arrays import ByteArrays, gather_ranges
from parquet_codec.encodings.prefix_walk import short_value_starts, walk_starts
from parquet_codec.encodings.varint import Buffer, decoding_error, views
from parquet_codec.format.ttypes import Type
from parquet_codec.limits import reserve_items

_ENCODING = "PLAIN"
_U32 = struct.Struct("<I")
_NUMERIC = {Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}
_INT96_WIDTH = 12
# Values of one length are checked on this many first, cheaply, then on all.
_EQUAL_PROBE = 64


def type_name(physical_type: int) -> str:
    """Spec name of a physical type id, for messages."""
    return Type._VALUES_TO_NAMES.get(physical_type, f"physical type {physical_type}")


def fixed_width(physical_type: int, type_length: int | None, encoding: str) -> tuple[int, np.dtype | None]:
    """(bytes per value, little-endian dtype or None for raw byte rows) of a fixed-size type.

    Raises DecodingError for BOOLEAN/BYTE_ARRAY/unknown types and for a
    missing or negative FIXED_LEN_BYTE_ARRAY length.
    """
    if physical_type in _NUMERIC:
        dtype = np.dtype(_NUMERIC[physical_type])
        return dtype.itemsize, dtype
    if physical_type == Type.INT96:
        return _INT96_WIDTH, None
    if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        if type_length is None or type_length < 0:
            raise decoding_error(encoding, f"FIXED_LEN_BYTE_ARRAY needs a type_length >= 0, got {type_length}", 0)
        return type_length, None
    raise decoding_error(encoding, f"{type_name(physical_type)} is not a fixed-width type for this encoding", 0)


def decode_plain(
    data: Buffer, physical_type: int, count: int, *, type_length: int | None = None, offset: int = 0
) -> tuple[np.ndarray | ByteArrays, int]:
    """Decode ``count`` PLAIN values starting at byte ``offset``; return (values, bytes consumed)."""
    if count < 0:
        raise ValueError(f"negative count {count}")
    mv, arr = views(data)
    if physical_type == Type.BOOLEAN:
        nbytes = (count + 7) // 8
        _require(arr, offset, nbytes, f"{count} BOOLEAN values")
        return unpack(arr, 1, count, offset=offset).astype(np.bool_), nbytes
    if physical_type == Type.BYTE_ARRAY:
        return _decode_byte_arrays(mv, arr, count, offset)
    width, dtype = fixed_width(physical_type, type_length, _ENCODING)
    nbytes = count * width
    _require(arr, offset, nbytes, f"{count} {type_name(physical_type)} values")
    reserve_items(count, max(width, 1), f"{count} {type_name(physical_type)} values")
    raw = arr[offset : offset + nbytes]
    if dtype is None:
        return raw.reshape(count, width).copy(), nbytes
    return raw.view(dtype).astype(dtype.newbyteorder("=")), nbytes


def plain_dtype(physical_type: int) -> np.dtype | None:
    """The native dtype of a 1-D PLAIN type (numbers and BOOLEAN), None for the others."""
    if physical_type == Type.BOOLEAN:
        return np.dtype(np.bool_)
    code = _NUMERIC.get(physical_type)
    return None if code is None else np.dtype(code).newbyteorder("=")


def decode_plain_into(data: Buffer, physical_type: int, out: np.ndarray, *, offset: int = 0) -> int:
    """Decode ``len(out)`` PLAIN values of a 1-D type (:func:`plain_dtype`) into
    ``out`` (numbers with no intermediate array); return the bytes consumed."""
    count = len(out)
    out[:] = plain_values(data, physical_type, count, offset=offset)
    return (count + 7) // 8 if physical_type == Type.BOOLEAN else count * out.itemsize


def plain_values(data: Buffer, physical_type: int, count: int, *, offset: int = 0) -> np.ndarray:
    """``count`` PLAIN values of a 1-D type (:func:`plain_dtype`): numbers as a
    little-endian view of ``data``, booleans unpacked."""
    _, arr = views(data)
    if physical_type == Type.BOOLEAN:
        nbytes = (count + 7) // 8
        _require(arr, offset, nbytes, f"{count} BOOLEAN values")
        return np.unpackbits(arr[offset : offset + nbytes], count=count, bitorder="little").view(np.bool_)
    dtype = np.dtype(_NUMERIC[physical_type])
    nbytes = count * dtype.itemsize
    _require(arr, offset, nbytes, f"{count} {type_name(physical_type)} values")
    return arr[offset : offset + nbytes].view(dtype)


def _require(arr: np.ndarray, offset: int, nbytes: int, what: str) -> None:
    available = len(arr) - offset
    if offset < 0 or nbytes > available:
        raise decoding_error(_ENCODING, f"{what} need {nbytes} bytes, only {max(available, 0)} remain", offset)


def _decode_byte_arrays(mv: memoryview, arr: np.ndarray, count: int, offset: int) -> tuple[ByteArrays, int]:
    starts, lengths, end = _locate_byte_arrays(mv, arr, count, offset)
    return ByteArrays(*gather_ranges(arr, starts, lengths)), end - offset


def plain_byte_array_ranges(data: Buffer, count: int, *, offset: int = 0, text: bool = True
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Where the ``count`` PLAIN BYTE_ARRAY values starting at byte ``offset``
    lie, to copy them elsewhere: (the bytes as uint8, start of each value,
    length of each value, bytes consumed). Raises as :func:`decode_plain`.
    ``text=False``: the caller found the stream is not of short values
    without three zero bytes in a row (:func:`.prefix_walk.length_bytes`)."""
    if count < 0:
        raise ValueError(f"negative count {count}")
    mv, arr = views(data)
    starts, lengths, end = _locate_byte_arrays(mv, arr, count, offset, text)
    return arr, starts, lengths, end - offset


def _locate_byte_arrays(mv: memoryview, arr: np.ndarray, count: int, offset: int, text: bool = True
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """(start of each value, length of each value, end of the last one);
    ``text=False`` skips :func:`.prefix_walk.short_value_starts`."""
    if count == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), offset
    # Every value has at least its 4-byte prefix: bounds `count` before allocating.
    _require(arr, offset, 4 * count, f"{count} BYTE_ARRAY values")
    starts, end = (_equal_length_starts(arr, count, offset) or (text and short_value_starts(arr, count, offset))
                   or walk_starts(arr, count, offset) or _scan_starts(mv, count, offset))
    lengths = np.empty(count, dtype=np.int64)
    np.subtract(starts[1:], starts[:-1] + 4, out=lengths[:-1])
    lengths[-1] = end - starts[-1]
    return starts, lengths, end


def _equal_length_starts(arr: np.ndarray, count: int, offset: int) -> tuple[np.ndarray, int] | None:
    """(data starts, end) if every value has the first value's length (checked vectorized), else None."""
    first = int(arr[offset : offset + 4].view("<u4")[0])
    stride = 4 + first
    if offset + count * stride > len(arr):
        return None
    prefixes = np.ndarray((count,), dtype="<u4", buffer=arr, offset=offset, strides=(stride,))
    if not ((prefixes[:_EQUAL_PROBE] == first).all() and (prefixes == first).all()):
        return None
    return offset + 4 + stride * np.arange(count, dtype=np.int64), offset + count * stride


def _scan_starts(mv: memoryview, count: int, offset: int) -> tuple[np.ndarray, int]:
    """Walk the length prefixes; return (data start of each value, end of the last value)."""
    unpack_from = _U32.unpack_from
    starts = array("q", bytes(8 * count))
    pos = offset
    length = 0
    i = 0
    try:
        for i in range(count):
            (length,) = unpack_from(mv, pos)
            pos += 4
            starts[i] = pos
            pos += length
    except struct.error:
        if i and pos > len(mv):
            _overrun(i - 1, starts[i - 1], length, len(mv))
        raise decoding_error(_ENCODING, f"BYTE_ARRAY value {i} length prefix truncated", pos) from None
    if pos > len(mv):
        _overrun(count - 1, starts[count - 1], length, len(mv))
    return np.frombuffer(starts, dtype=np.int64), pos


def _overrun(index: int, start: int, length: int, end: int) -> None:
    raise decoding_error(
        _ENCODING, f"BYTE_ARRAY value {index} of length {length} runs past the end of data ({end})", start - 4
    )


def encode_plain(values: object, physical_type: int, *, type_length: int | None = None) -> bytes:
    """PLAIN-encode values given in the representation :func:`decode_plain` returns.

    Also accepts plain Python sequences (lists of ints/floats/bools, lists of
    ``bytes`` for BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96). Raises
    ValueError for values that do not fit the physical type.
    """
    if physical_type == Type.BOOLEAN:
        return pack(np.asarray(values, dtype=np.bool_), 1)
    if physical_type == Type.BYTE_ARRAY:
        return _encode_byte_arrays(values)
    width, dtype = fixed_width(physical_type, type_length, _ENCODING)
    if dtype is None:
        return as_fixed_rows(values, width).tobytes()
    return as_numeric(values, dtype).tobytes()


def as_numeric(values: object, dtype: np.dtype) -> np.ndarray:
    """Values as a little-endian array of ``dtype``, refusing integers that would wrap.

    An unsigned ndarray of the same item size is taken as its two's
    complement bit pattern (how Parquet stores UINT_32 / UINT_64 in INT32 /
    INT64); Python ints must fit the signed range.
    """
    v = np.asarray(values)
    if dtype.kind == "i" and v.dtype.kind in "iu" and v.size:
        if isinstance(values, np.ndarray) and v.dtype.kind == "u" and v.dtype.itemsize == dtype.itemsize:
            v = v.view(v.dtype.str.replace("u", "i"))
        info = np.iinfo(dtype)
        if int(v.min()) < info.min or int(v.max()) > info.max:
            raise ValueError(f"values outside the range of {dtype.name}")
    elif dtype.kind == "i" and v.dtype.kind not in "iub" and v.size:
        raise TypeError(f"cannot store {v.dtype} values as {dtype.name}")
    return np.ascontiguousarray(v, dtype=dtype).reshape(-1)


def as_fixed_rows(values: object, width: int) -> np.ndarray:
    """Fixed-width values as an ``(n, width)`` uint8 array; ValueError on a wrong width."""
    if isinstance(values, ByteArrays):
        lengths = values.lengths()
        if len(lengths) and (lengths != width).any():
            raise ValueError(f"all values must be {width} bytes long")
        return values.data[values.offsets[0] : values.offsets[-1]].reshape(-1, width)
    if isinstance(values, np.ndarray) and values.dtype == np.uint8:
        if values.ndim != 2 or values.shape[1] != width:
            raise ValueError(f"expected an (n, {width}) uint8 array, got shape {values.shape}")
        return np.ascontiguousarray(values)
    items = [bytes(v) for v in values]  # type: ignore[union-attr]
    if any(len(v) != width for v in items):
        raise ValueError(f"all values must be {width} bytes long")
    return np.frombuffer(b"".join(items), dtype=np.uint8).reshape(len(items), width)


def as_byte_arrays(values: object) -> ByteArrays:
    """Accept ByteArrays or any iterable of bytes-like / str values."""
    return values if isinstance(values, ByteArrays) else ByteArrays.from_pylist(values)  # type: ignore[arg-type]


def _encode_byte_arrays(values: object) -> bytes:
    return plain_byte_arrays(values).tobytes()


def plain_byte_arrays(values: object) -> np.ndarray:
    """PLAIN BYTE_ARRAY values (each a 4-byte little-endian length, then its
    bytes) as a uint8 array: :func:`encode_plain` without the copy into
    ``bytes``, for callers that only join or compress the result."""
    ba = as_byte_arrays(values)
    n = len(ba)
    lengths = ba.lengths()
    if n and lengths.max() > 0x7FFFFFFF:
        raise ValueError("BYTE_ARRAY values are limited to 2**31 - 1 bytes")
    base, end = int(ba.offsets[0]), int(ba.offsets[-1])
    data = ba.data[base:end]
    prefixes = lengths.astype("<u4").view(np.uint8).reshape(n, 4)
    if n and lengths.min() == lengths.max():  # one length: rows of prefix and value
        rows = np.empty((n, 4 + int(lengths[0])), dtype=np.uint8)
        rows[:, :4] = prefixes
        rows[:, 4:] = data.reshape(n, -1)
        return rows.reshape(-1)
    out = np.empty(4 * n + end - base, dtype=np.uint8)
    at = np.asarray(ba.offsets[:-1], dtype=np.int64) - base
    at += 4 * np.arange(n, dtype=np.int64)  # where each length prefix goes
    is_data = np.ones(len(out), dtype=np.bool_)
    for k in range(4):  # byte stores: faster than stores through an unaligned uint32 view
        is_data[at] = False
        out[at] = prefixes[:, k]
        at += 1
    out[is_data] = data
    return out
