"""The Parquet type each leaf is stored as under pyarrow's writer options, and
the conversion of its values (pyarrow.parquet.write_table; Arrow C++
``GetTimestampMetadata`` / ``WriteTimestamps``; LogicalTypes.md).

- ``version`` "1.0", "2.4" or "2.6" (FileMetaData.version 1, 2, 2): with "1.0"
  uint32 is stored as plain INT64 (INT(32, false) came with 2.x); with "1.0"
  and "2.4" TIMESTAMP(NANOS) is coerced to MICROS, never truncating.
- ``coerce_timestamps`` "ms" / "us": every timestamp cast to that unit; a
  value that would lose precision raises unless
  ``allow_truncated_timestamps``, then it is truncated toward zero (as
  Arrow's cast: -1001 us becomes -1 ms).
- ``use_deprecated_int96_timestamps``: every timestamp as Impala's INT96
  (nanoseconds of the day, Julian day; floored for values before 1970), no
  annotation; it takes priority over ``coerce_timestamps``.
- ``store_decimal_as_integer``: decimals of precision <= 9 as INT32, <= 18 as
  INT64 (others keep their type). Without it a decimal keeps the type the
  table gives it (Arrow decimals come as FIXED_LEN_BYTE_ARRAY, as pyarrow).
- ``write_time_adjusted_to_utc``: TIME columns with isAdjustedToUTC=true.

Types are compared as :class:`~parquet_codec.types.LogicalInfo`; conversion
is idempotent, so an already converted table passes unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_codec import temporal
from parquet_codec.arrays import Array, PrimitiveArray
from parquet_codec.errors import SchemaError, UnsupportedError
from parquet_codec.format.ttypes import SchemaElement, Type
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.schema import Schema
from parquet_codec.table import Table
from parquet_codec.type_annotations import element_fields
from parquet_codec.types import LogicalInfo, from_logical, logical_info, to_logical

#: FileMetaData.version pyarrow writes per ``version`` option.
FORMAT_VERSIONS = {"1.0": 1, "2.4": 2, "2.6": 2}
_INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class StoredTypes:
    """The type options of a writer, validated as pyarrow validates them."""

    version: str = "2.6"
    coerce_timestamps: str | None = None
    allow_truncated_timestamps: bool = False
    use_deprecated_int96_timestamps: bool = False
    store_decimal_as_integer: bool = False
    write_time_adjusted_to_utc: bool = False

    def __post_init__(self) -> None:
        if self.version not in FORMAT_VERSIONS:
            raise UnsupportedError(f"Unsupported Parquet format version: {self.version}")
        if self.coerce_timestamps not in (None, "ms", "us"):
            raise UnsupportedError(f"Invalid value for coerce_timestamps: {self.coerce_timestamps}")
        if not isinstance(self.store_decimal_as_integer, bool):
            raise TypeError("'store_decimal_as_integer' must be a boolean")

    @classmethod
    def from_options(cls, options: Any) -> StoredTypes:
        """From a WriterOptions; None means the default, as in pyarrow."""
        return cls(
            version="2.6" if options.version is None else options.version,
            coerce_timestamps=options.coerce_timestamps,
            allow_truncated_timestamps=bool(options.allow_truncated_timestamps),
            use_deprecated_int96_timestamps=bool(options.use_deprecated_int96_timestamps),
            store_decimal_as_integer=options.store_decimal_as_integer,
            write_time_adjusted_to_utc=bool(options.write_time_adjusted_to_utc),
        )

    @property
    def format_version(self) -> int:
        return FORMAT_VERSIONS[self.version]

    def _timestamp_unit(self, unit: str) -> tuple[str, bool]:
        """The stored unit and whether truncating to it is allowed."""
        if self.coerce_timestamps is not None:
            return self.coerce_timestamps, self.allow_truncated_timestamps
        if unit == "ns" and self.version != "2.6":
            return "us", False  # pyarrow never truncates this implicit coercion
        return unit, False

    def stored_info(self, info: LogicalInfo) -> LogicalInfo:
        """The type ``info`` is written as."""
        kind = info.kind
        if kind == "timestamp":
            if self.use_deprecated_int96_timestamps:
                return LogicalInfo("int96", Type.INT96, unit="ns")
            return dataclasses.replace(info, unit=self._timestamp_unit(info.unit)[0])
        if kind == "int" and info.bit_width == 32 and not info.signed and self.version == "1.0":
            return LogicalInfo("int", Type.INT64, bit_width=64)
        if kind == "time" and self.write_time_adjusted_to_utc:
            return dataclasses.replace(info, utc=True)
        if kind == "decimal" and self.store_decimal_as_integer and info.precision <= 18:
            physical = Type.INT32 if info.precision <= 9 else Type.INT64
            return LogicalInfo("decimal", physical, precision=info.precision, scale=info.scale)
        return info

    def schema(self, schema: Schema) -> Schema:
        """``schema`` with each leaf's element retyped where its stored type differs."""
        elements, changed = [schema.root.element], False
        for node in schema.nodes[1:]:
            element = node.element
            if node.is_leaf:
                info = logical_info(element)
                stored = self.stored_info(info)
                if stored != info:
                    element, changed = _retyped(element, stored), True
            elements.append(element)
        return Schema.from_elements(elements) if changed else schema

    def table(self, table: Table, schema: Schema) -> Table:
        """``table``'s values converted to ``schema`` (made by :meth:`schema` from
        ``table.schema``)."""
        arrays, dictionaries = {}, {}
        for column, field in zip(table.columns, schema.fields, strict=True):
            arrays[field.name] = self._convert(column.field, field, column.array)
            # An Arrow dictionary's entries (a categorical's, unused ones too) are written
            # ahead of the values, so they are converted alike rather than dropped.
            dictionaries[field.name] = [self._convert(column.field, field, d) for d in column.dictionaries]
        return Table(schema, arrays, table.num_rows, dictionaries=dictionaries)

    def _convert(self, source: Field, target: Field, array: Array) -> Array:
        if source.kind == PRIMITIVE:
            old, new = logical_info(source.node.element), logical_info(target.node.element)
            if old == new:
                return array
            try:
                return _convert_leaf(array, old, new, self._timestamp_unit(old.unit or "")[1])
            except SchemaError as exc:
                exc.add_context(column=source.node.dotted_path)
                raise
        if source.kind == STRUCT:
            children = {s.name: self._convert(s, t, array.children[s.name])
                        for s, t in zip(source.children, target.children, strict=True)}
            return dataclasses.replace(array, children=children)
        if source.kind == LIST:
            return dataclasses.replace(array, values=self._convert(source.element, target.element, array.values))
        if source.kind == MAP:
            keys = self._convert(source.key, target.key, array.keys)
            items = None if array.items is None else self._convert(source.value, target.value, array.items)
            return dataclasses.replace(array, keys=keys, items=items)
        raise SchemaError(f"field {source.name!r} of unknown kind {source.kind}")


def _retyped(element: SchemaElement, info: LogicalInfo) -> SchemaElement:
    """A copy of a leaf element (name, repetition, field_id kept) typed as ``info``."""
    fields = {k: getattr(element, k) for k in SchemaElement.__slots__}
    fields.update(element_fields(info))
    return SchemaElement(**fields)


def _arrow_type(info: LogicalInfo, with_tz: bool = True) -> str:
    """The Arrow type name pyarrow's messages use (the zone itself is not stored)."""
    return f"timestamp[{info.unit}{', tz=UTC' if info.utc and with_tz else ''}]"


def rescale_timestamps(values: np.ndarray, validity: np.ndarray | None, old: LogicalInfo, new: LogicalInfo,
                       allow_truncation: bool) -> np.ndarray:
    """int64 timestamps from ``old.unit`` to ``new.unit``, as Arrow casts them:
    finer units multiply (overflow raises), coarser ones divide truncating toward
    zero, raising on a lost remainder unless ``allow_truncation``."""
    values = np.asarray(values, dtype=np.int64)
    present = np.ones(len(values), bool) if validity is None else validity
    src, dst = temporal.UNITS_PER_SECOND[old.unit], temporal.UNITS_PER_SECOND[new.unit]
    what = f"{_arrow_type(old)} to {_arrow_type(new, with_tz=False)}"
    if dst >= src:
        factor = dst // src
        values = values if validity is None else np.where(validity, values, 0)  # null slots hold any value
        bad = present & ((values > _INT64_MAX // factor) | (values < -(_INT64_MAX // factor)))
        if bad.any():
            value = int(values[np.flatnonzero(bad)[0]])
            raise SchemaError(f"Integer overflow when casting timestamp value {value} from {what}")
        return values * factor
    factor = src // dst
    quotient, remainder = np.divmod(values, factor)
    quotient += (remainder != 0) & (values < 0)  # floor to truncation toward zero
    lost = present & (remainder != 0)
    if lost.any() and not allow_truncation:
        raise SchemaError(f"Casting from {what} would lose data: {int(values[np.flatnonzero(lost)[0]])}")
    return quotient


def _convert_leaf(array: Array, old: LogicalInfo, new: LogicalInfo, allow_truncation: bool) -> Array:
    """One leaf's physical values from type ``old`` to ``new`` (numpy, no per-value loop)."""
    if old.kind == "timestamp" and new.kind == "int96":
        return PrimitiveArray(len(array), temporal.int64_to_int96(array.values, old.unit, array.validity),
                              validity=array.validity)
    if old.kind == "timestamp" and new.kind == "timestamp":
        values = rescale_timestamps(array.values, array.validity, old, new, allow_truncation)
        return PrimitiveArray(len(array), values, validity=array.validity)
    if old.kind == new.kind and old.physical_type == new.physical_type:
        return array  # an annotation change only (TIME isAdjustedToUTC)
    # ints widened, decimals to integers: through the Arrow layout of the values
    return from_logical(to_logical(array, old), new)


__all__ = ["FORMAT_VERSIONS", "StoredTypes", "rescale_timestamps"]
