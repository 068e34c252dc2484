"""Building a :class:`~parquet_codec.table.Table` from data in other shapes:
a dict of columns (lists or numpy arrays), a list of row dicts, a pandas
DataFrame or a pyarrow Table.

With an explicit ``schema`` the values are converted to it (every logical
type and nesting the schema can describe). Without one the schema is
inferred, every field optional:

- numpy arrays by dtype: bool, int8..int64 (INT(8|16) annotated), uint8..uint64
  (INT(n, false)), float16 (FLOAT16), float32, float64, datetime64
  (TIMESTAMP of the unit, seconds as milliseconds, not UTC; NaT is null),
  timedelta64 (plain INT64), str and bytes;
- Python values: bool -> BOOLEAN, int -> INT64, float (or int mixed with
  float) -> DOUBLE, str -> STRING, bytes -> BYTE_ARRAY, Decimal -> DECIMAL of
  the smallest precision and scale holding every value (INT32 / INT64 /
  FIXED_LEN_BYTE_ARRAY as parquet-java stores them), datetime ->
  TIMESTAMP(MICROS) adjusted to UTC when aware, date -> DATE, time ->
  TIME(MICROS), UUID -> UUID, list or tuple -> a 3-level LIST, dict -> a
  struct; a column of only None is UNKNOWN. Maps need an explicit schema.

``None`` is null; NaN stays a float value (pandas input goes through
pyarrow, which reads NaN in float columns as null, as pandas means it).
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from parquet_codec import decimals
from parquet_codec.arrays import Array, ListArray, MapArray, PrimitiveArray, StructArray
from parquet_codec.arrow_schema import ArrowField, decode_schema
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import SchemaElement, Type
from parquet_codec.metadata import key_value_text
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.schema import Schema, group, list_, map_, primitive
from parquet_codec.table import Table
from parquet_codec.type_annotations import element_fields
from parquet_codec.types import LogicalInfo, from_logical, logical_info
from parquet_codec.types import from_pylist as values_from_pylist

Elements = list[SchemaElement]


# ---------------------------------------------------------------- schema builders


def leaf_elements(name: str, info: LogicalInfo, repetition: str = "optional") -> Elements:
    """The schema element of a leaf holding ``info``."""
    f = element_fields(info)
    return primitive(name, f["type"], repetition, logical_type=f["logicalType"], converted_type=f["converted_type"],
                     type_length=f["type_length"], precision=f["precision"], scale=f["scale"])


def _arrow_elements(field: Any) -> Elements:
    """Schema elements for an :class:`~parquet_codec.arrow_adapter.ArrowField`."""
    rep = "optional" if field.nullable else "required"
    if field.layout == "leaf":
        out = leaf_elements(field.name, field.info, rep)
    elif field.layout == "list":
        out = list_(field.name, _arrow_elements(field.children[0]), rep)
    elif field.layout == "struct":
        out = group(field.name, [_arrow_elements(c) for c in field.children], rep)
    else:
        key, value = field.children
        out = map_(field.name, _arrow_elements(key), _arrow_elements(value), rep)
    if field.field_id is not None:
        out[0].field_id = field.field_id
    return out


# ---------------------------------------------------------------- inference


_NUMPY_INTS = {1: (Type.INT32, 8), 2: (Type.INT32, 16), 4: (Type.INT32, 32), 8: (Type.INT64, 64)}


def _numpy_info(dtype: np.dtype) -> LogicalInfo | None:
    """The Parquet type of a numpy dtype; None for object and other dtypes."""
    kind = dtype.kind
    if kind == "b":
        return LogicalInfo("boolean", Type.BOOLEAN)
    if kind in "iu":
        physical, width = _NUMPY_INTS[dtype.itemsize]
        return LogicalInfo("int", physical, bit_width=width, signed=kind == "i")
    if kind == "f":
        if dtype.itemsize == 2:
            return LogicalInfo("float16", Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16)
        return LogicalInfo("float", Type.FLOAT if dtype.itemsize == 4 else Type.DOUBLE, bit_width=dtype.itemsize * 8)
    if kind == "M":
        unit = np.datetime_data(dtype)[0]
        if unit == "D":
            return LogicalInfo("date", Type.INT32)
        unit = {"s": "ms", "ms": "ms", "us": "us", "ns": "ns"}.get(unit)
        return LogicalInfo("timestamp", Type.INT64, unit=unit) if unit else None
    if kind == "m":
        return LogicalInfo("int", Type.INT64, bit_width=64)
    if kind == "U":
        return LogicalInfo("string", Type.BYTE_ARRAY)
    if kind == "S":
        return LogicalInfo("binary", Type.BYTE_ARRAY)
    return None


def _decimal_info(values: list[decimal.Decimal]) -> LogicalInfo:
    """The smallest DECIMAL(precision, scale) holding every value."""
    scale, whole = 0, 1
    for v in values:
        if not v.is_finite():
            raise SchemaError(f"decimal value {v} is not finite")
        sign, digits, exponent = v.as_tuple()
        scale = max(scale, -exponent)
        whole = max(whole, len(digits) + exponent)
    precision = max(1, whole + scale)
    if precision <= 9:
        return LogicalInfo("decimal", Type.INT32, precision=precision, scale=scale)
    if precision <= 18:
        return LogicalInfo("decimal", Type.INT64, precision=precision, scale=scale)
    return LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=decimals.min_bytes(precision),
                       precision=precision, scale=scale)


def _scalar_info(name: str, present: list) -> LogicalInfo:
    types = {type(v) for v in present}
    if all(issubclass(t, (bool, np.bool_)) for t in types):
        return LogicalInfo("boolean", Type.BOOLEAN)
    if all(issubclass(t, (int, np.integer)) and not issubclass(t, (bool, np.bool_)) for t in types):
        return LogicalInfo("int", Type.INT64, bit_width=64)
    if all(issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(t, bool) for t in types):
        return LogicalInfo("float", Type.DOUBLE, bit_width=64)
    if all(issubclass(t, str) for t in types):
        return LogicalInfo("string", Type.BYTE_ARRAY)
    if all(issubclass(t, (bytes, bytearray, memoryview)) for t in types):
        return LogicalInfo("binary", Type.BYTE_ARRAY)
    if all(issubclass(t, decimal.Decimal) for t in types):
        return _decimal_info(present)
    if all(issubclass(t, dt.datetime) for t in types):
        aware = {v.tzinfo is not None and v.utcoffset() is not None for v in present}
        if len(aware) > 1:
            raise SchemaError(f"column {name!r} mixes naive and timezone-aware datetimes")
        return LogicalInfo("timestamp", Type.INT64, unit="us", utc=aware.pop())
    if all(issubclass(t, dt.date) and not issubclass(t, dt.datetime) for t in types):
        return LogicalInfo("date", Type.INT32)
    if all(issubclass(t, dt.time) for t in types):
        return LogicalInfo("time", Type.INT64, unit="us")
    if all(issubclass(t, uuid.UUID) for t in types):
        return LogicalInfo("uuid", Type.FIXED_LEN_BYTE_ARRAY, type_length=16)
    shown = sorted(t.__name__ for t in types)
    raise SchemaError(f"cannot infer a Parquet type for column {name!r} holding {', '.join(shown)} values")


def infer_elements(name: str, values: Any) -> Elements:
    """An optional field's schema subtree inferred from its values."""
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        info = _numpy_info(values.dtype)
        if info is None:
            raise SchemaError(f"column {name!r}: numpy dtype {values.dtype} has no Parquet equivalent")
        return leaf_elements(name, info)
    present = [v for v in values if v is not None]
    if not present:
        return leaf_elements(name, LogicalInfo("null", Type.INT32))
    if all(isinstance(v, (list, tuple, np.ndarray)) for v in present):
        items = [item for v in present for item in v]
        return list_(name, infer_elements("element", items))
    if all(isinstance(v, Mapping) for v in present):
        keys: dict[str, None] = {}
        for v in present:
            keys.update(dict.fromkeys(v))
        children = [infer_elements(str(k), [None if v is None else v.get(k) for v in values]) for k in keys]
        if not children:
            raise SchemaError(f"column {name!r}: a struct needs at least one field")
        return group(name, children)
    return leaf_elements(name, _scalar_info(name, present))


# ---------------------------------------------------------------- values -> arrays


def _validity(values: Sequence) -> np.ndarray | None:
    valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    return None if valid.all() else valid


def _offsets(values: Sequence, validity: np.ndarray | None) -> np.ndarray:
    lengths = np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _leaf_array(field: Field, values: Any) -> Array:
    info = logical_info(field.node.element)
    if isinstance(values, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(values)
        data = np.asarray(values.filled(values.dtype.type(0)) if values.dtype.kind not in "US" else values.data)
        if data.dtype.kind in "biufmM":
            return from_logical(PrimitiveArray.of(data, mask.__invert__() if mask.any() else None), info)
        values = [None if m else v for v, m in zip(data.tolist(), mask.tolist(), strict=True)]
    if isinstance(values, np.ndarray) and values.dtype.kind in "mM":
        nat = np.isnat(values)
        if nat.any():
            values = np.where(nat, np.zeros((), values.dtype), values)
            return from_logical(PrimitiveArray.of(values, ~nat), info)
    if isinstance(values, np.ndarray) and values.dtype.kind in "US":
        values = values.tolist()
    return values_from_pylist(values, info)


def array_from_values(field: Field, values: Any) -> Array:
    """The Arrow-layout array of a field from Python values (or a numpy array for a leaf)."""
    if field.kind == PRIMITIVE:
        return _leaf_array(field, values)
    values = list(values) if not isinstance(values, list) else values
    validity = _validity(values)
    n = len(values)
    if field.kind == STRUCT:
        for v in values:
            if v is not None and not isinstance(v, Mapping):
                raise SchemaError(f"struct field {field.name!r} holds {type(v).__name__} value {v!r}, not a dict")
        children = {c.name: array_from_values(c, [None if v is None else v.get(c.name) for v in values])
                    for c in field.children}
        return StructArray(n, children, validity=validity)
    if field.kind == LIST:
        offsets = _offsets(values, validity)
        items = [item for v in values if v is not None for item in v]
        return ListArray.of(offsets, array_from_values(field.element, items), validity)
    if field.kind == MAP:
        entries = [None if v is None else list(v.items()) if isinstance(v, Mapping) else list(v) for v in values]
        offsets = _offsets(entries, validity)
        pairs = [pair for e in entries if e is not None for pair in e]
        keys = array_from_values(field.key, [p[0] for p in pairs])
        items = None if field.value is None else array_from_values(field.value, [p[1] for p in pairs])
        return MapArray.of(offsets, keys, items, validity)
    raise SchemaError(f"field {field.name!r} of unknown kind {field.kind}")


# ---------------------------------------------------------------- entry points


def from_pydict(data: Mapping[str, Any], schema: Schema | None = None) -> Table:
    """A table from columns: lists of Python values or numpy arrays."""
    if schema is None:
        schema = Schema.from_fields([infer_elements(str(name), values) for name, values in data.items()])
    missing = [f.name for f in schema.fields if f.name not in data]
    if missing:
        raise SchemaError(f"no data for columns {missing}")
    arrays = {f.name: array_from_values(f, data[f.name]) for f in schema.fields}
    return Table(schema, arrays)


def from_pylist(rows: Sequence[Mapping[str, Any]], schema: Schema | None = None) -> Table:
    """A table from row dicts; a key missing in a row is null."""
    names: dict[str, None] = {}
    if schema is not None:
        names = dict.fromkeys(f.name for f in schema.fields)
    else:
        for row in rows:
            names.update(dict.fromkeys(row))
    return from_pydict({name: [row.get(name) for row in rows] for name in names}, schema)


def from_arrow(table: Any, schema: Schema | None = None) -> Table:
    """A table from a pyarrow Table or RecordBatch, typed as pyarrow.parquet writes it."""
    import pyarrow as pa

    from parquet_codec.arrow_adapter import from_arrow as convert

    metadata, origin = _arrow_origin(table.schema)
    if schema is not None:
        converted = from_pydict(table.to_pydict(), schema)
        return Table(converted.schema, {c.name: c.array for c in converted}, converted.num_rows,
                     metadata=metadata, origin=origin)
    arrays, subtrees, dictionaries = {}, [], {}
    for i, arrow_field in enumerate(table.schema):
        column = table.column(i)
        array, field = convert(column, field=arrow_field)
        arrays[arrow_field.name] = array
        subtrees.append(_arrow_elements(field))
        if pa.types.is_dictionary(arrow_field.type):
            # The entries of a dictionary array (a pandas categorical's categories), in
            # order: the writer lays them out as the column's dictionary, as pyarrow does.
            chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
            dictionaries[arrow_field.name] = [convert(chunk.dictionary)[0] for chunk in chunks]
    return Table(Schema.from_fields(subtrees), arrays, table.num_rows, metadata=metadata, origin=origin,
                 dictionaries=dictionaries)


def _arrow_origin(schema: Any) -> tuple[dict[str, str], dict[str, ArrowField]]:
    """A pyarrow schema's metadata, and its fields as the ARROW:schema a writer stores."""
    import pyarrow as pa

    metadata = {key_value_text(k): key_value_text(v) for k, v in (schema.metadata or {}).items()}
    fields = [f.with_type(_storable_type(pa, f.type)) for f in schema]
    stored = decode_schema(pa.schema(fields).serialize().to_pybytes())
    return metadata, {f.name: f for f in stored.fields}


def _storable_type(pa: Any, typ: Any) -> Any:
    """``typ`` with every dictionary of an extension type (a pandas categorical of
    intervals, say) stored as that extension type: Arrow IPC cannot tell such a
    field from an extension over a dictionary, which is what readers would build
    from it, and mostly cannot (pyarrow does not open the file)."""
    from parquet_codec.arrow_adapter import map_leaves

    def storable(leaf: Any) -> Any:
        if not pa.types.is_dictionary(leaf):
            return leaf
        value = map_leaves(pa, leaf.value_type, storable)
        if isinstance(value, pa.BaseExtensionType):
            return value
        return pa.dictionary(leaf.index_type, value, leaf.ordered)

    return map_leaves(pa, typ, storable)


def from_pandas(df: Any, schema: Any = None, preserve_index: bool | None = None) -> Table:
    """A table from a pandas DataFrame, converted as pyarrow converts it:
    ``preserve_index`` (pyarrow's) None keeps a RangeIndex in the pandas
    metadata only and any other index as columns, True always as columns,
    False not at all. ``schema``: a Parquet :class:`Schema` the columns are
    converted to, or a pyarrow Schema, which types them (and picks the index
    columns) as in ``pyarrow.Table.from_pandas``. Without pyarrow the index
    is not kept."""
    try:
        import pyarrow as pa
    except ImportError:
        return from_pydict({str(c): _pandas_column(df[c]) for c in df.columns}, schema)
    if isinstance(schema, pa.Schema):
        return from_arrow(pa.Table.from_pandas(df, schema=schema, preserve_index=preserve_index))
    if schema is not None and preserve_index is None:
        preserve_index = False  # the columns are the schema's
    return from_arrow(pa.Table.from_pandas(df, preserve_index=preserve_index), schema)


def _pandas_column(series: Any) -> Any:
    values = series.to_numpy()
    if values.dtype.kind == "O":
        return [None if v is None or (isinstance(v, float) and v != v) else v for v in values.tolist()]
    return values


def to_table(data: Any, schema: Schema | None = None) -> Table:
    """Any supported input as a Table (converted to ``schema`` when given)."""
    if isinstance(data, Table):
        if schema is not None and data.schema != schema:
            return from_pydict(data.to_pydict(), schema)
        return data
    module = type(data).__module__ or ""
    if module.startswith("pyarrow"):
        return from_arrow(data, schema)
    if module.startswith("pandas"):
        return from_pandas(data, schema)
    if isinstance(data, Mapping):
        return from_pydict(data, schema)
    if isinstance(data, Sequence) and all(isinstance(row, Mapping) for row in data):
        return from_pylist(data, schema)
    raise SchemaError(f"cannot build a table from {type(data).__name__}")


__all__ = ["array_from_values", "from_arrow", "from_pandas", "from_pydict", "from_pylist", "infer_elements",
           "leaf_elements", "to_table"]
