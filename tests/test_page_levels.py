"""Level streams of a batch of pages: what a few bytes declare is reserved before it is laid out."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from parquet_codec.encodings import RleBitPackedHybrid
from parquet_codec.encodings.varint import encode_uleb128
from parquet_codec.errors import CorruptFileError, ParquetError, ResourceLimitError
from parquet_codec.format.ttypes import Encoding, PageHeader, PageType
from parquet_codec.limits import memory_budget
from parquet_codec.page import PageSections, RawPage
from parquet_codec.page_levels import batch_levels, join_levels


def test_levels_a_few_bytes_declare_are_reserved_before_they_are_laid_out():
    """One RLE run of 2**31 - 1 definition levels is six bytes: a read under a
    memory_limit refuses it before allocating a byte per level."""
    count = 2**31 - 1
    runs = memoryview(encode_uleb128(count << 1) + b"\x01")
    sections = PageSections(count, Encoding.PLAIN, None, runs, memoryview(b""))
    raw = RawPage(PageHeader(type=PageType.DATA_PAGE), 1, 4, memoryview(b""))
    tracemalloc.start()
    try:
        with memory_budget(100 * 2**20), pytest.raises(ResourceLimitError, match="definition levels"):
            batch_levels([(raw, sections)], "defs", np.array([count]), 1, "definition")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20




def _pages(streams: list[bytes], counts: list[int]) -> list[tuple[RawPage, PageSections]]:
    return [(RawPage(PageHeader(type=PageType.DATA_PAGE), i + 1, 1000 * (i + 1), memoryview(b"")),
             PageSections(n, Encoding.PLAIN, None, memoryview(s), memoryview(b"")))
            for i, (s, n) in enumerate(zip(streams, counts, strict=True))]


@pytest.mark.parametrize("max_level", [1, 2, 3, 7, 300])
def test_a_batch_decodes_as_its_pages_one_by_one(max_level):
    """Levels of several pages, with runs of both kinds, are those encoded
    page by page (in bytes up to a width of 8 bits, else LEVEL_DTYPE)."""
    rng = np.random.default_rng(max_level)
    width = max_level.bit_length()
    parts = [np.repeat(rng.integers(0, max_level + 1, n // 5), 5)[: n] for n in (1000, 37, 4096, 8)]
    parts[1] = rng.integers(0, max_level + 1, 37)  # bit-packed throughout
    streams = [RleBitPackedHybrid.encode(p, width) for p in parts]
    counts = [len(p) for p in parts]
    levels = batch_levels(_pages(streams, counts), "defs", np.array(counts), max_level, "definition")
    np.testing.assert_array_equal(levels, np.concatenate(parts))
    assert levels.dtype == (np.uint8 if width <= 8 else np.int16)


def test_a_level_above_the_maximum_names_its_page():
    """Width 2 holds 3, above a maximum of 2: the error names the page holding it."""
    parts = [np.array([0, 1, 2] * 10), np.array([2, 2, 3, 0, 1, 2])]
    streams = [RleBitPackedHybrid.encode(p, 2) for p in parts]
    with pytest.raises(CorruptFileError, match="definition level 3 exceeds the column's maximum 2") as info:
        batch_levels(_pages(streams, [30, 6]), "defs", np.array([30, 6]), 2, "definition")
    assert "page 2" in str(info.value) and "2000" in str(info.value)


def test_a_stream_short_of_its_count_names_its_page():
    """A page whose runs end before its declared count is decoded on its own, and named."""
    streams = [RleBitPackedHybrid.encode(np.ones(16, dtype=np.uint8), 1)] * 3
    with pytest.raises(ParquetError) as info:
        batch_levels(_pages(streams, [16, 40, 16]), "defs", np.array([16, 40, 16]), 1, "definition")
    assert "page 2" in str(info.value)


def test_join_levels():
    assert join_levels([]).dtype == np.int16 and len(join_levels([])) == 0
    one = np.zeros(3, dtype=np.uint8)
    assert join_levels([one]) is one
    np.testing.assert_array_equal(join_levels([one, np.ones(2, dtype=np.uint8)]), [0, 0, 0, 1, 1])


@pytest.mark.parametrize("max_level", [1, 2, 300])
def test_a_batch_of_a_few_levels_is_read_page_by_page(max_level):
    """One-row pages (a wide file of small row groups) are decoded page by page,
    into the dtype a batch decoded together has; a level above the maximum
    still names its page."""
    width = max_level.bit_length()
    parts = [np.array([max_level]), np.array([0, max_level]), np.array([max_level // 2] * 3)]
    streams = [RleBitPackedHybrid.encode(p, width) for p in parts]
    counts = [len(p) for p in parts]
    levels = batch_levels(_pages(streams, counts), "defs", np.array(counts), max_level, "definition")
    np.testing.assert_array_equal(levels, np.concatenate(parts))
    assert levels.dtype == (np.uint8 if width <= 8 else np.int16)
    if max_level == 2:
        streams[1] = RleBitPackedHybrid.encode(np.array([0, 3]), 2)
        with pytest.raises(CorruptFileError, match="level 3 exceeds") as info:
            batch_levels(_pages(streams, counts), "defs", np.array(counts), max_level, "definition")
        assert "page 2" in str(info.value)
