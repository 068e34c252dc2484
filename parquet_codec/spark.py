"""Spark's schema metadata: the ``org.apache.spark.sql.parquet.row.metadata`` entry.

Spark stores its own schema (a StructType serialized as JSON) in the footer's
key-value metadata of every file it writes, and on reading prefers it to the
Parquet schema (docs/spark-interop.md "Footer key-value metadata"). It is the
only place that says a column is ``byte`` rather than ``integer`` for an
unannotated INT32, an interval rather than a number, ``char(5)`` rather than
``string``, and that carries each StructField's ``metadata`` dict (copied
verbatim, nested fields included). StructField metadata ``parquet.field.id``
is Spark's name for ``SchemaElement.field_id``.

This module parses that JSON into a small typed model (:class:`SparkSchema`,
:class:`SparkField` and the type classes below, named as Spark's JSON names
them), serializes it back in Spark's compact key order, and derives it from a
Parquet schema the way Spark's Parquet-to-Catalyst converter does, so the
writer can emit it (``write_table(..., spark_schema=True)``). Only the
schema entry is written, never ``org.apache.spark.version``: that entry
claims a Spark release wrote the file, and Spark decides calendar rebasing
from it. Without it Spark applies its ``datetimeRebaseModeInRead`` setting to
dates and timestamps before 1582 (CORRECTED, i.e. proleptic Gregorian as we
write, by default in Spark 4; EXCEPTION in Spark 3).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from parquet_codec.errors import SchemaError, UnsupportedError

#: The footer key Spark reads its schema from (and writes it to).
ROW_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"
#: StructField metadata key that Spark maps to SchemaElement.field_id.
FIELD_ID_KEY = "parquet.field.id"

#: Spark's JSON names of the types without parameters ("void" is the NULL type).
ATOMIC_NAMES = frozenset({
    "byte", "short", "integer", "long", "float", "double", "string", "binary", "boolean",
    "date", "timestamp", "timestamp_ntz", "void",
})  # fmt: skip


class SparkSchemaError(SchemaError):
    """Spark schema JSON that cannot be parsed, or a schema Spark cannot hold."""


# ---------------------------------------------------------------- the type model


@dataclass(frozen=True)
class AtomicType:
    """A type without parameters, by Spark's JSON name (``integer``, ``timestamp_ntz``).

    Names this module does not know (types of newer Spark versions, collated
    strings) are kept verbatim so a schema survives a round trip."""

    name: str

    def to_json(self) -> Any:
        return self.name


@dataclass(frozen=True)
class DecimalType:
    precision: int = 10
    scale: int = 0

    @property
    def name(self) -> str:
        return f"decimal({self.precision},{self.scale})"

    def to_json(self) -> Any:
        return self.name


@dataclass(frozen=True)
class CharType:
    """``char(n)``: a string padded to n characters (Spark writes it as STRING)."""

    length: int

    @property
    def name(self) -> str:
        return f"char({self.length})"

    def to_json(self) -> Any:
        return self.name


@dataclass(frozen=True)
class VarcharType:
    """``varchar(n)``: a string of at most n characters (Spark writes it as STRING)."""

    length: int

    @property
    def name(self) -> str:
        return f"varchar({self.length})"

    def to_json(self) -> Any:
        return self.name


_DAY_TIME_UNITS = ("day", "hour", "minute", "second")
_YEAR_MONTH_UNITS = ("year", "month")


@dataclass(frozen=True)
class DayTimeIntervalType:
    """``interval day to second`` and its sub-ranges; stored as a bare INT64 of microseconds."""

    start: str = "day"
    end: str = "second"

    @property
    def name(self) -> str:
        return _interval_name(self.start, self.end)

    def to_json(self) -> Any:
        return self.name


@dataclass(frozen=True)
class YearMonthIntervalType:
    """``interval year to month`` and its sub-ranges; stored as a bare INT32 of months."""

    start: str = "year"
    end: str = "month"

    @property
    def name(self) -> str:
        return _interval_name(self.start, self.end)

    def to_json(self) -> Any:
        return self.name


def _interval_name(start: str, end: str) -> str:
    return f"interval {start}" if start == end else f"interval {start} to {end}"


@dataclass(frozen=True)
class ArrayType:
    element: SparkType
    contains_null: bool = True

    name = "array"

    def to_json(self) -> Any:
        return {"type": "array", "elementType": self.element.to_json(), "containsNull": self.contains_null}


@dataclass(frozen=True)
class MapType:
    key: SparkType
    value: SparkType
    value_contains_null: bool = True

    name = "map"

    def to_json(self) -> Any:
        return {"type": "map", "keyType": self.key.to_json(), "valueType": self.value.to_json(),
                "valueContainsNull": self.value_contains_null}


@dataclass(frozen=True)
class UserDefinedType:
    """A UDT: its storage type plus the JSON Spark wrote (class names), kept verbatim."""

    sql_type: SparkType
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    name = "udt"

    def to_json(self) -> Any:
        return {**self.raw, "sqlType": self.sql_type.to_json()}


@dataclass(frozen=True)
class SparkField:
    """One StructField: name, type, nullability and its ``metadata`` dict."""

    name: str
    type: SparkType
    nullable: bool = True
    metadata: Mapping[str, Any] = field(default_factory=dict)

    __hash__ = None  # type: ignore[assignment]  # the metadata dict is mutable

    @property
    def field_id(self) -> int | None:
        """Spark's ``parquet.field.id`` metadata, i.e. the Parquet field_id."""
        value = self.metadata.get(FIELD_ID_KEY)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type.to_json(), "nullable": self.nullable,
                "metadata": dict(self.metadata)}


@dataclass(frozen=True)
class SparkSchema:
    """A Spark StructType: the schema of a file, or the type of a struct field."""

    fields: tuple[SparkField, ...] = ()

    name = "struct"
    __hash__ = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(self.fields))

    def __getitem__(self, name: str) -> SparkField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def to_json(self) -> dict[str, Any]:
        return {"type": "struct", "fields": [f.to_json() for f in self.fields]}

    def json(self) -> str:
        """The compact JSON Spark writes under :data:`ROW_METADATA_KEY`."""
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> SparkSchema:
        """Parse Spark's StructType JSON (the row metadata value)."""
        if isinstance(text, Mapping):
            obj: Any = text
        else:
            try:
                obj = json.loads(text)
            except (ValueError, UnicodeDecodeError) as exc:
                raise SparkSchemaError(f"Spark schema metadata is not JSON: {exc}") from None
        parsed = parse_type(obj)
        if not isinstance(parsed, SparkSchema):
            raise SparkSchemaError(f"Spark schema metadata is a {parsed.name}, not a struct")
        return parsed

    @classmethod
    def from_parquet(cls, schema: Any, *, field_metadata: Mapping[str, Mapping[str, Any]] | None = None,
                     types: Mapping[str, SparkType | str] | None = None) -> SparkSchema:
        """The Spark schema Spark would infer from a Parquet schema, with overrides.

        ``field_metadata`` adds metadata dicts and ``types`` replaces types
        (a type or its Spark name: ``"byte"``, ``"char(5)"``, ``"interval day
        to second"``), both keyed by the dotted path of a field through
        structs (``"st.y"``); a type may only replace one Spark reads the same
        column as (see :func:`replaces`)."""
        for path, meta in (field_metadata or {}).items():
            _check_metadata_object(meta, path)
        overrides = {path: parse_type_name(t) if isinstance(t, str) else t for path, t in (types or {}).items()}
        metadata = dict(field_metadata or {})
        out = SparkSchema(tuple(_spark_field(f, (), metadata, overrides) for f in schema.fields))
        unused = sorted(set(metadata) | set(overrides))
        if unused:
            raise SparkSchemaError(f"no struct field {unused[0]!r} in the schema")
        return out


SparkType = (AtomicType | DecimalType | CharType | VarcharType | DayTimeIntervalType | YearMonthIntervalType
             | ArrayType | MapType | SparkSchema | UserDefinedType)


# ---------------------------------------------------------------- parsing

_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)")
_LENGTH = re.compile(r"(char|varchar)\(\s*(\d+)\s*\)")
_INTERVAL = re.compile(r"interval (\w+)(?: to (\w+))?")


def parse_type_name(text: str) -> SparkType:
    """A type given by its JSON string form: ``integer``, ``decimal(5,2)``,
    ``char(3)``, ``interval day to second``; unknown names stay atomic."""
    name = text.strip().lower()
    if name == "decimal":
        return DecimalType()  # Spark's default precision and scale
    match = _DECIMAL.fullmatch(name)
    if match:
        precision, scale = int(match[1]), int(match[2])
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise SparkSchemaError(f"Spark decimal({precision},{scale}) is out of range (precision 1..38)")
        return DecimalType(precision, scale)
    match = _LENGTH.fullmatch(name)
    if match:
        return (CharType if match[1] == "char" else VarcharType)(int(match[2]))
    match = _INTERVAL.fullmatch(name)
    if match:
        start, end = match[1], match[2] or match[1]
        for units, make in ((_DAY_TIME_UNITS, DayTimeIntervalType), (_YEAR_MONTH_UNITS, YearMonthIntervalType)):
            if start in units and end in units and units.index(start) <= units.index(end):
                return make(start, end)
        raise SparkSchemaError(f"unknown Spark interval type {text!r}")
    if name == "null":
        return AtomicType("void")  # the older JSON name of the NULL type
    return AtomicType(text.strip() if name not in ATOMIC_NAMES else name)


def parse_type(obj: Any) -> SparkType:
    """A Spark type from its JSON value (a string, or an object with ``type``)."""
    if isinstance(obj, str):
        return parse_type_name(obj)
    if not isinstance(obj, Mapping):
        raise SparkSchemaError(f"a Spark type must be a string or an object, not {type(obj).__name__}")
    kind = obj.get("type")
    try:
        if kind == "struct":
            return SparkSchema(tuple(_parse_field(f) for f in obj["fields"]))
        if kind == "array":
            return ArrayType(parse_type(obj["elementType"]), bool(obj.get("containsNull", True)))
        if kind == "map":
            return MapType(parse_type(obj["keyType"]), parse_type(obj["valueType"]),
                           bool(obj.get("valueContainsNull", True)))
        if kind == "udt":
            raw = {k: v for k, v in obj.items() if k != "sqlType"}
            return UserDefinedType(parse_type(obj["sqlType"]), raw)
    except KeyError as exc:
        raise SparkSchemaError(f"Spark {kind} type without {exc.args[0]!r}") from None
    except TypeError:
        raise SparkSchemaError(f"malformed Spark {kind} type") from None
    raise SparkSchemaError(f"unknown Spark type object {kind!r}")


def _parse_field(obj: Any) -> SparkField:
    if not isinstance(obj, Mapping) or not isinstance(obj.get("name"), str) or "type" not in obj:
        raise SparkSchemaError(f"malformed Spark StructField {obj!r:.200}")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise SparkSchemaError(f"field {obj['name']!r}: metadata must be an object")
    return SparkField(obj["name"], parse_type(obj["type"]), bool(obj.get("nullable", True)), dict(metadata))


def read_spark_schema(key_value_metadata: Mapping[str, str | None]) -> SparkSchema | None:
    """The Spark schema recorded in a footer's key-value metadata, or None."""
    text = key_value_metadata.get(ROW_METADATA_KEY)
    if text is None:
        return None
    try:
        return SparkSchema.from_json(text)
    except SparkSchemaError as exc:  # name the entry: the message alone does not say where
        exc.message = f"footer key-value metadata {ROW_METADATA_KEY!r}: {exc.message}"
        exc.args = (exc.message,)
        raise


def row_metadata(option: Any, schema: Any) -> str | None:
    """The value of :data:`ROW_METADATA_KEY` for the writer's ``spark_schema``
    option: None/False (no entry), True (derived from ``schema``), a
    :class:`SparkSchema` or its JSON text (checked against ``schema``)."""
    if option is None or option is False:
        return None
    if option is True:
        return SparkSchema.from_parquet(schema).json()
    spark = option if isinstance(option, SparkSchema) else SparkSchema.from_json(option)
    check_against(spark, schema)
    check_metadata(spark)
    return spark.json()


def check_metadata(schema: SparkSchema, where: str = "") -> None:
    """Refuse field metadata Spark's ``Metadata.fromJson`` cannot load: Spark
    silently ignores the whole schema entry then. Values are longs, doubles,
    booleans, strings, null or nested objects, and arrays of one of those
    kinds (an array's kind is its first element's)."""
    for f in schema.fields:
        path = f"{where}.{f.name}" if where else f.name
        _check_metadata_object(f.metadata, path)
        for nested in _structs_in(f.type):
            check_metadata(nested, path)


def _structs_in(t: SparkType) -> list[SparkSchema]:
    if isinstance(t, SparkSchema):
        return [t]
    if isinstance(t, ArrayType):
        return _structs_in(t.element)
    if isinstance(t, MapType):
        return _structs_in(t.key) + _structs_in(t.value)
    return _structs_in(t.sql_type) if isinstance(t, UserDefinedType) else []


def _metadata_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long" if -(2**63) <= value < 2**63 else None
    kinds = {float: "double", str: "string"}
    if type(value) in kinds:
        return kinds[type(value)]
    return "object" if isinstance(value, Mapping) else None


def _check_metadata_object(metadata: Mapping[str, Any], path: str) -> None:
    for key, value in metadata.items():
        if not isinstance(key, str):
            raise SparkSchemaError(f"field {path!r}: metadata key {key!r} is not a string")
        items = value if isinstance(value, list) else [value]
        kinds = {_metadata_kind(v) for v in items if not (v is None and not isinstance(value, list))}
        if None in kinds or len(kinds) > 1:
            raise SparkSchemaError(f"field {path!r}: metadata {key!r} = {value!r:.100} is not a long, double, "
                                   "boolean, string, null, object, or an array of one of those kinds")
        for v in items:
            if isinstance(v, Mapping):
                _check_metadata_object(v, path)


# ---------------------------------------------------------------- Parquet schema -> Spark schema
# As Spark's ParquetToSparkSchemaConverter maps types (docs/spark-interop.md "Types").

_INTS = {(8, True): "byte", (16, True): "short", (32, True): "integer", (64, True): "long",
         (8, False): "short", (16, False): "integer", (32, False): "long"}
_SIMPLE = {"boolean": "boolean", "string": "string", "enum": "string", "json": "string", "bson": "binary",
           "binary": "binary", "fixed_binary": "binary", "date": "date", "int96": "timestamp", "null": "void"}


def leaf_spark_type(node: Any) -> SparkType:
    """The Spark type Spark reads one Parquet leaf as; UnsupportedError for the
    types Spark refuses (UUID, FLOAT16, TIME, TIMESTAMP(NANOS), INTERVAL)."""
    from parquet_codec.types import logical_info

    info = logical_info(node.element)
    kind = info.kind
    if kind in _SIMPLE:
        return AtomicType(_SIMPLE[kind])
    if kind == "int":
        if (info.bit_width, info.signed) == (64, False):
            return DecimalType(20, 0)  # Spark's reading of UINT64
        return AtomicType(_INTS[(info.bit_width, info.signed)])
    if kind == "float" and info.bit_width in (32, 64):
        return AtomicType("float" if info.bit_width == 32 else "double")
    if kind == "decimal" and info.precision <= 38:
        return DecimalType(info.precision, info.scale)
    if kind == "timestamp" and info.unit in ("ms", "us"):
        return AtomicType("timestamp" if info.utc else "timestamp_ntz")
    raise UnsupportedError(f"column {node.dotted_path!r}: Spark has no type for Parquet {kind}"
                           + (f" ({info.unit})" if info.unit else ""))


def _spark_type(f: Any) -> SparkType:
    """The Spark type of a nested.Field (list/map element types included)."""
    from parquet_codec.nested import LIST, MAP, STRUCT

    if f.kind == STRUCT:
        return SparkSchema(tuple(_spark_field(c, None, {}, {}) for c in f.children))
    if f.kind == LIST:
        return ArrayType(_spark_type(f.element), f.element.nullable)
    if f.kind == MAP:
        if f.value is None:
            raise UnsupportedError(f"map {f.node.dotted_path!r} has no value column: Spark has no such map")
        return MapType(_spark_type(f.key), _spark_type(f.value), f.value.nullable)
    return leaf_spark_type(f.node)


def _spark_field(f: Any, prefix: tuple[str, ...] | None, metadata: dict, overrides: dict) -> SparkField:
    """A StructField; ``prefix`` is the field's struct path (None inside lists
    and maps, where Spark has no StructField to carry metadata or overrides)."""
    from parquet_codec.nested import STRUCT

    path = None if prefix is None else ".".join(prefix + (f.name,))
    if f.kind == STRUCT and prefix is not None:
        children = tuple(_spark_field(c, prefix + (f.name,), metadata, overrides) for c in f.children)
        spark_type: SparkType = SparkSchema(children)
    else:
        spark_type = _spark_type(f)
    if path in overrides:
        wanted = overrides.pop(path)
        if not replaces(spark_type, wanted):
            raise SparkSchemaError(f"field {path!r}: Spark cannot read a {spark_type.name} column as {wanted.name}")
        spark_type = wanted
    meta = dict(metadata.pop(path, {}) if path is not None else {})
    if f.node.field_id is not None:
        meta.setdefault(FIELD_ID_KEY, f.node.field_id)
    return SparkField(f.name, spark_type, f.nullable, meta)


#: Replacements Spark accepts: the stored column reads as the wider name's values.
_REPLACEMENTS = {
    "string": (CharType, VarcharType),
    "binary": (AtomicType("string"),),
    "integer": (AtomicType("byte"), AtomicType("short"), YearMonthIntervalType),
    "long": (DayTimeIntervalType,),
    "timestamp_ntz": (AtomicType("timestamp"),),
}


def replaces(derived: SparkType, wanted: SparkType) -> bool:
    """Whether a column Spark would read as ``derived`` may be declared ``wanted``."""
    if derived == wanted:
        return True
    for allowed in _REPLACEMENTS.get(getattr(derived, "name", ""), ()):
        if (isinstance(allowed, type) and isinstance(wanted, allowed)) or allowed == wanted:
            return True
    return False


def check_against(spark: SparkSchema, schema: Any) -> None:
    """Refuse a Spark schema that does not describe ``schema``'s columns: field
    names, types (up to :func:`replaces`) and ``parquet.field.id`` values."""
    derived = SparkSchema(tuple(_spark_field(f, (), {}, {}) for f in schema.fields))
    _check_struct(derived, spark, "")


def _check_struct(derived: SparkSchema, given: SparkSchema, where: str) -> None:
    if derived.names != given.names:
        raise SparkSchemaError(f"Spark schema fields {given.names} differ from the Parquet fields "
                               f"{derived.names}" + (f" in {where!r}" if where else ""))
    for d, g in zip(derived.fields, given.fields, strict=True):
        path = f"{where}.{d.name}" if where else d.name
        stored = d.metadata.get(FIELD_ID_KEY)
        if FIELD_ID_KEY in g.metadata and g.metadata[FIELD_ID_KEY] != stored:
            raise SparkSchemaError(f"field {path!r}: parquet.field.id {g.metadata[FIELD_ID_KEY]!r} differs "
                                   f"from the Parquet field_id {stored!r}")
        _check_type(d.type, g.type, path)


def _check_type(derived: SparkType, given: SparkType, path: str) -> None:
    if isinstance(derived, SparkSchema) and isinstance(given, SparkSchema):
        _check_struct(derived, given, path)
    elif isinstance(derived, ArrayType) and isinstance(given, ArrayType):
        _check_type(derived.element, given.element, path + ".element")
    elif isinstance(derived, MapType) and isinstance(given, MapType):
        _check_type(derived.key, given.key, path + ".key")
        _check_type(derived.value, given.value, path + ".value")
    elif isinstance(given, UserDefinedType):
        _check_type(derived, given.sql_type, path)
    elif not replaces(derived, given):
        raise SparkSchemaError(f"field {path!r}: Spark cannot read a {derived.name} column as {given.name}")


__all__ = [
    "ATOMIC_NAMES", "FIELD_ID_KEY", "ROW_METADATA_KEY", "ArrayType", "AtomicType", "CharType", "DayTimeIntervalType",
    "DecimalType", "MapType", "SparkField", "SparkSchema", "SparkSchemaError", "SparkType", "UserDefinedType",
    "VarcharType", "YearMonthIntervalType", "check_against", "check_metadata", "leaf_spark_type", "parse_type", "parse_type_name",
    "read_spark_schema", "replaces", "row_metadata",
]
