"""The schema as pyarrow.parquet presents it: ParquetSchema, ColumnSchema and
ParquetLogicalType, with Arrow's names and strings (``FileMetaData.schema``).

A ColumnSchema describes one leaf column. Its logical type is the element's
LogicalType, or the ConvertedType's equivalent in files that carry only that
(LogicalTypes.md, "Backward compatibility"); its converted type is, as
Arrow reports it, the one that LogicalType implies (NONE for local times and
timestamps), or the stored one in files without a LogicalType. Both views pass
every other attribute through to :class:`~parquet_codec.schema.Schema` and
:class:`~parquet_codec.schema.SchemaNode`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from parquet_codec.converted_types import converted_from_logical, is_known_logical_type
from parquet_codec.encodings.plain import type_name
from parquet_codec.errors import UnsupportedError
from parquet_codec.format.ttypes import ConvertedType, EdgeInterpolationAlgorithm, LogicalType, TimeUnit, Type
from parquet_codec.schema import Schema, SchemaNode

#: Arrow's name of each LogicalType member (its ``type``) and of its JSON "Type".
_NAMES = {
    "STRING": ("STRING", "String"), "MAP": ("MAP", "Map"), "LIST": ("LIST", "List"), "ENUM": ("ENUM", "Enum"),
    "DECIMAL": ("DECIMAL", "Decimal"), "DATE": ("DATE", "Date"), "TIME": ("TIME", "Time"),
    "TIMESTAMP": ("TIMESTAMP", "Timestamp"), "INTEGER": ("INT", "Int"), "UNKNOWN": ("UNKNOWN", "Null"),
    "JSON": ("JSON", "JSON"), "BSON": ("BSON", "BSON"), "UUID": ("UUID", "UUID"), "FLOAT16": ("FLOAT16", "Float16"),
    "VARIANT": ("VARIANT", "Variant"), "GEOMETRY": ("GEOMETRY", "Geometry"), "GEOGRAPHY": ("GEOGRAPHY", "Geography"),
    "UNDEFINED": ("UNDEFINED", "Undefined"),
    "INTERVAL": ("UNKNOWN", "Interval"),  # Arrow's, for the INTERVAL ConvertedType (no LogicalType has it)
}
_UNITS = {"MILLIS": "milliseconds", "MICROS": "microseconds", "NANOS": "nanoseconds"}


def _unit(unit: TimeUnit | None) -> str:
    return next((text for member, text in _UNITS.items() if getattr(unit, member, None) is not None), "unknown")


def object_line(view: object) -> str:
    """The first line of a view's text, as pyarrow's: its class and address."""
    return f"<{type(view).__module__}.{type(view).__qualname__} object at {id(view):#x}>"


class ParquetLogicalType:
    """pyarrow.parquet.ParquetLogicalType: ``type``, ``to_json()`` and the
    text Arrow prints, for a LogicalType (None: no logical type)."""

    def __init__(self, logical: LogicalType | None, from_converted: bool = False, interval: bool = False) -> None:
        self._logical = logical
        known = (m for m in _NAMES if logical is not None and getattr(logical, m, None) is not None)
        self._member = next(known, None)
        if logical is not None and self._member is None:
            self._member = "UNDEFINED"  # a type from a later format version
        elif interval:
            self._member = "INTERVAL"
        self._fields, self._json = self._params(from_converted)

    def _params(self, from_converted: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """The type's parameters as Arrow prints them and as its JSON holds them."""
        value = None if self._member is None else getattr(self._logical, self._member, None)
        fields: dict[str, Any] = {}
        if self._member == "DECIMAL":
            fields = {"precision": value.precision, "scale": value.scale}
        elif self._member == "INTEGER":
            fields = {"bitWidth": value.bitWidth, "isSigned": bool(value.isSigned)}
        elif self._member in ("TIME", "TIMESTAMP"):
            fields = {"isAdjustedToUTC": bool(value.isAdjustedToUTC), "timeUnit": _unit(value.unit)}
            if self._member == "TIMESTAMP":
                fields.update(is_from_converted_type=from_converted, force_set_converted_type=False)
        elif self._member in ("GEOMETRY", "GEOGRAPHY"):
            # Only what differs from the defaults (the OGC:CRS84 system, spherical edges) is in the JSON.
            fields, shown = {"crs": value.crs or ""}, {"crs": value.crs} if value.crs else {}
            if self._member == "GEOGRAPHY":
                algorithm = value.algorithm or EdgeInterpolationAlgorithm.SPHERICAL
                fields["algorithm"] = EdgeInterpolationAlgorithm._VALUES_TO_NAMES.get(algorithm, str(algorithm)).lower()
                if algorithm != EdgeInterpolationAlgorithm.SPHERICAL:
                    shown["algorithm"] = fields["algorithm"]
            return fields, shown
        return fields, fields

    @property
    def type(self) -> str:
        return "NONE" if self._member is None else _NAMES[self._member][0]

    def to_json(self) -> str:
        name = "None" if self._member is None else _NAMES[self._member][1]
        return json.dumps({"Type": name, **self._json}, separators=(",", ":"))

    def __str__(self) -> str:
        name = "None" if self._member is None else _NAMES[self._member][1]
        if not self._fields:
            return name
        shown = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in self._fields.items())
        return f"{name}({shown})"

    def __repr__(self) -> str:
        return f"<ParquetLogicalType {self}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParquetLogicalType) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def _implied_converted(logical: LogicalType) -> int | None:
    """The ConvertedType Arrow derives from a LogicalType: only UTC-adjusted
    millisecond and microsecond times and timestamps have one."""
    for member in ("TIME", "TIMESTAMP"):
        value = getattr(logical, member)
        if value is not None and (not value.isAdjustedToUTC or _unit(value.unit) == "nanoseconds"):
            return None
    return converted_from_logical(logical)


class ColumnSchema:
    """pyarrow.parquet.ColumnSchema over a leaf :class:`SchemaNode`."""

    def __init__(self, node: SchemaNode) -> None:
        self._node = node

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)  # name and the levels among them

    @property
    def path(self) -> str:
        return self._node.dotted_path

    @property
    def physical_type(self) -> str:
        return type_name(self._node.physical_type)

    @property
    def logical_type(self) -> ParquetLogicalType:
        stored = self._node.element.logicalType
        if stored is not None and not is_known_logical_type(stored):
            return ParquetLogicalType(stored)  # Undefined
        interval = stored is None and self._node.element.converted_type == ConvertedType.INTERVAL
        return ParquetLogicalType(self._node.logical_type, from_converted=stored is None, interval=interval)

    @property
    def converted_type(self) -> str:
        element = self._node.element
        if element.logicalType is not None and not is_known_logical_type(element.logicalType):
            return "UNKNOWN"  # Arrow's word for a logical type it does not know
        converted = _implied_converted(element.logicalType) if is_known_logical_type(element.logicalType) \
            else element.converted_type
        return "NONE" if converted is None else ConvertedType._VALUES_TO_NAMES.get(converted, str(converted))

    @property
    def length(self) -> int:
        """The stored type length (a FIXED_LEN_BYTE_ARRAY's byte width; some
        writers set one on other types too, in bits), else 0."""
        return self._node.element.type_length or 0

    @property
    def precision(self) -> int:
        """Decimal precision; -1 for other types (0 for those of a legacy
        ConvertedType, as Arrow reports them)."""
        return self._decimal_field("precision")

    @property
    def scale(self) -> int:
        return self._decimal_field("scale")

    def _decimal_field(self, name: str) -> int:
        element = self._node.element
        if is_known_logical_type(element.logicalType):
            decimal = element.logicalType.DECIMAL
            return -1 if decimal is None else getattr(decimal, name)
        if element.converted_type is None:
            return -1
        stored = getattr(element, name) if element.converted_type == ConvertedType.DECIMAL else None
        return stored or 0

    def _key(self) -> tuple:
        return (self.path, self.physical_type, self.logical_type.to_json(), self.converted_type, self.length,
                self.max_definition_level, self.max_repetition_level)

    def equals(self, other: object) -> bool:
        return isinstance(other, ColumnSchema) and self._key() == other._key()

    def __eq__(self, other: object) -> bool:
        return self.equals(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        legacy = self.converted_type  # Arrow's text: the decimal's digits, or a fixed width
        if legacy == "DECIMAL":
            legacy = f"DECIMAL({self.precision}, {self.scale})"
        elif self.physical_type == "FIXED_LEN_BYTE_ARRAY":
            legacy = f"FIXED_LEN_BYTE_ARRAY(length={self.length})"
        return (f"<ParquetColumnSchema>\n  name: {self.name}\n  path: {self.path}\n"
                f"  max_definition_level: {self.max_definition_level}\n"
                f"  max_repetition_level: {self.max_repetition_level}\n  physical_type: {self.physical_type}\n"
                f"  logical_type: {self.logical_type}\n  converted_type (legacy): {legacy}")


class ParquetSchema:
    """pyarrow.parquet.ParquetSchema over a :class:`Schema`: its leaf columns
    by position (``column(i)``, ``schema[i]``, ``len``), ``names``,
    ``to_arrow_schema()`` and ``equals``."""

    def __init__(self, schema: Schema, arrow_schema: Callable[[], Any] | None = None) -> None:
        self._schema = schema
        self._arrow_schema = arrow_schema

    def __getattr__(self, name: str) -> Any:
        return getattr(self._schema, name)

    @property
    def schema(self) -> Schema:
        """The schema tree behind the view."""
        return self._schema

    @property
    def names(self) -> list[str]:
        """Each leaf column's own name (the last part of its path)."""
        return [leaf.name for leaf in self._schema.leaves]

    def column(self, index: int) -> ColumnSchema:
        return ColumnSchema(self._schema.column(index))

    def __getitem__(self, index: int) -> ColumnSchema:
        return self.column(index)

    def __len__(self) -> int:
        return len(self._schema.leaves)

    def __iter__(self) -> Any:
        return (self.column(i) for i in range(len(self)))

    def to_arrow_schema(self) -> Any:
        """The pyarrow.Schema the columns read as, with pyarrow's default
        options and the file's stored Arrow schema (needs pyarrow)."""
        if self._arrow_schema is None:
            raise UnsupportedError("this schema is not a file's: it has no Arrow schema")
        return self._arrow_schema()

    def equals(self, other: object) -> bool:
        theirs = other._schema if isinstance(other, ParquetSchema) else other
        return isinstance(theirs, Schema) and self._schema == theirs

    def __eq__(self, other: object) -> bool:
        return self.equals(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{object_line(self)}\n{_arrow_text(self._schema)}"


#: Arrow's lower-case names of the physical types in its schema text.
_ARROW_TYPES = {Type.BOOLEAN: "boolean", Type.INT32: "int32", Type.INT64: "int64", Type.INT96: "int96",
                Type.FLOAT: "float", Type.DOUBLE: "double", Type.BYTE_ARRAY: "binary"}
_REPETITIONS = {0: "required", 1: "optional", 2: "repeated"}


def _arrow_text(schema: Schema) -> str:
    """The schema as Arrow prints it: a node per line with its repetition,
    type, field id (-1: none), name and annotation: the logical type, else
    the converted type (a DECIMAL with its digits)."""
    lines: list[str] = []

    def visit(node: SchemaNode, depth: int) -> None:
        view, indent = ColumnSchema(node), "  " * depth
        repetition = node.repetition if node.parent is not None else node.element.repetition_type
        head = f"{indent}{_REPETITIONS.get(repetition, 'required')} "
        if node.is_leaf:
            width = node.type_length or 0
            head += _ARROW_TYPES.get(node.physical_type, f"fixed_len_byte_array({width})") + " "
        else:
            head += "group "
        head += f"field_id={-1 if node.field_id is None else node.field_id} {node.name}"
        if view.logical_type.type not in ("NONE", "UNDEFINED"):
            head += f" ({view.logical_type})"
        elif view.converted_type == "MAP_KEY_VALUE":  # Arrow's logical type for it
            head += " (Map)"
        elif view.converted_type == "DECIMAL":
            head += f" (DECIMAL({view.precision},{view.scale}))"
        elif view.converted_type != "NONE":
            head += f" ({view.converted_type})"
        if node.is_leaf:
            lines.append(head + ";")
            return
        lines.append(head + " {")
        for child in node.children:
            visit(child, depth + 1)
        lines.append(indent + "}")

    visit(schema.root, 0)
    return "\n".join(lines) + "\n"


__all__ = ["ColumnSchema", "ParquetLogicalType", "ParquetSchema", "object_line"]
