"""Dictionary encoding (spec, Encodings, "Dictionary Encoding (PLAIN_DICTIONARY = 2 and RLE_DICTIONARY = 8)").

A dictionary *page* is PLAIN encoded (use :func:`plain.decode_plain`). A data
page stores the indices into it: one byte holding the bit width (at most 32),
then the indices in the RLE / bit-packing hybrid without a length prefix.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from parquet_codec.encodings.byte_arrays import ByteArrays, ByteArraysBuilder
from parquet_codec.encodings.rle import RleBitPackedHybrid
from parquet_codec.encodings.rle_batch import decode_parsed_streams
from parquet_codec.encodings.varint import Buffer, decoding_error, views
from parquet_codec.errors import DecodingError, ParquetError
from parquet_codec.limits import reserve, reserve_items

_ENCODING = "RLE_DICTIONARY"
MAX_INDEX_BIT_WIDTH = 32


def decode_indices(data: Buffer, count: int, *, offset: int = 0) -> tuple[np.ndarray, int]:
    """Decode ``count`` dictionary indices; return (int32 indices, bytes consumed).

    Indices are not checked against a dictionary size here; :func:`gather`
    does that with one vectorized pass. Indices at or above 2**31 come out
    negative and are rejected there too.
    """
    mv, _ = views(data)
    if offset >= len(mv):
        if count == 0:
            return np.zeros(0, dtype=np.int32), 0
        raise decoding_error(_ENCODING, "bit width byte missing", offset)
    bit_width = mv[offset]
    if bit_width > MAX_INDEX_BIT_WIDTH:
        raise decoding_error(_ENCODING, f"index bit width {bit_width} > {MAX_INDEX_BIT_WIDTH}", offset)
    indices, consumed = RleBitPackedHybrid.decode(data, bit_width, count, offset=offset + 1)
    return indices.view(np.int32), consumed + 1


class IndexPages:
    """The index streams of a chunk's pages, held until :meth:`gather_into`
    (or :meth:`decode`) decodes them together: per page, the fixed cost of
    unpacking exceeds the work (a page commonly holds 20,000 indices). Each
    page's values fill its own slots ``out[start : start + count]``; errors
    name the page's ``context`` (see ParquetError.add_context)."""

    def __init__(self) -> None:
        self.pages: list[tuple[Buffer, int, int, dict]] = []
        self.count = 0

    def add(self, data: Buffer, count: int, start: int, context: dict) -> None:
        self.pages.append((data, count, start, context))
        self.count += count

    def gather_into(self, dictionary_values: np.ndarray, out: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Write every held page's values into its slots of ``out`` (with
        ``rows``: slot ``i`` is ``out[rows[i]]``) and forget the pages."""
        for start, indices in self._decoded(len(dictionary_values)):
            if not len(indices):
                continue
            if rows is None:
                np.take(dictionary_values, indices, out=out[start : start + len(indices)], mode="clip")
            else:  # (checked indices: no bounds check)
                out[rows[start : start + len(indices)]] = np.take(dictionary_values, indices, mode="clip")

    def decode(self, size: int) -> np.ndarray:
        """The held pages' indices into a dictionary of ``size`` values, in
        the order added (their slots must follow one another), and forget the pages."""
        parts = [indices for _, indices in self._decoded(size)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)

    def _decoded(self, size: int) -> Iterator[tuple[int, np.ndarray]]:
        """(first slot, checked int32 indices) of runs of the held pages."""
        pages, self.pages, self.count = self.pages, [], 0
        for width, group in _runs_of_pages(pages):
            indices = _decode_together(group, width, size)
            if indices is not None:
                yield group[0][2], indices
                continue
            for data, count, start, context in group:  # one page, or one that is malformed: naming it
                try:
                    indices = decode_indices(data, count)[0]
                    check_indices(indices, size)
                except ParquetError as exc:
                    raise exc.add_context(**context) from None
                yield start, indices


def _runs_of_pages(pages: list[tuple[Buffer, int, int, dict]]) -> list[tuple[int, list]]:
    """``pages`` cut where the index bit width changes or the slots stop being
    contiguous, each run with its width (-1: no width byte, or no values)."""
    groups: list[tuple[int, list]] = []
    key = None
    for page in pages:
        data, count, start, _ = page
        width = views(data)[0][0] if count and len(data) else -1
        if not groups or (width, start) != key:
            groups.append((width, []))
        groups[-1][1].append(page)
        key = (width, start + count)
    return groups


def _decode_together(group: list, width: int, size: int) -> np.ndarray | None:
    """The indices of the pages of ``group`` (of index bit width ``width``,
    contiguous slots), checked against a dictionary of ``size`` values; None
    when they are not worth decoding together or do not decode (the caller
    retries page by page)."""
    if len(group) < 2 or not 1 <= width <= MAX_INDEX_BIT_WIDTH:
        return None
    try:
        indices = decode_parsed_streams([(data, 1, count) for data, count, _, _ in group], width).view(np.int32)
        check_indices(indices, size)
    except ParquetError:
        return None
    return indices


def index_bit_width(dict_size: int) -> int:
    """Bits needed for indices ``0 .. dict_size - 1`` (0 for a dictionary of at most one value)."""
    return max(dict_size - 1, 0).bit_length()


def encode_indices(indices: object, dict_size: int) -> bytes:
    """Encode indices into a dictionary of ``dict_size`` values (bit width byte + RLE hybrid).

    Raises ValueError for indices outside ``0 .. dict_size - 1``.
    """
    idx = np.asarray(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= dict_size):
        raise ValueError(f"indices must lie in 0..{dict_size - 1}")
    bit_width = index_bit_width(dict_size)
    if bit_width > MAX_INDEX_BIT_WIDTH:
        raise ValueError(f"dictionary of {dict_size} values needs more than {MAX_INDEX_BIT_WIDTH} bits")
    return bytes([bit_width]) + RleBitPackedHybrid.encode(idx, bit_width)


def gather(dictionary_values: np.ndarray | ByteArrays, indices: np.ndarray) -> np.ndarray | ByteArrays:
    """Map indices to dictionary values: 1-d arrays, ``(n, width)`` byte rows or ByteArrays.

    Raises DecodingError naming the first bad index if any index is negative
    or not below the dictionary size.
    """
    idx = np.asarray(indices)
    check_indices(idx, len(dictionary_values))
    if isinstance(dictionary_values, ByteArrays):
        _reserve_taken(dictionary_values, idx)
        return dictionary_values.take(idx)
    row = dictionary_values.itemsize * int(np.prod(dictionary_values.shape[1:], dtype=np.int64))
    reserve_items(idx.size, max(row, 1), f"{idx.size} dictionary values")
    return np.take(dictionary_values, idx, axis=0)


def gather_append(builder: ByteArraysBuilder, dictionary_values: ByteArrays, indices: np.ndarray) -> None:
    """:func:`gather` from a BYTE_ARRAY dictionary, appended to ``builder``."""
    idx = np.asarray(indices)
    check_indices(idx, len(dictionary_values))
    _reserve_taken(dictionary_values, idx)
    builder.append_take(dictionary_values, idx)


def _reserve_taken(dictionary_values: ByteArrays, idx: np.ndarray) -> None:
    if idx.size:
        total = dictionary_values.taken_size(idx)
        reserve(total + 8 * idx.size, f"{idx.size} dictionary values of {total} bytes")


def gather_into(dictionary_values: np.ndarray, indices: np.ndarray, out: np.ndarray) -> None:
    """:func:`gather` from a 1-D dictionary, written into ``out`` (one slot per index)."""
    idx = np.asarray(indices)
    check_indices(idx, len(dictionary_values))
    if len(out) != idx.size:
        raise ValueError(f"out holds {len(out)} slots for {idx.size} indices")
    if idx.size:
        np.take(dictionary_values, idx, out=out, mode="clip")  # bounds checked above; "clip" is unbuffered


def check_indices(idx: np.ndarray, size: int) -> None:
    """Raise DecodingError naming the first index that is negative or not below ``size``."""
    if not idx.size:
        return
    # Viewed unsigned, negative indices become huge: one max checks both bounds.
    unsigned = idx.view(f"u{idx.dtype.itemsize}") if idx.dtype.kind == "i" else idx
    if int(unsigned.max()) >= size:
        position = int(np.argmax(unsigned >= size))
        # No byte offset exists any more at this point; name the value instead.
        raise DecodingError(
            f"{_ENCODING}: index {int(idx[position])} out of range for a dictionary of {size} values"
            f" (value {position})"
        )
