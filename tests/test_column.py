"""Reading column chunks: what a chunk declares is reserved before it is laid out."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from parquet_codec import column
from parquet_codec.encodings.varint import encode_uleb128
from parquet_codec.errors import ResourceLimitError
from parquet_codec.format.ttypes import Encoding, PageHeader, PageType
from parquet_codec.limits import memory_budget
from parquet_codec.page import PageSections, RawPage


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
            column._batch_levels([(raw, sections)], "defs", np.array([count]), 1, "definition")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20
