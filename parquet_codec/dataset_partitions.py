"""Partition values: the types inferred for a hive key's values, the typed
values and the columns holding them, and filters evaluated on them.

pyarrow reads integer partitions as int32 and the rest as strings; here a
key's values are typed the way Spark infers them (integer, long, double,
date, timestamp, else string); a key a schema given types is its folders'
text parsed as that type, as pyarrow parses it (:func:`schema_kind`). Filters compare as pyarrow's would where the
two agree on a type: a date, timestamp or double partition (a string to
pyarrow) takes a string filter value, converted when it parses as the
partition's type and otherwise compared with the folder's text, as pyarrow
compares it; an integer partition takes a string only in ``in`` / ``not in``
(converted, as pyarrow converts the value set). Any other mix of types
(a string partition with a number, a number with a date, a bool with
anything) is a :class:`SchemaError`, where pyarrow also refuses.
"""

from __future__ import annotations

import datetime
import functools
import numbers
import operator
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import LogicalType, MicroSeconds, SchemaElement, TimestampType, TimeUnit
from parquet_codec.predicate import Filter, Predicate
from parquet_codec.schema import primitive

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_INT32 = (-(2**31), 2**31 - 1)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?\Z")
_UTC = datetime.timezone.utc


def infer_type(values: list[str | None]) -> str:
    """Spark's partition type inference over every value of one key."""
    present = [v for v in values if v is not None]
    for kind, test in (("int", _is_int32), ("long", _is_int), ("double", _is_double),
                       ("date", _is_date), ("timestamp", _is_timestamp)):
        if all(test(v) for v in present):
            return kind
    return "string"


def schema_kind(key: str, type_name: str, values: list[str | None]) -> str | None:
    """The type to read a key's folder values as when a schema types the key
    (``type_name``, as pyarrow names the type): its text parsed as pyarrow
    parses text into that type ("true" a boolean, "2020-01-01" a timestamp,
    "1099511627776" a float), then cast to it. None for a type not parsed
    here (the inferred type is cast). A value that does not parse is a
    :class:`SchemaError`, as pyarrow refuses it, whichever rows are read."""
    if type_name in ("string", "binary"):  # the text itself: 2020 stays "2020"
        return "string"
    parsed = _PARSED.get(re.match(r"[a-z]*", type_name).group())
    if parsed is None:
        return None
    kind, test = parsed
    for value in values:
        if value is not None and not test(value):
            raise SchemaError(f"partition key {key!r}: {value!r} is not a value of type {type_name}")
    return kind


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None and -(2**63) <= int(text) < 2**63


def _is_int32(text: str) -> bool:
    return _is_int(text) and _INT32[0] <= int(text) <= _INT32[1]


def _is_date(text: str) -> bool:
    """A valid ISO date (2020-02-30 has the shape, not the value: a string)."""
    return _DATE.match(text) is not None and _parses(datetime.date.fromisoformat, text)


def _is_timestamp(text: str) -> bool:
    return _TIMESTAMP.match(text) is not None and _parses(datetime.datetime.fromisoformat, text.replace(" ", "T"))


def _parses(parse: object, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


# Spark infers a double where Java's Double.parseDouble takes the text
# (surrounding blanks, NaN, Infinity, a d or f suffix), not where only Python's
# float does (1_000, nan, inf): Spark and pyarrow keep those as strings.
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)", re.ASCII)
# pyarrow's cast of text to a float: nan and inf in any case, nothing around the number.
_ARROW_DOUBLE = re.compile(r"[+-]?((\d+\.?\d*|\.\d+)(e[+-]?\d+)?|inf|infinity|nan)", re.ASCII | re.IGNORECASE)


def _is_double(text: str) -> bool:
    return _JAVA_DOUBLE.fullmatch(text.strip()) is not None


def _is_arrow_double(text: str) -> bool:
    return _ARROW_DOUBLE.fullmatch(text) is not None


def _is_bool(text: str) -> bool:
    return text.lower() in ("true", "false", "1", "0")  # Arrow's spellings, in any case


# A schema's type family -> the kind its keys are read as, and the test of a value's text.
_PARSED: dict[str, tuple[str, Callable[[str], bool]]] = {
    "int": ("long", _is_int), "uint": ("long", _is_int), "float": ("double", _is_arrow_double),
    "double": ("double", _is_arrow_double), "date": ("date", _is_date), "boolean": ("bool", _is_bool),
    "timestamp": ("timestamp", lambda text: _is_date(text) or _is_timestamp(text)),
}


def typed(text: str | None, kind: str) -> object:
    """The partition value spelled ``text`` (None: null) as a Python value of type ``kind``."""
    if text is None:
        return None
    if kind in ("int", "long"):
        return int(text)
    if kind == "double":
        return float(text.strip().rstrip("fFdD"))  # (a Java suffix: "1d")
    if kind == "date":
        return datetime.date.fromisoformat(text)
    if kind == "bool":
        return text.lower() in ("true", "1")
    if kind == "timestamp":  # an instant, read in UTC like a session whose time zone is UTC
        return datetime.datetime.fromisoformat(text.replace(" ", "T")).replace(tzinfo=_UTC)
    return text


_ELEMENTS = {
    "int": lambda name: primitive(name, "INT32"),
    "long": lambda name: primitive(name, "INT64"),
    "double": lambda name: primitive(name, "DOUBLE"),
    "date": lambda name: primitive(name, "INT32", logical_type="DATE"),
    "bool": lambda name: primitive(name, "BOOLEAN"),
    "string": lambda name: primitive(name, "BYTE_ARRAY", logical_type="STRING"),
}


def element(name: str, kind: str) -> list[SchemaElement]:
    """The schema element of a partition column of type ``kind``."""
    if kind == "timestamp":
        unit = TimeUnit(MICROS=MicroSeconds())
        return primitive(name, "INT64", logical_type=LogicalType(TIMESTAMP=TimestampType(True, unit)))
    return _ELEMENTS[kind](name)


def constant(value: object, kind: str, rows: int) -> Array:
    """``rows`` copies of one partition value in the column's physical layout."""
    validity = None if value is not None else np.zeros(rows, dtype=bool)
    if kind == "string":
        raw = np.frombuffer(b"" if value is None else value.encode(), dtype=np.uint8)
        offsets = np.arange(rows + 1, dtype=np.int64) * len(raw)
        return BinaryArray.of(offsets, np.tile(raw, rows), validity)
    physical = {"int": np.int32, "long": np.int64, "double": np.float64, "date": np.int32, "timestamp": np.int64,
                "bool": np.bool_}
    number = 0 if value is None else _physical_number(value, kind)
    return PrimitiveArray.of(np.full(rows, number, dtype=physical[kind]), validity)


def _physical_number(value: object, kind: str) -> int | float:
    if kind == "date":
        return (value - datetime.date(1970, 1, 1)).days
    if kind == "timestamp":
        delta = value - datetime.datetime(1970, 1, 1, tzinfo=_UTC)
        return (delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds
    return value


# ---------------------------------------------------------------- filters on partitions

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_TYPE_NAMES = {"int": "int32", "long": "int64", "timestamp": "timestamp[us, UTC]"}


@dataclass(frozen=True)
class _Text:
    """A filter value compared with the partition folder's text, as pyarrow compares it."""

    text: str


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _operand(predicate: Predicate, column: str, value: object, kind: str) -> object:
    """``value`` as one of the partition's type (or :class:`_Text`); raises
    :class:`SchemaError` when pyarrow would not compare the two either."""
    listed = predicate.op in ("in", "not in")
    if kind == "string" and isinstance(value, str):
        return value
    if kind in ("int", "long", "double") and _is_number(value):
        return value
    if kind == "bool" and isinstance(value, (bool, np.bool_)):
        return bool(value)
    if kind in ("int", "long") and listed and isinstance(value, str) and _is_int(value):
        return int(value)
    if kind == "date" and isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    if kind == "timestamp" and isinstance(value, datetime.datetime):
        return value if value.utcoffset() is not None else value.replace(tzinfo=_UTC)
    if kind in ("double", "date", "timestamp") and isinstance(value, str):
        return _parsed(value, kind)
    hint = ""
    if kind in ("int", "long") and isinstance(value, str):
        hint = " (as in pyarrow, a string compares with an integer partition only in 'in' / 'not in', " \
               "and only when it is an integer)"
    raise SchemaError(f"filter {predicate}: partition column {column!r} of type {_TYPE_NAMES.get(kind, kind)} "
                      f"cannot be compared with {value!r} of type {type(value).__name__}{hint}")


def _parsed(text: str, kind: str) -> object:
    """A string filter value on a partition pyarrow reads as a string: the
    partition's type when it parses as one, else its text."""
    try:
        if kind == "double":
            return float(text)
        if kind == "date":
            return datetime.date.fromisoformat(text)
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        return _Text(text)
    return value if value.utcoffset() is not None else value.replace(tzinfo=_UTC)


def _holds(op: str, value: object, text: str | None, operand: object) -> bool:
    """``value op operand`` for one non-null partition value (``text``, its folder's spelling)."""
    if isinstance(operand, _Text):
        return _COMPARE[op](text, operand.text)
    return _COMPARE[op](value, operand)


def partition_matches(predicate: Predicate, kind: str, text: str | None) -> bool:
    """Whether the partition value spelled ``text`` (None: null) of type
    ``kind`` satisfies ``predicate``; only the requested comparison is made."""
    op, column, value = predicate.op, predicate.column, typed(text, kind)
    if op == "is null":
        return value is None
    if op == "is not null":
        return value is not None
    if op in ("in", "not in"):
        operands = [None if v is None else _operand(predicate, column, v, kind) for v in predicate.value]
        found = any(value is None if o is None else value is not None and _holds("==", value, text, o)
                    for o in operands)
        return found == (op == "in")
    if predicate.value is None:
        raise SchemaError(f"filter {predicate}: None only means 'is null' with == and !=")
    operand = _operand(predicate, column, predicate.value, kind)
    return value is not None and _holds(op, value, text, operand)


def check_partition_predicates(filt: Filter | None, kinds: Mapping[str, str]) -> None:
    """Raise :class:`SchemaError` for a predicate on a partition key (of
    ``kinds``: key -> type) that cannot be compared with the key's type.
    pyarrow checks the whole filter against the dataset's schema before it
    reads, so a predicate that pruning would never evaluate is refused too."""
    for predicate in filt.predicates if filt else ():
        if predicate.column in kinds:
            partition_matches(predicate, kinds[predicate.column], None)


def data_predicates(filt: Filter | None, keys: Collection[str]) -> Filter | None:
    """The predicates of ``filt`` on columns other than ``keys`` as one AND
    list (to check them against a schema, not to select rows); None if none."""
    rest = tuple(p for p in (filt.predicates if filt else ()) if p.column not in keys)
    return Filter((rest,)) if rest else None


def null_matches(predicate: Predicate) -> bool:
    """Whether a null satisfies ``predicate`` (for a column a file lacks), as in pyarrow."""
    if predicate.op in ("in", "not in"):
        return (None in predicate.value) == (predicate.op == "in")
    return predicate.op == "is null"


def partition_tests(partition: dict[str, tuple[str, str | None]]) -> dict[str, Callable[[Predicate], bool]]:
    """Per key of ``partition`` (key -> (type, text)), the decision of a predicate on it."""
    return {key: functools.partial(partition_matches, kind=kind, text=text) for key, (kind, text) in partition.items()}


def file_filter(filt: Filter | None, known: Mapping[str, Callable[[Predicate], bool]]) -> tuple[bool, Filter | None]:
    """Decide the predicates on the columns whose value one file fixes (its
    partition keys, the columns it lacks): ``known`` maps each to a decision.
    Returns (read the file?, the filter left for its rows)."""
    if filt is None:
        return True, None
    clauses = []
    for clause in filt.clauses:
        if all(known[p.column](p) for p in clause if p.column in known):
            rest = tuple(p for p in clause if p.column not in known)
            if not rest:
                return True, None  # this clause holds for every row of the file
            clauses.append(rest)
    return (True, Filter(tuple(clauses))) if clauses else (False, None)
