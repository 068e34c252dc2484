"""Byte-level helpers shared by every encoding: buffer views, errors, varints.

Parquet stores its variable-length integers as ULEB128 ("varint-encode()" in
the spec's RLE grammar) and signed ones as zigzag-mapped ULEB128 (spec,
"Delta Encoding"). All decoders read them through this one module so bounds
checks and error messages are uniform: every :class:`DecodingError` raised by
the encodings reads ``"<ENCODING>: <what went wrong> at byte <offset>"``.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.errors import DecodingError

#: Anything exposing contiguous bytes: bytes, bytearray, memoryview, uint8 ndarray.
Buffer = bytes | bytearray | memoryview | np.ndarray

_MAX_VARINT_BYTES = 10  # ceil(64 / 7): a longer ULEB128 cannot hold a 64-bit value
_U64_MAX = (1 << 64) - 1


def decoding_error(encoding: str, message: str, offset: int) -> DecodingError:
    """The uniform error of this package's decoders, naming encoding and byte offset."""
    return DecodingError(f"{encoding}: {message} at byte {offset}")


def views(data: Buffer) -> tuple[memoryview, np.ndarray]:
    """Return (memoryview of unsigned bytes, uint8 ndarray) over the same memory, no copy.

    The memoryview serves the few scalar reads (headers), because indexing it
    yields Python ints; the ndarray serves the bulk array work.
    """
    if isinstance(data, np.ndarray):
        arr = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    else:
        arr = np.frombuffer(data, dtype=np.uint8)
    return memoryview(arr), arr


def read_uleb128(buf: memoryview | bytes, pos: int, encoding: str, what: str = "varint") -> tuple[int, int]:
    """Read one ULEB128 value at ``pos``; return (value, position after it).

    Rejects truncation, encodings longer than 10 bytes and values above 2**64-1,
    so a corrupt header can never describe an impossible size.
    """
    end = len(buf)
    if pos >= end:
        raise decoding_error(encoding, f"{what} missing (end of data)", pos)
    byte = buf[pos]
    if byte < 0x80:  # fast path: most headers fit one byte
        return byte, pos + 1
    start = pos
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise decoding_error(encoding, f"truncated {what}", start)
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            break
        shift += 7
        if shift >= 7 * _MAX_VARINT_BYTES:
            raise decoding_error(encoding, f"{what} longer than {_MAX_VARINT_BYTES} bytes", start)
    if result > _U64_MAX:
        raise decoding_error(encoding, f"{what} {result} exceeds 64 bits", start)
    return result, pos


def read_zigzag(buf: memoryview | bytes, pos: int, encoding: str, what: str = "varint") -> tuple[int, int]:
    """Read a zigzag ULEB128 value (signed, 64-bit range); return (value, next position)."""
    raw, pos = read_uleb128(buf, pos, encoding, what)
    return zigzag_decode(raw), pos


def zigzag_decode(raw: int) -> int:
    """Map 0, 1, 2, 3, ... back to 0, -1, 1, -2, ..."""
    return (raw >> 1) ^ -(raw & 1)


def zigzag_encode(value: int) -> int:
    """Map a signed 64-bit value to an unsigned one with small magnitudes staying small."""
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"zigzag value {value} outside the signed 64-bit range")
    return ((value << 1) ^ (value >> 63)) & _U64_MAX


def encode_uleb128(value: int) -> bytes:
    """ULEB128 bytes of a non-negative integer below 2**64."""
    if not 0 <= value <= _U64_MAX:
        raise ValueError(f"ULEB128 value {value} outside [0, 2**64)")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def zigzag_encode_array(values: np.ndarray) -> np.ndarray:
    """Vectorized zigzag of int64 (or int32) values, returned as uint64."""
    signed = np.asarray(values).astype(np.int64)
    return ((signed << 1) ^ (signed >> 63)).view(np.uint64)


def zigzag_decode_array(raw: np.ndarray) -> np.ndarray:
    """Vectorized inverse zigzag of uint64 values; the result is the two's complement as uint64."""
    raw = np.asarray(raw, dtype=np.uint64)
    # -(raw & 1) in wrapping unsigned arithmetic is all ones or zero.
    return (raw >> np.uint64(1)) ^ ((raw & np.uint64(1)) * np.uint64(_U64_MAX))


def encode_uleb128_array(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ULEB128-encode many uint64 values at once.

    Returns (the concatenated encodings as uint8, the byte length of each).
    """
    v = np.asarray(values, dtype=np.uint64).reshape(-1)
    width = max(1, -(-int(v.max()).bit_length() // 7)) if v.size else 1  # bytes of the longest encoding
    lengths = np.ones(v.shape, dtype=np.int64)
    for k in range(1, width):
        lengths += v >= np.uint64(1) << np.uint64(7 * k)
    shifts = np.arange(width, dtype=np.uint64) * np.uint64(7)
    groups = ((v[:, None] >> shifts) & np.uint64(0x7F)).astype(np.uint8)
    position = np.arange(width)
    groups[position[None, :] < (lengths - 1)[:, None]] |= 0x80  # continuation bits
    return groups[position[None, :] < lengths[:, None]], lengths
