"""Dates, times, timestamps, INT96 and intervals (LogicalTypes.md, "Temporal Types").

Arithmetic is done on whole numpy arrays; Python ``date``/``time``/``datetime``
objects are built only by the ``*_to_py`` functions, through numpy's
``datetime64.tolist()`` where it applies.

Python values follow pyarrow's ``to_pylist``:
- TIMESTAMP gives ``datetime``, naive for local semantics and carrying
  ``zoneinfo.ZoneInfo("UTC")`` when isAdjustedToUTC (pyarrow's tzinfo; it
  compares equal to any other UTC-aware datetime).
- NANOS timestamps and nanosecond durations give ``pandas.Timestamp`` and
  ``pandas.Timedelta`` when pandas is installed, as pyarrow does; without
  pandas, a ``datetime``/``timedelta`` when the value is a whole microsecond,
  and a sub-microsecond value raises (pyarrow raises too).
- TIME gives ``datetime.time``, floored to microseconds and taken modulo one
  day, exactly as pyarrow computes it.
- A value outside ``datetime``'s years 1..9999 raises :class:`UnsupportedError`
  naming its index (valid Parquet that Python cannot represent).
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Iterable, Iterator

import numpy as np

from parquet_codec.errors import DecodingError, SchemaError, UnsupportedError

try:
    from zoneinfo import ZoneInfo

    UTC: _dt.tzinfo = ZoneInfo("UTC")
except Exception:  # pragma: no cover - no tz database on this system
    UTC = _dt.timezone.utc

UNITS_PER_SECOND = {"ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
JULIAN_UNIX_EPOCH = 2_440_588  # Julian day number of 1970-01-01
_NS_PER_DAY = 86_400 * 10**9
_US_PER_DAY = 86_400 * 10**6
_EPOCH = _dt.datetime(1970, 1, 1)
_MIN_US = (_dt.datetime.min - _EPOCH) // _dt.timedelta(microseconds=1)
_MAX_US = (_dt.datetime.max - _EPOCH) // _dt.timedelta(microseconds=1)
_MIN_DAY = (_dt.date.min - _EPOCH.date()).days
_MAX_DAY = (_dt.date.max - _EPOCH.date()).days
_EPOCH_ORDINAL = _EPOCH.toordinal()
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT96 = np.dtype([("nanos", "<i8"), ("julian_day", "<i4")])


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _zero_nulls(values: np.ndarray, validity: np.ndarray | None) -> np.ndarray:
    values = np.asarray(values).astype(np.int64, copy=False)
    return values if validity is None else np.where(validity, values, 0)


def apply_nulls(out: list, validity: np.ndarray | None) -> list:
    """Replace the null slots of ``out`` with ``None`` in place."""
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


# ---------------------------------------------------------------- INT96


def int96_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Julian day and nanoseconds within the day of ``(n, 12)`` INT96 values
    (8 bytes little-endian nanoseconds, then a 4-byte little-endian Julian day)."""
    packed = np.ascontiguousarray(values, dtype=np.uint8).reshape(-1).view(_INT96)
    return packed["julian_day"].astype(np.int64), packed["nanos"].astype(np.int64)


def _checked_total(days: np.ndarray, sub: np.ndarray, per_day: int) -> tuple[np.ndarray, np.ndarray]:
    """``days * per_day + sub`` exactly in int64, with a mask of the values that fit."""
    carry, rest = np.divmod(sub, per_day)
    days = days + carry
    qmax, rmax = divmod(_INT64_MAX, per_day)
    qmin, rmin = divmod(_INT64_MIN, per_day)
    fits = (days < qmax) | ((days == qmax) & (rest <= rmax))
    fits &= (days > qmin) | ((days == qmin) & (rest >= rmin))
    total = np.where(fits, days, 0) * per_day + np.where(fits, rest, 0)
    return total, fits


def int96_micros(values: np.ndarray, validity: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """INT96 values as int64 microseconds since the epoch and the leftover
    nanoseconds (-999..999), computed as Spark computes them:
    ``julian_day * 86400e6 + nanos / 1000 - 2440588 * 86400e6`` in wrapping
    64-bit arithmetic with truncating division. That is the exact value
    whenever it fits int64, and it recovers the values Spark itself wrote with
    an overflowing Julian day (years near the int64 microsecond limit)."""
    julian, nanos = int96_parts(values)
    if validity is not None:
        julian, nanos = np.where(validity, julian, JULIAN_UNIX_EPOCH), np.where(validity, nanos, 0)
    whole = nanos // 1000
    whole += (nanos < 0) & (nanos % 1000 != 0)  # truncate toward zero, as Java does
    with np.errstate(over="ignore"):
        micros = julian * _US_PER_DAY + whole - JULIAN_UNIX_EPOCH * _US_PER_DAY
    return micros, nanos - whole * 1000


def int96_to_int64(values: np.ndarray, unit: str = "ns", validity: np.ndarray | None = None) -> np.ndarray:
    """INT96 timestamps as int64 counts of ``unit`` since the epoch (see
    :func:`int96_micros`; "ms" and "s" floor). A present value that overflows the
    unit (years beyond 2262 in nanoseconds) raises :class:`UnsupportedError`
    naming its index instead of wrapping, as pyarrow does."""
    micros, sub = int96_micros(values, validity)
    if unit == "us":
        return micros
    if unit in ("ms", "s"):
        return micros // (1000 if unit == "ms" else 1_000_000)
    total, fits = _checked_total(micros, sub, 1000)
    if not fits.all():
        i = _first(~fits)
        raise UnsupportedError(
            f"INT96 timestamp value {i} ({int(micros[i])} us) overflows 64-bit nanoseconds; "
            "read it with microseconds instead"
        )
    return total


def int96_sort_keys(values: np.ndarray) -> np.ndarray:
    """INT96 timestamps as exact nanoseconds since the epoch, the values
    :func:`int96_micros` reads, for comparing them with one another: int64
    when every value fits, else Python ints (an object array), so that a
    value beyond 64-bit nanoseconds (years before 1677 or after 2262, which
    Spark writes) still compares by its instant."""
    micros, sub = int96_micros(values)
    total, fits = _checked_total(micros, sub, 1000)
    if fits.all():
        return total
    return micros.astype(object) * 1000 + sub.astype(object)


def int64_to_int96(values: np.ndarray, unit: str, validity: np.ndarray | None = None) -> np.ndarray:
    """int64 timestamps in ``unit`` as ``(n, 12)`` INT96 values."""
    values = _zero_nulls(values, validity)
    per_day = _NS_PER_DAY // (10**9 // UNITS_PER_SECOND[unit])
    days, rest = np.divmod(values, per_day)
    julian = days + JULIAN_UNIX_EPOCH
    bad = (julian < -(2**31)) | (julian >= 2**31)
    if bad.any():
        raise SchemaError(f"timestamp value {_first(bad)} is outside the INT96 range")
    out = np.empty(len(values), dtype=_INT96)
    out["nanos"] = rest * (10**9 // UNITS_PER_SECOND[unit])
    out["julian_day"] = julian
    return out.view(np.uint8).reshape(len(values), 12)


# ---------------------------------------------------------------- to Python


def _micros(values: np.ndarray, unit: str, what: str) -> np.ndarray:
    """Counts of ``unit`` as microseconds within datetime's range, else raise."""
    if unit == "ns":
        micros = _whole_micros(values, what, "datetime")
    elif unit == "ms":
        lo, hi = -(-_MIN_US // 1000), _MAX_US // 1000
        bad = (values < lo) | (values > hi)
        if bad.any():
            i = _first(bad)
            raise UnsupportedError(f"{what} value {i} ({int(values[i])} ms) is outside datetime's years 1..9999")
        micros = values * 1000
    else:
        micros = values
    bad = (micros < _MIN_US) | (micros > _MAX_US)
    if bad.any():
        i = _first(bad)
        raise UnsupportedError(f"{what} value {i} ({int(values[i])} {unit}) is outside datetime's years 1..9999")
    return micros


def _whole_micros(nanos: np.ndarray, what: str, holder: str) -> np.ndarray:
    """Nanoseconds as microseconds; UnsupportedError naming the first value that is
    not a whole microsecond, which ``holder`` (datetime, timedelta) cannot hold."""
    micros, rem = np.divmod(nanos, 1000)
    if rem.any():
        i = _first(rem != 0)
        raise UnsupportedError(
            f"{what} value {i} ({int(nanos[i])} ns) is not a whole microsecond, which "
            f"{holder} cannot hold; convert the column to Arrow or pandas instead"
        )
    return micros


@functools.cache
def _pandas() -> object | None:
    """pandas, imported on first need; None when it is not installed."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def timestamps_to_py(
    values: np.ndarray, unit: str, utc: bool, validity: np.ndarray | None = None, what: str = "timestamp"
) -> list:
    """int64 timestamps as ``datetime`` objects (aware UTC when ``utc``);
    nanoseconds as ``pandas.Timestamp`` when pandas is installed."""
    values = _zero_nulls(values, validity)
    pd = _pandas() if unit == "ns" else None
    if pd is not None:
        stamps = pd.DatetimeIndex(values.view("datetime64[ns]"))
        return apply_nulls((stamps.tz_localize(UTC) if utc else stamps).to_list(), validity)
    micros = _micros(values, unit, what)
    out = micros.astype("datetime64[us]").tolist()
    if utc:
        out = list(map(functools.partial(_dt.datetime.replace, tzinfo=UTC), out))
    return apply_nulls(out, validity)


def in_zone(datetimes: list, timezone: str) -> list:
    """UTC-aware ``datetime`` objects (None for nulls) shown in ``timezone``, an
    Arrow timezone string: an IANA name or a fixed "+HH:MM" offset, as pyarrow
    returns them. A name the tz database does not know keeps UTC (same instants)."""
    zone = _zone(timezone)
    if zone is None:
        return datetimes
    try:
        return [None if value is None else value.astimezone(zone) for value in datetimes]
    except OverflowError:
        i = next(i for i, v in enumerate(datetimes) if v is not None and _overflows(v, zone))
        raise UnsupportedError(f"timestamp value {i} ({datetimes[i]}) is outside datetime's years 1..9999 "
                               f"in time zone {timezone}") from None


def _overflows(value: _dt.datetime, zone: _dt.tzinfo) -> bool:
    try:
        value.astimezone(zone)
    except OverflowError:
        return True
    return False


@functools.lru_cache(maxsize=64)
def _zone(timezone: str) -> _dt.tzinfo | None:
    sign = timezone[:1]
    if sign in "+-" and len(timezone) == 6 and timezone[3] == ":" and timezone[1:3].isdigit() \
            and timezone[4:].isdigit():
        minutes = int(timezone[1:3]) * 60 + int(timezone[4:])
        if minutes < 24 * 60:
            return _dt.timezone(_dt.timedelta(minutes=-minutes if sign == "-" else minutes))
        return None
    try:
        return ZoneInfo(timezone)
    except Exception:  # unknown name, no tz database: keep UTC
        return None


#: Arrow's time units, seconds included (durations, Arrow times and timestamps).
ARROW_UNITS_PER_SECOND = {"s": 1, **UNITS_PER_SECOND}
_MAX_TIMEDELTA_US = _dt.timedelta.max // _dt.timedelta(microseconds=1)


def span_ns(value: object) -> int | None:
    """A time span (``datetime.timedelta``, ``pandas.Timedelta``,
    ``numpy.timedelta64``) in nanoseconds; None for any other value."""
    if isinstance(value, np.timedelta64):
        if np.isnat(value):
            raise SchemaError(f"{value!r} is not a time span to compare with")
        return int(value.astype("m8[ns]").astype(np.int64))
    if isinstance(value, _dt.timedelta):
        whole = (value.days * 86_400 + value.seconds) * 10**9 + value.microseconds * 1_000
        return whole + getattr(value, "nanoseconds", 0)  # pandas.Timedelta keeps nanoseconds beyond the microseconds
    return None


def span_counts(value: object, unit: str) -> tuple[int | None, bool]:
    """A time span as a count of an Arrow duration ``unit`` ("s" .. "ns"), the
    count at or below it, and whether it is exact: (None, False) for a value
    that is not a span."""
    ns = span_ns(value)
    if ns is None:
        return None, False
    per = 10**9 // ARROW_UNITS_PER_SECOND[unit]
    return ns // per, ns % per == 0


def in_duration_unit(values: Iterable[object], unit: str) -> Iterator[object]:
    """``values`` with each time span as its count of ``unit``; a span between
    two counts equals no value of such a column and is left out."""
    for value in values:
        count, exact = span_counts(value, unit)
        if count is None:
            yield value
        elif exact:
            yield count


def durations_to_py(values: np.ndarray, unit: str, validity: np.ndarray | None = None) -> list:
    """int64 durations as ``datetime.timedelta`` (pyarrow's ``to_pylist``); as for
    NANOS timestamps, nanoseconds give ``pandas.Timedelta`` when pandas is
    installed, and otherwise a value that is not a whole microsecond raises."""
    values = _zero_nulls(values, validity)
    pd = _pandas() if unit == "ns" else None
    if pd is not None:
        return apply_nulls(pd.TimedeltaIndex(values.view("timedelta64[ns]")).to_list(), validity)
    if unit == "ns":
        return apply_nulls(_whole_micros(values, "duration", "timedelta").astype("timedelta64[us]").tolist(), validity)
    limit = _MAX_TIMEDELTA_US // (10**6 // ARROW_UNITS_PER_SECOND[unit])
    bad = (values > limit) | (values < -limit)
    if bad.any():
        i = _first(bad)
        raise UnsupportedError(f"duration value {i} ({int(values[i])} {unit}) is beyond timedelta's range")
    # in their own unit: seconds past 2**63 microseconds are still a timedelta
    return apply_nulls(values.astype(f"timedelta64[{unit}]").tolist(), validity)


def int96_to_py(values: np.ndarray, validity: np.ndarray | None = None, unit: str | None = None) -> list:
    """INT96 values as the timestamps they read as in Arrow: nanoseconds (as
    for NANOS timestamps: ``pandas.Timestamp`` when pandas is installed) when
    every value fits them, else naive ``datetime``, exact to the microsecond
    over their whole range (a sub-microsecond value raises: datetime cannot
    hold it). With a ``unit`` ("ns", "us", "ms", "s"), as the int64 timestamps
    pyarrow's coercion to that unit gives (truncated to it)."""
    if unit is not None:
        counts = int96_to_int64(values, unit, validity)
        if unit == "s":
            counts, unit = counts * 1000, "ms"
        return timestamps_to_py(counts, unit, False, validity, what="INT96")
    try:
        return timestamps_to_py(int96_to_int64(values, "ns", validity), "ns", False, validity, what="INT96")
    except UnsupportedError:
        pass  # beyond 64-bit nanoseconds (Spark writes such values), or no pandas for nanoseconds
    micros, sub = int96_micros(values, validity)
    if sub.any():
        i = _first(sub != 0)
        raise UnsupportedError(
            f"INT96 value {i} is not a whole microsecond, which datetime cannot hold; "
            "convert the column to Arrow or pandas instead"
        )
    return timestamps_to_py(micros, "us", False, validity, what="INT96")


def dates_to_py(values: np.ndarray, validity: np.ndarray | None = None) -> list:
    """DATE (int32 days since 1970-01-01) as ``datetime.date``."""
    days = _zero_nulls(values, validity)
    bad = (days < _MIN_DAY) | (days > _MAX_DAY)
    if bad.any():
        i = _first(bad)
        raise UnsupportedError(f"date value {i} ({int(days[i])} days) is outside datetime's years 1..9999")
    return apply_nulls(days.astype("datetime64[D]").tolist(), validity)


def times_to_py(values: np.ndarray, unit: str, validity: np.ndarray | None = None) -> list:
    """TIME values as ``datetime.time``, floored to microseconds. A value
    outside a day (LogicalTypes.md: the time since midnight) is not a time:
    DecodingError naming it."""
    values = _zero_nulls(values, validity)
    day = _US_PER_DAY * UNITS_PER_SECOND[unit] // 10**6
    outside = (values < 0) | (values >= day)
    if outside.any():
        i = _first(outside)
        raise DecodingError(f"TIME value {i} ({int(values[i])} {unit}) is not a time of day: "
                            f"it must lie in 0 to {day - 1}")
    micros = values // 1000 if unit == "ns" else values * (10**6 // UNITS_PER_SECOND[unit])
    seconds, fraction = np.divmod(micros, 10**6)
    minutes, second = np.divmod(seconds, 60)
    hour, minute = np.divmod(minutes, 60)
    out = list(map(_dt.time, hour.tolist(), minute.tolist(), second.tolist(), fraction.tolist()))
    return apply_nulls(out, validity)


# ---------------------------------------------------------------- from Python


def _to_int64(values: list, what: str) -> np.ndarray:
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        bad = next(i for i, v in enumerate(values) if not _INT64_MIN <= v <= _INT64_MAX)
        raise SchemaError(f"{what} value {bad} does not fit in 64 bits") from None


def _timestamp_count(value: object, unit: str, index: int) -> int:
    """One Python value as a count of ``unit`` since the epoch."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise SchemaError(f"timestamp value {index} is NaT; use None for a null")
        return int(value.astype(f"datetime64[{unit}]").astype(np.int64))
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, _dt.datetime):
        raise SchemaError(f"timestamp value {index} ({value!r}) is not a datetime")
    offset = value.utcoffset()
    if offset is not None:
        # Wall clock minus offset, on the naive value: an aware pandas.Timestamp
        # does arithmetic on the instant and re-localizes, so subtracting the
        # offset first would cross a DST change and land an hour off.
        value = value.replace(tzinfo=None) - offset
    delta = value - _EPOCH
    micros = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
    if unit == "ns":
        return micros * 1000 + int(getattr(value, "nanosecond", 0))
    return micros // (10**6 // UNITS_PER_SECOND[unit])


def datetimes_to_int64(values: list, unit: str) -> tuple[np.ndarray, np.ndarray | None]:
    """``datetime`` objects (aware ones converted to UTC, as pyarrow does),
    ``numpy.datetime64`` or ints as int64 counts of ``unit``, floored; None is null."""
    counts, validity = [], None
    for i, value in enumerate(values):
        if value is None:
            validity = _mark_null(validity, len(values), i)
            counts.append(0)
        else:
            try:
                counts.append(_timestamp_count(value, unit, i))
            except OverflowError:
                raise SchemaError(f"timestamp value {i} ({value!r}) is out of range") from None
    return _to_int64(counts, "timestamp"), validity


def datetimes_to_int96(values: list) -> tuple[np.ndarray, np.ndarray | None]:
    """``datetime`` objects (or int nanoseconds) as ``(n, 12)`` INT96 values;
    exact for any year, unlike a trip through 64-bit nanoseconds."""
    days = np.zeros(len(values), dtype=np.int64)
    nanos = np.zeros(len(values), dtype=np.int64)
    validity = None
    for i, value in enumerate(values):
        if value is None:
            validity = _mark_null(validity, len(values), i)
            continue
        try:
            days[i], nanos[i] = divmod(_timestamp_count(value, "ns", i), _NS_PER_DAY)
        except OverflowError:
            raise SchemaError(f"timestamp value {i} ({value!r}) is outside the INT96 range") from None
    julian = days + JULIAN_UNIX_EPOCH
    bad = (julian < -(2**31)) | (julian >= 2**31)
    if bad.any():
        raise SchemaError(f"timestamp value {_first(bad)} is outside the INT96 range")
    out = np.empty(len(values), dtype=_INT96)
    out["nanos"], out["julian_day"] = nanos, julian
    return out.view(np.uint8).reshape(len(values), 12), validity


def _mark_null(validity: np.ndarray | None, n: int, i: int) -> np.ndarray:
    if validity is None:
        validity = np.ones(n, dtype=bool)
    validity[i] = False
    return validity


def dates_to_int32(values: list) -> tuple[np.ndarray, np.ndarray | None]:
    """``date`` objects (a ``datetime`` keeps its date) as int32 days since 1970-01-01."""
    days, validity = [], None
    for i, value in enumerate(values):
        if value is None:
            validity = _mark_null(validity, len(values), i)
            days.append(0)
        elif isinstance(value, np.datetime64):
            days.append(int(value.astype("datetime64[D]").astype(np.int64)))
        elif isinstance(value, _dt.date):
            days.append(value.toordinal() - _EPOCH_ORDINAL)
        elif isinstance(value, int) and not isinstance(value, bool):
            days.append(value)
        else:
            raise SchemaError(f"date value {i} ({value!r}) is not a date")
    out = _to_int64(days, "date")
    bad = (out < -(2**31)) | (out >= 2**31)
    if bad.any():
        raise SchemaError(f"date value {_first(bad)} does not fit in 32 bits")
    return out.astype(np.int32), validity


def times_to_int64(values: list, unit: str) -> tuple[np.ndarray, np.ndarray | None]:
    """``time`` objects (or ints) as int64 counts of ``unit`` after midnight, floored."""
    counts, validity = [], None
    scale = UNITS_PER_SECOND[unit]
    for i, value in enumerate(values):
        if value is None:
            validity = _mark_null(validity, len(values), i)
            counts.append(0)
        elif isinstance(value, _dt.time):
            micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 10**6 + value.microsecond
            counts.append(micros * 1000 if unit == "ns" else micros // (10**6 // scale))
        elif isinstance(value, int) and not isinstance(value, bool):
            counts.append(value)
        else:
            raise SchemaError(f"time value {i} ({value!r}) is not a time")
    return _to_int64(counts, "time"), validity


# ---------------------------------------------------------------- INTERVAL


def interval_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Months, days and milliseconds (uint32 each) of ``(n, 12)`` INTERVAL values."""
    parts = np.ascontiguousarray(values, dtype=np.uint8).reshape(-1).view("<u4").reshape(-1, 3)
    return parts[:, 0], parts[:, 1], parts[:, 2]


def intervals_from_py(values: list) -> tuple[np.ndarray, np.ndarray | None]:
    """12-byte values or ``(months, days, milliseconds)`` tuples as ``(n, 12)`` INTERVAL bytes."""
    out = np.zeros((len(values), 3), dtype="<u4")
    validity = None
    for i, value in enumerate(values):
        if value is None:
            validity = _mark_null(validity, len(values), i)
        elif isinstance(value, (bytes, bytearray, memoryview)) and len(value) == 12:
            out[i] = np.frombuffer(bytes(value), dtype="<u4")
        elif isinstance(value, tuple) and len(value) == 3 and all(
            isinstance(v, int) and 0 <= v < 2**32 for v in value
        ):
            out[i] = value
        else:
            raise SchemaError(
                f"interval value {i} ({value!r}) is neither 12 bytes nor (months, days, millis) of uint32"
            )
    return out.view(np.uint8).reshape(len(values), 12), validity


__all__ = [
    "UTC",
    "UNITS_PER_SECOND",
    "ARROW_UNITS_PER_SECOND",
    "in_duration_unit",
    "span_counts",
    "span_ns",
    "JULIAN_UNIX_EPOCH",
    "apply_nulls",
    "int96_parts",
    "int96_micros",
    "int96_sort_keys",
    "int96_to_int64",
    "int64_to_int96",
    "timestamps_to_py",
    "in_zone",
    "durations_to_py",
    "int96_to_py",
    "dates_to_py",
    "times_to_py",
    "datetimes_to_int64",
    "datetimes_to_int96",
    "dates_to_int32",
    "times_to_int64",
    "interval_parts",
    "intervals_from_py",
]
