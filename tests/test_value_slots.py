"""Where a chunk's fixed-width values are decoded to (value_slots)."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc
from parquet_codec.errors import CorruptFileError
from parquet_codec.value_slots import Spread, value_buffer
from tests.support.footer import rewrite_footer


def _leaf(values: pa.Array) -> object:
    sink = io.BytesIO()
    pq.write_table(pa.table({"x": values}), sink)
    return pc.ParquetFile(sink.getvalue()).schema.leaves[0]


def test_value_buffer_refuses_implausible_counts_and_overflow():
    leaf = _leaf(pa.array(np.arange(10, dtype=np.int64)))
    assert value_buffer(leaf, 2**40, 1000) is None  # declared count far beyond the bytes
    buffer = value_buffer(leaf, 10, 1000)
    buffer.take(8)
    with pytest.raises(CorruptFileError, match="more than the 10 values"):
        buffer.take(3)


def test_spread_claims_zeroed_slots_in_order():
    leaf = _leaf(pa.array([1, None], pa.int32()))
    slots = np.full(5, 7, dtype=np.int32)
    spread = Spread(slots, leaf)
    first, rows = spread.claim(np.array([True, False, True]))
    assert first.tolist() == [0, 0, 0] and rows.tolist() == [0, 2]
    second, rows = spread.claim(np.array([False, True]))
    assert rows.tolist() == [1] and np.shares_memory(second, slots[3:])
    assert len(spread.result()) == 5
    slots[:] = 7
    full = Spread(slots, leaf)
    part, rows = full.claim(np.ones(4, dtype=bool))
    assert rows is None and part.tolist() == [7, 7, 7, 7]  # every slot is written: left as it is
    with pytest.raises(CorruptFileError, match="more than the 5 level slots"):
        spread.claim(np.array([True]))
    with pytest.raises(TypeError, match="1-D int32"):
        Spread(np.zeros(5, dtype=np.int64), leaf)


def test_values_overrunning_the_rows_given_name_the_row_group():
    # A row group declaring 1 row over a chunk of 10 values: the error is the
    # row group's count, not a count the chunk does not declare.
    sink = io.BytesIO()
    pq.write_table(pa.table({"x": pa.array(np.arange(10, dtype=np.int64))}), sink)
    data = rewrite_footer(sink.getvalue(), lambda meta: setattr(meta.row_groups[0], "num_rows", 1))
    with pytest.raises(CorruptFileError, match="more than the 1 values the row group has rows for"):
        pc.read_table(data)
