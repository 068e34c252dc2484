"""Cutting the length prefixes out of a PLAIN BYTE_ARRAY page with a Snappy decoder.

Spec, Encodings, "Plain": a BYTE_ARRAY value is a 4-byte little-endian length
followed by its bytes. Once the values' places are known (plain.py), Arrow's
layout wants their bytes back to back: the page less its prefixes.

A raw Snappy stream (Snappy's format description) is the varint of its
uncompressed size, then elements; a literal element of 1 to 2**24 bytes may
be written as the tag byte 0xF8 ("literal, its length less one in the next
three bytes") and those three bytes, then the bytes themselves. That tag is
four bytes, as a length prefix is. Rewritten so, every prefix makes its
value a literal, and the page from its second value's prefix on, with the
varint written just before it (over the first value, copied out first), is a
Snappy stream whose decompression is the values back to back: the decoder
copies each literal at memory speed, where array operations would pass over
the page several times. An empty value has no literal of its own: a page
holding one (but first) is left to the caller.
"""

from __future__ import annotations

import cramjam
import numpy as np

from parquet_codec.errors import DecodingError

#: The literal tag that takes its length less one from the three bytes after it.
_LITERAL_TAG = 0xF8
#: Values shorter than this are stripped (a literal's length less one has three bytes).
_LONGEST = 1 << 24


def strippable(prefixes: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether :func:`strip_prefixes` takes these values: none of 2**24
    bytes or more, every one after the first non-empty, and room before the
    second prefix for the stream's varint."""
    if not len(lengths) or int(lengths.max()) >= _LONGEST:
        return False
    if len(lengths) == 1:
        return True
    size = int(lengths.sum()) - int(lengths[0])
    return bool(lengths[1:].min() >= 1) and int(prefixes[1] - prefixes[0]) >= len(_varint(size))


def strip_prefixes(page: np.ndarray, prefixes: np.ndarray, lengths: np.ndarray, out: np.ndarray) -> None:
    """Write the values of ``page`` (uint8, which this overwrites) into
    ``out`` (uint8, ``lengths.sum()`` bytes), back to back. Value ``i``'s
    4-byte prefix is at ``prefixes[i]``, right after value ``i - 1``; the
    values must be :func:`strippable`."""
    first = int(lengths[0])
    start = int(prefixes[0]) + 4
    out[:first] = page[start : start + first]
    if len(lengths) == 1:
        return
    rest, size = prefixes[1:], lengths[1:] - 1
    if int(size.max()) >= 256:  # (shorter: the prefix's last two bytes are already zero)
        page[rest + 2] = (size >> 8).astype(np.uint8)
        page[rest + 3] = (size >> 16).astype(np.uint8)
    page[rest + 1] = size.astype(np.uint8)  # (a cast keeps the low byte)
    page[rest] = _LITERAL_TAG
    expected = len(out) - first
    header = _varint(expected)
    begin, end = int(rest[0]) - len(header), int(rest[-1]) + 4 + int(lengths[-1])
    page[begin : begin + len(header)] = header
    try:
        written = cramjam.snappy.decompress_raw_into(page[begin:end], out[first:])
    except cramjam.DecompressionError as exc:  # (the stream is made above: not the file's fault)
        raise DecodingError(f"stripping {len(lengths)} BYTE_ARRAY values failed: {exc}") from exc
    if written != expected:
        raise DecodingError(f"stripping {len(lengths)} BYTE_ARRAY values gave {written} bytes, not {expected}")


def _varint(value: int) -> np.ndarray:
    """``value`` as an unsigned LEB128 varint, as Snappy's header has it."""
    encoded = bytearray()
    while value >= 0x80:
        encoded.append(value & 0x7F | 0x80)
        value >>= 7
    encoded.append(value)
    return np.frombuffer(bytes(encoded), dtype=np.uint8)


__all__ = ["strip_prefixes", "strippable"]
