"""The one bit-packing kernel behind every encoding that packs integers.

Spec, "Run Length Encoding / Bit-Packing Hybrid" (note 1) and
"Bit-packed (Deprecated)": values of ``bit_width`` bits are stored back to
back. The RLE hybrid (and DELTA_BINARY_PACKED, and PLAIN booleans) fill each
byte from its least significant bit ("LSB first"); the deprecated BIT_PACKED
encoding fills from the most significant bit ("MSB first").

Both orders have the same period: 8 values of ``w`` bits occupy exactly ``w``
bytes, and value ``k`` of every such group starts at the same bit offset
``k * w``. The kernel therefore works column-wise: for each ``k`` in 0..7 it
views the (zero-padded) buffer as unaligned little- or big-endian words with
a stride of ``w`` bytes and extracts all the ``k``-th values with one shift
and one mask. That is eight passes of numpy work whatever the count, with no
per-value Python and no bit-per-byte blow-up (``np.unpackbits`` would need
``count * w`` bytes of scratch).
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings.varint import Buffer, decoding_error, views

MAX_BIT_WIDTH = 64


def output_dtype(bit_width: int) -> type[np.unsignedinteger]:
    """The dtype :func:`unpack` returns: uint32 up to 32 bits, uint64 above."""
    return np.uint32 if bit_width <= 32 else np.uint64


def packed_size(count: int, bit_width: int) -> int:
    """Bytes holding ``count`` values of ``bit_width`` bits (last byte zero-padded)."""
    return (count * bit_width + 7) // 8


def _check_width(bit_width: int) -> None:
    # Widths come from the caller, who validated any width read from a file;
    # an out-of-range width here is a programming error, not corrupt data.
    if not 0 <= bit_width <= MAX_BIT_WIDTH:
        raise ValueError(f"bit width {bit_width} outside 0..{MAX_BIT_WIDTH}")


def unpack(data: Buffer, bit_width: int, count: int, *, offset: int = 0, msb_first: bool = False) -> np.ndarray:
    """Unpack ``count`` values of ``bit_width`` bits starting at byte ``offset``.

    Returns uint32 for widths up to 32 and uint64 for 33..64; width 0 gives
    zeros without reading any byte. Raises DecodingError when the buffer holds
    fewer than ``ceil(count * bit_width / 8)`` bytes after ``offset``.
    """
    _check_width(bit_width)
    if count < 0 or offset < 0:
        raise ValueError(f"negative count {count} or offset {offset}")
    dtype = output_dtype(bit_width)
    if bit_width == 0 or count == 0:
        return np.zeros(count, dtype=dtype)
    _, arr = views(data)
    nbytes = packed_size(count, bit_width)
    if offset + nbytes > len(arr):
        available = max(len(arr) - offset, 0)
        raise decoding_error(
            "bit-packing",
            f"{count} values of {bit_width} bits need {nbytes} bytes, only {available} available",
            offset,
        )
    raw = arr[offset : offset + nbytes]
    if bit_width == 1:  # levels and booleans: numpy's own bit unpacker
        return np.unpackbits(raw, count=count, bitorder="big" if msb_first else "little").astype(dtype)
    if not msb_first and bit_width in (8, 16, 32, 64):
        # Byte-aligned widths are plain little-endian integers.
        return raw.view(f"<u{bit_width // 8}").astype(dtype)
    groups = (count + 7) // 8
    # Zero padding lets every word load (up to 8 bytes + 1 spill byte) stay in bounds.
    padded = np.zeros(groups * bit_width + 9, dtype=np.uint8)
    padded[:nbytes] = raw
    if groups <= _SMALL_GROUPS and bit_width <= 25 and not msb_first:
        return _unpack_rows(padded, bit_width, groups)[:count]
    out = np.empty((groups, 8), dtype=dtype)
    for k in range(8):
        _unpack_column(padded, bit_width, groups, k, msb_first, out[:, k])
    return out.reshape(-1)[:count]


#: Up to this many 8-value groups, all eight values of a group are cut at once
#: (fewer numpy calls); beyond, column by column (less memory traffic).
_SMALL_GROUPS = 1 << 14


def _unpack_rows(padded: np.ndarray, width: int, groups: int) -> np.ndarray:
    """LSB-first values of up to 25 bits (a value and its bit offset fit in a
    32-bit word): the word holding each of a group's eight values, for all
    groups at once, shifted and masked."""
    bits = np.arange(0, 8 * width, width)
    words = np.ndarray((groups, width), dtype="<u4", buffer=padded, strides=(width, 1))[:, bits >> 3]
    words >>= (bits & 7).astype(np.uint32)
    words &= np.uint32((1 << width) - 1)
    return words.reshape(-1)


def _word_view(padded: np.ndarray, start: int, groups: int, stride: int, nbytes: int, msb_first: bool):
    """Unaligned strided view of ``groups`` words of ``nbytes`` bytes, one per 8-value group."""
    dtype = np.dtype(f"{'>' if msb_first else '<'}u{nbytes}")
    return np.ndarray((groups,), dtype=dtype, buffer=padded, offset=start, strides=(stride,))


def _unpack_column(
    padded: np.ndarray, width: int, groups: int, k: int, msb_first: bool, out: np.ndarray
) -> None:
    """Extract value ``k`` of every 8-value group into ``out``."""
    bit = k * width
    start, shift = bit >> 3, bit & 7
    mask = (1 << width) - 1
    span = shift + width  # bits to load, counted from the first byte's boundary
    if span <= 64:
        word_bits = 32 if span <= 32 else 64
        word = _word_view(padded, start, groups, width, word_bits // 8, msb_first)
        # LSB first: the value starts `shift` bits above the word's bottom;
        # MSB first: it ends `word_bits - span` bits above the bottom.
        down = word_bits - span if msb_first else shift
        np.bitwise_and(word >> down, mask, out=out, casting="unsafe")
        return
    # Widths 58..64 at a bit offset > 0 spill into a ninth byte.
    word = _word_view(padded, start, groups, width, 8, msb_first).astype(np.uint64)
    spill = _word_view(padded, start + 8, groups, width, 1, msb_first).astype(np.uint64)
    if msb_first:
        low = 72 - span  # bits of the spill byte below the value, 0..7
        value = (word << np.uint64(8 - low)) | (spill >> np.uint64(low))
    else:
        value = (word >> np.uint64(shift)) | (spill << np.uint64(64 - shift))
    np.bitwise_and(value, np.uint64(mask), out=out, casting="unsafe")


def as_unsigned(values: object, bit_width: int) -> np.ndarray:
    """Validate that all values fit in ``bit_width`` unsigned bits; return them as uint64."""
    v = np.asarray(values)
    if v.dtype == np.bool_:
        v = v.astype(np.uint8)
    if v.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if v.dtype.kind not in "iu":
        raise TypeError(f"cannot bit-pack values of dtype {v.dtype}")
    if v.dtype.kind == "i" and v.min() < 0:
        raise ValueError("cannot bit-pack negative values")
    v = v.reshape(-1).astype(np.uint64, copy=False)
    if bit_width < 64 and int(v.max()) >> bit_width:
        raise ValueError(f"value {int(v.max())} does not fit in {bit_width} bits")
    return v


def pack(values: object, bit_width: int, *, msb_first: bool = False) -> bytes:
    """Pack non-negative integers into ``ceil(n * bit_width / 8)`` bytes.

    The inverse of :func:`unpack`; padding bits of the last byte are zero.
    Raises ValueError if a value needs more than ``bit_width`` bits.
    """
    _check_width(bit_width)
    v = as_unsigned(values, bit_width)
    n = len(v)
    if bit_width == 0 or n == 0:
        return b""
    if not msb_first and bit_width in (8, 16, 32, 64):
        return v.astype(f"<u{bit_width // 8}").tobytes()
    groups = (n + 7) // 8
    if n % 8:
        cols = np.zeros(groups * 8, dtype=np.uint64)
        cols[:n] = v
    else:
        cols = v
    cols = cols.reshape(groups, 8)
    if not msb_first:
        return _pack_lsb(cols, bit_width)[: packed_size(n, bit_width)]
    out = np.zeros((groups, bit_width), dtype=np.uint8)
    for k in range(8):
        for j in range((k * bit_width) >> 3, ((k + 1) * bit_width + 7) >> 3):
            # Position of the value's bit 0 inside output byte j.
            s = 8 * j + 8 - (k + 1) * bit_width if msb_first else k * bit_width - 8 * j
            piece = cols[:, k] << np.uint64(s) if s >= 0 else cols[:, k] >> np.uint64(-s)
            np.bitwise_or(out[:, j], piece & np.uint64(0xFF), out=out[:, j], casting="unsafe")
    return out.tobytes()[: packed_size(n, bit_width)]


def _pack_lsb(cols: np.ndarray, bit_width: int) -> bytes:
    """Groups of 8 values (rows of ``cols``) packed LSB first: value ``k`` of a
    group goes to bit ``k * bit_width`` of the group's little-endian words, so
    each of the 8 columns costs one or two shift-and-or passes."""
    groups = len(cols)
    words = np.zeros((groups, -(-bit_width // 8)), dtype=np.uint64)
    for k in range(8):
        word, shift = divmod(k * bit_width, 64)
        column = cols[:, k]
        words[:, word] |= column << np.uint64(shift)
        if shift + bit_width > 64:  # the value straddles two words
            words[:, word + 1] |= column >> np.uint64(64 - shift)
    return words.view(np.uint8)[:, :bit_width].tobytes()


def bit_length(values: object) -> np.ndarray:
    """Vectorized ``int.bit_length`` of unsigned values, as uint8 (0 for 0)."""
    x = np.array(values, dtype=np.uint64).reshape(-1)
    n = np.zeros(x.shape, dtype=np.uint8)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= np.uint64(1 << s)
        n[big] += s
        x[big] >>= np.uint64(s)
    n += (x > 0).astype(np.uint8)
    return n
