"""The repetition or definition level streams of a batch of data pages, decoded together.

Spec, "Nested Encoding" and "Data Pages": each data page carries its levels
as an RLE / bit-packing hybrid stream. A column chunk's pages are commonly
small (20,000 values), so decoding each stream on its own pays a fixed cost
per page larger than the work; the streams of several pages are instead laid
end to end and decoded in one pass (:mod:`.encodings.rle_batch`), falling back
to one page at a time when they are not regular, so that an error names its page.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.encodings import RleBitPackedHybrid
from parquet_codec.encodings.rle import SMALL_COUNT
from parquet_codec.encodings.rle_batch import decode_streams
from parquet_codec.errors import CorruptFileError, ParquetError
from parquet_codec.levels import LEVEL_DTYPE
from parquet_codec.limits import reserve_items
from parquet_codec.page import PageSections, RawPage


def batch_levels(pending: list[tuple[RawPage, PageSections]], name: str, counts: np.ndarray, max_level: int,
                 kind: str) -> np.ndarray:
    """The ``name`` ("rep" or "defs") level streams of the held pages, decoded
    and checked: in one pass when they are regular, else (or when they hold
    no more than SMALL_COUNT levels) page by page."""
    width = max_level.bit_length()
    streams = [getattr(sections, name) for _, sections in pending]
    # Levels of up to 8 bits stay one byte each (a maximum of 1 makes them a validity mask).
    narrow = (np.uint8 if width <= 8 else LEVEL_DTYPE) if width < 16 else None  # every value of the width fits
    total = int(counts.sum())
    levels = None
    if total > SMALL_COUNT:  # (a few levels, as of one-row pages, are read page by page: it costs less)
        # A few bytes of runs may declare 2**31 levels: reserved before they are laid out.
        reserve_items(total, np.dtype(narrow or np.uint32).itemsize, f"{total} {kind} levels")
        bounds = np.concatenate(([0], np.cumsum([len(s) for s in streams], dtype=np.int64)))
        levels = decode_streams(np.frombuffer(b"".join(streams), dtype=np.uint8), bounds, counts, width, narrow)
    if levels is None:
        levels = np.concatenate([_page_levels(page, stream, width, int(count))
                                 for (page, _), stream, count in zip(pending, streams, counts, strict=True)])
        if narrow is not None:  # as decode_streams gives them (wider ones are cast once checked)
            levels = levels.astype(narrow, copy=False)
    # A level above the maximum fits in the bit width unless the maximum is all ones.
    if max_level != (1 << width) - 1 and len(levels) and int(levels.max()) > max_level:
        page = pending[int(np.searchsorted(np.cumsum(counts), int(np.argmax(levels > max_level)), side="right"))][0]
        raise CorruptFileError(f"{kind} level {int(levels.max())} exceeds the column's maximum {max_level}",
                               page=page.ordinal, file_offset=page.offset)
    return levels if levels.dtype == np.uint8 else levels.astype(LEVEL_DTYPE, copy=False)


def _page_levels(page: RawPage, stream: memoryview, width: int, count: int) -> np.ndarray:
    try:
        return RleBitPackedHybrid.decode(stream, width, count)[0]
    except ParquetError as exc:
        exc.add_context(page=page.ordinal, file_offset=page.offset)
        raise


def join_levels(parts: list[np.ndarray]) -> np.ndarray:
    """The levels of a chunk's batches, as one array."""
    if not parts:
        return np.zeros(0, dtype=LEVEL_DTYPE)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


__all__ = ["batch_levels", "join_levels"]
