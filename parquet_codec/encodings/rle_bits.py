"""Decoding 1-bit RLE / bit-packing hybrid streams laid end to end (the
definition levels of flat optional columns) a run at a time.

Levels of one bit are a bitmap: a bit-packed run's payload bytes are its
levels, an RLE run's are all ones or all zeros. So a run's first 64 levels
are one 64-bit word: the word after its header (bit-packed) or all ones (a
repeated 1), cut to the run's length by a mask. The header's two-byte
prefix tells, through tables, where the next header is, the run's length
and that mask (for a one-byte RLE header, the second byte is the value).
Each run's word is added into the bitmap at the run's first level (runs own
disjoint bits, so adding ORs them), spilling into the next word; the few
runs a word cannot hold (over 64 levels, or a two-byte header) are added in
pieces of 64. The bitmap is then expanded to a byte per level once.
"""

from __future__ import annotations

import functools

import numpy as np

from parquet_codec.encodings.run_chain import FAR, header_tables, prefix_chain, run_starts, takes

_U64_1, _U64_63 = np.uint64(1), np.uint64(63)

#: The most levels of a run (with a one-byte header) read from one word.
_WORD_BITS = 64


@functools.lru_cache(maxsize=1)
def _bit_tables() -> tuple[np.ndarray, ...]:
    """:func:`header_tables` for width 1, and what a header's two-byte prefix
    tells of its run's levels (of one bit: a one-byte RLE header's value is
    the prefix's second byte), by prefix:

    - steps: also FAR for a one-byte RLE header of a value over 1 (the
      streams are then not regular, as with a long header; and chains from
      inside payloads end sooner);
    - codes: ``covers << 2 | special << 1 | bit-packed``, special for a
      header of two bytes or a run of over _WORD_BITS values;
    - bits: the bits of a (not special) run's first word of levels: those it
      takes from the word after its header (bit-packed), or all of them
      (RLE of a 1; none for a 0, and none for a special run)."""
    steps, runs = header_tables(1)
    prefix = np.arange(1 << 16, dtype=np.int64)
    low, high = prefix & 0xFF, prefix >> 8
    covers, packed = runs >> 2, (runs & 1).astype(np.bool_)
    one = low < 0x80
    steps = np.where(one & ~packed & (high > 1), FAR, steps)
    special = ~one | (covers > _WORD_BITS)
    bits = np.where(~special & (packed | (high == 1)), _low_bits(np.minimum(covers, 64)), np.uint64(0))
    codes = covers << 2 | special << 1 | packed
    for table in (steps, codes, bits):
        table.flags.writeable = False
    return steps, codes, bits


def decode_bit_streams(data: np.ndarray, bounds: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """The levels of the width-1 streams ``data[bounds[i]:bounds[i + 1]]``
    (``counts[i]`` each), as uint8, each run's first 64 levels read through
    the tables of :func:`_bit_tables` from the word at its header. None when
    the streams are not regular (see :mod:`.rle_batch`) or some header is
    long (the general path then decides)."""
    # A copy of the words (np.take copies a strided array anyway); their first
    # two bytes as int64 (intp) for the tables.
    words_at = _words_at(data).copy()
    prefix = words_at.view(np.int64) & 0xFFFF
    steps, codes, bits = _bit_tables()
    chained = prefix_chain(prefix, steps, bounds)  # (a value over 1 is FAR in these steps)
    if chained is None:
        return None
    path, first, last, heads = chained
    code = codes.take(heads)
    take = takes(code >> 2, first, counts, last)
    if take is None:
        return None
    value = words_at[1:].take(path)  # the word after a one-byte header
    value |= ((code & 1) - 1).view(np.uint64)  # RLE: all ones, then cut by the table
    value &= bits.take(heads)
    value[last] &= _low_bits(np.minimum(take.take(last), 64))  # the last runs may stop short
    count = int(counts.sum())
    bitmap = _bitmap(count)
    start = run_starts(take)
    special = np.flatnonzero((code & 2).astype(np.bool_))
    if len(special):
        code = code.take(special)
        payload = path.take(special) + 1 + ((heads.take(special) & 0x80) >> 7)
        if not _add_runs(bitmap, words_at, payload, (code & 1).astype(np.bool_), start.take(special),
                         take.take(special)):
            return None
    _add_words(bitmap, start, value)
    return _levels(bitmap, count)


def materialize_bits(data: np.ndarray, payload: np.ndarray, packed: np.ndarray, take: np.ndarray, count: int,
                     dtype: type) -> np.ndarray | None:
    """The ``count`` levels of width-1 runs found with headers of any length
    (``payload``: where each run's bytes or value start; ``take``: the levels
    it gives), as ``dtype``, laid a run at a time by :func:`_add_runs`; None
    when a repeated value is over 1. (Usual streams take :func:`decode_bit_streams`.)"""
    bitmap = _bitmap(count)
    if not _add_runs(bitmap, _words_at(data), payload, packed, run_starts(take), take):
        return None
    return _levels(bitmap, count).astype(dtype, copy=False)


def _words_at(data: np.ndarray) -> np.ndarray:
    """The little-endian 64-bit word at every byte of ``data`` and one past it
    (a strided view of a zero-padded copy: a word read at the last byte fits)."""
    n = len(data)
    padded = np.zeros(n + 8, dtype=np.uint8)
    padded[:n] = data
    return np.ndarray((n + 1,), dtype="<u8", buffer=padded, strides=(1,))


def _bitmap(count: int) -> np.ndarray:
    """Zeroed uint64 words for ``count`` levels, and a spare one for what the last run's word spills."""
    return np.zeros((count >> 6) + 2, dtype="<u8")


def _levels(bitmap: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` bits of ``bitmap``, LSB first, a byte each."""
    return np.unpackbits(bitmap.view(np.uint8), count=count, bitorder="little")


def _add_runs(bitmap: np.ndarray, words_at: np.ndarray, payload: np.ndarray, packed: np.ndarray, start: np.ndarray,
              take: np.ndarray) -> bool:
    """Add width-1 runs into ``bitmap`` in pieces of 64 levels: piece ``k`` of a
    bit-packed run is the word ``8 * k`` bytes into its payload, of an RLE run
    all ones or all zeros. False when a repeated value is over 1.

    (Fancy indexing reads the words: ``take`` would first copy all of the
    strided ``words_at``, and these runs are usually few.)"""
    pieces = np.maximum((take + 63) >> 6, 1)  # one for an empty run too: its value is checked all the same
    run = np.repeat(np.arange(len(take)), pieces)
    offset = np.arange(len(run)) - np.repeat(np.cumsum(pieces) - pieces, pieces)  # 0, 1, .. in each run
    offset <<= 6
    bits = packed.take(run)
    raw = words_at[payload.take(run) + (offset >> 3) * bits]  # (an RLE run's payload is one byte)
    if ((raw & np.uint64(0xFE)).astype(np.bool_) & ~bits).any():
        return False
    value = np.where(bits, raw, np.negative(raw & _U64_1))  # a repeated 1: all ones
    value &= _low_bits(np.minimum(take.take(run) - offset, 64))
    _add_words(bitmap, start.take(run) + offset, value)
    return True


def _add_words(bitmap: np.ndarray, start: np.ndarray, value: np.ndarray) -> None:
    """Add the 64-bit ``value``s at bits ``start`` of ``bitmap`` (uint64 words):
    into the word each starts in, and what passes its end into the next."""
    shift = start.view(np.uint64) & _U64_63
    word = start >> 6
    np.add.at(bitmap, word, value << shift)
    word += 1
    np.add.at(bitmap, word, (value >> _U64_1) >> (_U64_63 - shift))  # (in two: shifting by 64 is undefined in C)


def _low_bits(bits: np.ndarray) -> np.ndarray:
    """``2**bits - 1`` as uint64, for ``bits`` 0..64."""
    return _LOW_BITS.take(bits)


_LOW_BITS = np.array([(1 << k) - 1 for k in range(65)], dtype=np.uint64)
_LOW_BITS.flags.writeable = False

__all__ = ["decode_bit_streams", "materialize_bits"]
