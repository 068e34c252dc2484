"""The type annotations the writer records for a leaf's logical type."""

from __future__ import annotations

from parquet_codec.format import ttypes as T
from parquet_codec.type_annotations import element_fields
from parquet_codec.types import LogicalInfo


def test_written_conventions():
    """What the writer records: converted types per the spec's forward
    compatibility tables (pyarrow omits them for local times)."""
    fields = element_fields(LogicalInfo("timestamp", T.Type.INT64, unit="ms"))
    assert fields["converted_type"] == T.ConvertedType.TIMESTAMP_MILLIS
    assert fields["logicalType"].TIMESTAMP.isAdjustedToUTC is False
    assert element_fields(LogicalInfo("timestamp", T.Type.INT64, unit="ns", utc=True))["converted_type"] is None
    assert element_fields(LogicalInfo("int", T.Type.INT32, bit_width=32))["logicalType"] is None
    dec = element_fields(LogicalInfo("decimal", 7, type_length=5, precision=10, scale=2))
    assert (dec["scale"], dec["precision"], dec["type_length"]) == (2, 10, 5)
