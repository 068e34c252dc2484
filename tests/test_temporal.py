"""Conversion of Python date and time values to the counts Parquet stores."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest

import parquet_codec as pc
from parquet_codec import temporal

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

NEW_YORK = zoneinfo.ZoneInfo("America/New_York")

# Wall-clock times in New York within five hours before a change of offset: the
# instant plus five hours lies on the other side of the change.
BEFORE_CHANGES = [
    "2021-03-13 22:30:00",           # EST, the night before clocks go forward
    "1940-04-27 21:15:29.653199252",  # EST, an older rule (found in an arrow-rs file)
    "2021-11-06 23:45:00.000001",    # EDT, the night before clocks go back
]


@pytest.mark.parametrize("wall", BEFORE_CHANGES)
@pytest.mark.parametrize("unit", ["ms", "us", "ns"])
def test_aware_pandas_timestamp_near_an_offset_change_gives_its_instant(wall, unit):
    # pandas.Timestamp - timedelta shifts the instant and re-localizes, so the
    # offset must come off the wall clock, not off the aware value.
    value = pd.Timestamp(wall, tz="America/New_York")
    counts, validity = temporal.datetimes_to_int64([value], unit)
    assert validity is None
    assert int(counts[0]) == value.value // {"ms": 10**6, "us": 10**3, "ns": 1}[unit]


def test_aware_datetime_on_either_side_of_a_change_gives_its_instant():
    for value in (
        dt.datetime(2021, 3, 13, 22, 30, tzinfo=NEW_YORK),
        dt.datetime(2021, 11, 7, 1, 30, fold=0, tzinfo=NEW_YORK),
        dt.datetime(2021, 11, 7, 1, 30, fold=1, tzinfo=NEW_YORK),
    ):
        counts, _ = temporal.datetimes_to_int64([value], "us")
        assert int(counts[0]) == round(value.timestamp() * 10**6)


def test_filter_with_a_pandas_timestamp_near_an_offset_change_finds_its_row(tmp_path):
    values = [pd.Timestamp(wall, tz="America/New_York") for wall in BEFORE_CHANGES]
    column = pa.array([v.value for v in values], pa.timestamp("ns", tz="America/New_York"))
    path = tmp_path / "ny.parquet"
    pc.write_table(pa.table({"t": column, "i": [0, 1, 2]}), path, bloom_filter_options={"t": True})
    for i, value in enumerate(values):
        assert pc.read_table(path, filters=[("t", "=", value)]).column("i").to_pylist() == [i]
        with pc.ParquetFile(path) as f:
            assert f.bloom_filter(0, "t").might_contain(value)
