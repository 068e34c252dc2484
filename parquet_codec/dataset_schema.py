"""Files of different schemas read as one table, in the first file's schema.

As ``pyarrow.parquet.read_table`` reads a folder: the first file in path
order gives the schema. A column a later file lacks is null in its rows; a
column only later files have is dropped; a column of another type is cast to
the first file's type where pyarrow's safe cast would succeed: integers of
any width and sign, floating point and timestamp units (each value checked,
as pyarrow checks it: no overflow, no lost fraction or digits), string and
binary (UTF-8 checked), structs field by field (matched by name: fields the
target lacks left out, fields it adds null), lists and maps element by
element. Any other difference, and a value the cast would change, is a
:class:`SchemaError` naming the file and the column. A schema given
(pyarrow's ``schema=``) takes the first file's place. A column the first
file declares required becomes optional when another file leaves it null.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, ListArray, MapArray, PrimitiveArray, StructArray
from parquet_codec.dataset_partitions import file_filter, null_matches
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import FieldRepetitionType, SchemaElement
from parquet_codec.format.ttypes import Type as T
from parquet_codec.io import Source
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.predicate import Filter, bind
from parquet_codec.reader import ParquetFile, read_open
from parquet_codec.scan import with_column_values
from parquet_codec.schema import Schema
from parquet_codec.table import Table
from parquet_codec.types import LogicalInfo, logical_info

_PHYSICAL = {T.BOOLEAN: np.bool_, T.INT32: np.int32, T.INT64: np.int64, T.FLOAT: np.float32, T.DOUBLE: np.float64}
_UNITS = {"ms": 10**3, "us": 10**6, "ns": 10**9}


def head(column: str, names: Sequence[str]) -> str:
    """The top-level column a selected or filtered ``column`` lies in ("s.a" in "s")."""
    return column if column in names else column.split(".", 1)[0]


def _file_options(options: dict) -> tuple[dict, bool]:
    """:class:`ParquetFile`'s options, and ``use_pandas_metadata``."""
    rest = {k: v for k, v in options.items() if k not in ("use_threads", "use_pandas_metadata")}
    return rest, bool(options.get("use_pandas_metadata", False))


def source_name(source: Source) -> str:
    """How messages name a file: its path, or a file object's name."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<buffer>"))


def schema_template(schema: object) -> Table:
    """A table of no rows in ``schema`` (a pyarrow Schema), typed as this
    package reads the columns pyarrow writes in it."""
    if not hasattr(schema, "empty_table"):
        raise TypeError(f"schema must be a pyarrow Schema, not {type(schema).__name__}")
    from parquet_codec.convert import from_arrow

    return from_arrow(schema.empty_table())


def file_arrow_schema(path: Source, options: dict) -> object:
    """The file's Arrow schema, as pyarrow.parquet.read_schema gives it."""
    with ParquetFile(path, **_file_options(options)[0]) as pf:
        return pf.schema_arrow


def top_level_names(path: str, options: dict) -> list[str]:
    """The names of the file's top-level columns."""
    with ParquetFile(path, **_file_options(options)[0]) as pf:
        return [f.name for f in pf.schema.fields]


def first_file(path: str, columns: Sequence[str] | None, filt: Filter | None, options: dict) -> Table:
    """The first file's columns (``columns``, as read_table selects them), no
    rows: the dataset's schema. Raises :class:`SchemaError`, as pyarrow does,
    for a selected or filtered column the first file does not have, and for a
    predicate whose value its column cannot be compared with (``filt``: the
    predicates not on partition keys), whichever files the filter prunes."""
    file_options, pandas_index = _file_options(options)
    with ParquetFile(path, **file_options) as pf:
        names = [f.name for f in pf.schema.fields]
        for column in [*(columns or ()), *(filt.columns if filt else ())]:
            if head(column, names) not in names:
                raise SchemaError(f"column {column!r} is not in the dataset's schema, which is the first file's "
                                  f"({path}); its columns are {names}")
        return read_open(pf, columns, filt, use_pandas_metadata=pandas_index, row_groups=[])


def check_predicates(filt: Filter | None, template: Table) -> None:
    """Raise :class:`SchemaError` for a predicate whose value ``template``'s
    column cannot be compared with (a time span with a duration column, a
    date with a timestamp one compare, as in a file's filter)."""
    if filt is not None:
        bind(with_column_values(filt, template.origin, template.schema), template.schema)


def read_file(path: Source, template: Table, columns: Sequence[str] | None, filt: Filter | None,
              options: dict, reference: str) -> Table | None:
    """One file's rows in the dataset's schema (``template``: the first
    file's, or one given; ``reference`` names it in messages); None when
    ``filt`` rules them all out. Predicates on columns the file lacks are
    decided as on nulls."""
    file_options, pandas_index = _file_options(options)
    with ParquetFile(path, **file_options) as pf:
        names = [f.name for f in pf.schema.fields]
        if columns is None and names != template.column_names:
            columns = [n for n in template.column_names if n in names]
        elif columns is not None:
            columns = [c for c in columns if head(c, names) in names]
        absent = {c: null_matches for c in (filt.columns if filt else ()) if head(c, names) not in names}
        keep, filt = file_filter(filt, absent) if absent else (True, filt)
        if not keep:
            return None
        table = read_open(pf, columns, filt, use_pandas_metadata=pandas_index)
    return conform(table, template, source_name(path), reference)


# ---------------------------------------------------------------- conforming


def conform(table: Table, template: Table, path: str, reference: str) -> Table:
    """``table`` (read from ``path``) in ``template``'s schema (which
    ``reference`` names in messages): its columns in the template's order,
    missing ones null, others cast."""
    if table.schema == template.schema and table.origin == template.origin:
        return table
    mine = {c.name: c for c in table.columns}
    arrays, dictionaries = {}, {}
    for target in template.columns:
        column = mine.get(target.name)
        if column is None:
            arrays[target.name] = null_array(target.field, table.num_rows)
        elif _signature(column.field) == _signature(target.field):
            arrays[target.name] = column.array
            if column.dictionaries:
                dictionaries[target.name] = column.dictionaries
        else:
            arrays[target.name] = _cast(column.array, column.field, target.field, target.name, path, reference)
    return Table(template.schema, arrays, table.num_rows, metadata=template.metadata, origin=template.origin,
                 read_options=table.read_options, dictionaries=dictionaries)


def nullable_where_null(tables: list[Table]) -> list[Table]:
    """The conformed ``tables`` with each required top-level column another
    file left null made optional."""
    schema = tables[0].schema
    required = {f.name for f in schema.fields if not f.nullable}
    nulls = {c.name for t in tables for c in t.columns if c.name in required and c.array.null_count}
    if not nulls:
        return tables
    elements = [_optional(e) if i and e.name in nulls and _is_top(schema, e) else e
                for i, e in enumerate(schema.to_elements())]
    widened = Schema.from_elements(elements)
    return [Table(widened, {c.name: c.array for c in t.columns}, t.num_rows, metadata=t.metadata, origin=t.origin,
                  read_options=t.read_options, dictionaries=t.dictionaries) for t in tables]


def _is_top(schema: Schema, element: SchemaElement) -> bool:
    return any(child.element is element for child in schema.root.children)


def _optional(element: SchemaElement) -> SchemaElement:
    fields = {k: getattr(element, k) for k in SchemaElement.__slots__}
    fields["repetition_type"] = FieldRepetitionType.OPTIONAL
    return SchemaElement(**fields)


def _signature(field: Field) -> tuple:
    """What decides a column's values and layout: the same signature, the same arrays."""
    if field.kind == PRIMITIVE:
        return PRIMITIVE, logical_info(field.node.element)
    names = tuple(c.name for c in field.children) if field.kind == STRUCT else ()
    return field.kind, names, tuple(_signature(c) for c in field.children)


def null_array(field: Field, rows: int) -> Array:
    """``rows`` nulls in ``field``'s layout."""
    missing = np.zeros(rows, dtype=bool)
    offsets = np.zeros(rows + 1, dtype=np.int64)
    if field.kind == STRUCT:
        return StructArray(rows, {c.name: null_array(c, rows) for c in field.children}, validity=missing)
    if field.kind == LIST:
        return ListArray.of(offsets, null_array(field.children[0], 0), missing)
    if field.kind == MAP:
        items = null_array(field.children[1], 0) if len(field.children) > 1 else None
        return MapArray.of(offsets, null_array(field.children[0], 0), items, missing)
    element = field.node.element
    if element.type == T.BYTE_ARRAY:
        return BinaryArray.of(offsets, np.zeros(0, dtype=np.uint8), missing)
    if element.type in (T.FIXED_LEN_BYTE_ARRAY, T.INT96):
        width = 12 if element.type == T.INT96 else element.type_length
        return PrimitiveArray.of(np.zeros((rows, width), dtype=np.uint8), missing)
    return PrimitiveArray.of(np.zeros(rows, dtype=_PHYSICAL[element.type]), missing)


# ---------------------------------------------------------------- casts


def type_name(field: Field) -> str:
    """The column's type as pyarrow names it, for messages."""
    if field.kind != PRIMITIVE:
        return field.type_string()
    info = logical_info(field.node.element)
    if info.kind == "int":
        return f"{'' if info.signed else 'u'}int{info.bit_width}"
    if info.kind == "float":
        return {16: "halffloat", 32: "float", 64: "double"}[info.bit_width]
    if info.kind == "timestamp":
        return f"timestamp[{info.unit}{', UTC' if info.utc else ''}]"
    return info.kind


def _cast(array: Array, source: Field, target: Field, column: str, path: str, reference: str) -> Array:
    """``array`` (of ``column``, a dotted path, in the file at ``path``) of
    ``source``'s type as ``target``'s, each value checked (as it is, where the
    two are the same)."""
    def refuse(reason: str) -> SchemaError:
        return SchemaError(f"column {column!r} of {path} is {type_name(source)} where {reference} is "
                           f"{type_name(target)}: {reason}")

    if _signature(source) == _signature(target):
        return array
    if source.kind == STRUCT and target.kind == STRUCT and isinstance(array, StructArray):
        return _cast_struct(array, source, target, column, path, reference)
    if source.kind == target.kind and isinstance(array, (ListArray, MapArray)):
        return _cast_entries(array, source, target, column, path, reference)
    if source.kind != PRIMITIVE or target.kind != PRIMITIVE:
        raise refuse("nested columns of different types are not cast")
    src, dst = logical_info(source.node.element), logical_info(target.node.element)
    if {src.kind, dst.kind} <= {"string", "binary"}:
        if dst.kind == "string":
            _check_utf8(array, refuse)
        return array
    if src.kind == "timestamp" and dst.kind == "timestamp":
        return _with_values(array, _rescaled(array, _UNITS[dst.unit], _UNITS[src.unit], refuse))
    numbers = ("int", "float")
    if src.kind not in numbers or dst.kind not in numbers or _half_float(src) or _half_float(dst):
        raise refuse("this cast is not supported")
    values, valid = _logical(array.values, src), array.is_valid()
    present = values[valid]
    if dst.kind == "int":
        lo, hi = (-(2 ** (dst.bit_width - 1)), 2 ** (dst.bit_width - 1) - 1) if dst.signed else (0, 2**dst.bit_width - 1)
        if src.kind == "float":
            bad = present[~np.isfinite(present) | (np.floor(present) != present)]
            if len(bad):
                raise refuse(f"value {bad[0]} would lose its fraction")
    else:
        digits = 2 ** (24 if dst.bit_width == 32 else 53)
        lo, hi = (-digits, digits) if src.kind == "int" else (None, None)  # floats narrow as pyarrow: unchecked
    if lo is not None and len(present):
        for extreme in (present.min(), present.max()):
            if not lo <= int(extreme) <= hi:
                raise refuse(f"value {extreme} is not in range {lo} to {hi}")
    logical = np.dtype(f"{'u' if dst.kind == 'int' and not dst.signed else ''}"
                       f"{'int' if dst.kind == 'int' else 'float'}{dst.bit_width}")
    with np.errstate(over="ignore"):  # a double beyond float's range is inf, as pyarrow casts it
        converted = np.where(valid, values, 0).astype(logical)
    physical = _PHYSICAL[dst.physical_type]
    if converted.dtype.itemsize == np.dtype(physical).itemsize:
        converted = converted.view(physical)
    return _with_values(array, converted.astype(physical))


def _cast_struct(array: StructArray, source: Field, target: Field, column: str, path: str, reference: str
                 ) -> StructArray:
    """A struct as one of ``target``'s fields, matched by name, as Arrow casts
    structs: fields it lacks left out, fields it adds null, each cast."""
    mine = {child.name: child for child in source.children}
    children = {}
    for child in target.children:
        field = mine.get(child.name)
        children[child.name] = null_array(child, len(array)) if field is None else _cast(
            array.children[child.name], field, child, f"{column}.{child.name}", path, reference)
    return StructArray(len(array), children, validity=array.validity)


def _cast_entries(array: ListArray | MapArray, source: Field, target: Field, column: str, path: str,
                  reference: str) -> ListArray | MapArray:
    """A list's elements, or a map's keys and values, each cast (the offsets kept)."""
    def cast(child: Array | None, i: int) -> Array | None:
        if child is None or i >= len(target.children) or i >= len(source.children):
            return child
        src, dst = source.children[i], target.children[i]
        return _cast(child, src, dst, f"{column}.{dst.name}", path, reference)

    if isinstance(array, ListArray):
        return ListArray.of(array.offsets, cast(array.values, 0), array.validity)
    if (array.items is None) != (len(target.children) < 2):
        raise SchemaError(f"column {column!r} of {path} is a map {'without' if array.items is None else 'with'} "
                          f"values where {reference} is not")
    return MapArray.of(array.offsets, cast(array.keys, 0), cast(array.items, 1), array.validity)


def _half_float(info: LogicalInfo) -> bool:
    return info.kind == "float" and info.bit_width == 16


def _logical(values: np.ndarray, info: LogicalInfo) -> np.ndarray:
    """Physical values as the logical ones (unsigned integers are stored as signed)."""
    if info.kind == "int" and not info.signed:
        return values.view(np.uint32 if values.dtype == np.int32 else np.uint64)
    return values


def _rescaled(array: PrimitiveArray, to: int, frm: int, refuse: Callable[[str], SchemaError]) -> np.ndarray:
    values = np.where(array.is_valid(), array.values, 0)
    if to >= frm:
        factor = to // frm
        if len(values) and max(abs(int(values.min())), abs(int(values.max()))) * factor >= 2**63:
            raise refuse("a value would overflow")
        return values * factor
    factor = frm // to
    if np.any(values % factor):
        raise refuse(f"value {values[values % factor != 0][0]} would lose data")
    return values // factor


def _check_utf8(array: BinaryArray, refuse: Callable[[str], SchemaError]) -> None:
    data = bytes(array.data[array.offsets[0]:array.offsets[-1]]) if len(array) else b""
    starts = array.offsets[:-1] - array.offsets[0]
    inner = starts[(starts > 0) & (starts < len(data))]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise refuse("a value is not UTF-8") from None
    if len(inner) and np.any((np.frombuffer(data, np.uint8)[inner] & 0xC0) == 0x80):
        raise refuse("a value is not UTF-8")


def _with_values(array: PrimitiveArray, values: np.ndarray) -> PrimitiveArray:
    return dataclasses.replace(array, values=values)
