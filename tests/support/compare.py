"""Value comparison for tests: NaN equals NaN, containers compare deeply."""

from __future__ import annotations

import datetime
import math


def same(a: object, b: object) -> bool:
    """Deep equality where NaN == NaN and -0.0 differs from 0.0 only in sign checks skipped."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, datetime.datetime) or isinstance(b, datetime.datetime):
        # pyarrow gives pandas Timestamps for nanosecond columns; they equal datetimes.
        return isinstance(a, datetime.datetime) and isinstance(b, datetime.datetime) and a == b
    return type(a) is type(b) and a == b


def first_difference(got: list, expected: list) -> str | None:
    """A short description of the first row that differs, or None."""
    if len(got) != len(expected):
        return f"{len(got)} rows, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if not same(g, e):
            if isinstance(g, dict) and isinstance(e, dict):
                key = next((k for k in g if not same(g.get(k), e.get(k))), None)
                return f"row {i} column {key!r}: {g.get(key)!r:.200} != {e.get(key)!r:.200}"
            return f"row {i}: {g!r:.200} != {e!r:.200}"
    return None
