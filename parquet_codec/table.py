"""Tables: named top-level columns in Arrow layout, with their Parquet schema.

A :class:`Table` holds one :class:`~parquet_codec.arrays.Array` per top-level
field of its :class:`~parquet_codec.schema.Schema`. Conversion to Python
objects (``to_pylist``) follows pyarrow's conventions; ``to_arrow`` shares
the numpy buffers with pyarrow wherever Arrow's layout allows.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from parquet_codec.arrays import Array, concat, take_range
from parquet_codec.arrow_origin import (
    child_origins,
    dictionary_array,
    foreign_extension,
    leaf_to_pylist,
    projected_origin,
    pyarrow_fields,
    restore_array,
    restored_type,
    with_stored_metadata,
)
from parquet_codec.arrow_read import DEFAULT as DEFAULT_READ
from parquet_codec.arrow_read import ArrowReadOptions, read_type, undictionaried
from parquet_codec.arrow_schema import ArrowField
from parquet_codec.errors import ParquetError, SchemaError, UnsupportedError
from parquet_codec.format.ttypes import SchemaElement
from parquet_codec.levels import merged_dictionaries
from parquet_codec.metadata import key_value_bytes
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.schema import OPTIONAL, REQUIRED, Schema, SchemaNode, repeated_name
from parquet_codec.types import LogicalInfo, logical_info

# Per field while it lives: a table's fields are shared by its slices and
# batches, and an lru_cache would keep up to its size of schemas alive.
_INFOS: weakref.WeakKeyDictionary[Field, LogicalInfo] = weakref.WeakKeyDictionary()


def _info(field: Field) -> LogicalInfo:
    info = _INFOS.get(field)
    if info is None:
        info = _INFOS[field] = logical_info(field.node.element)
    return info


class Column:
    """One top-level column: its field (shape and types), its data, and the
    Arrow field it was written from when the file stored one (arrow_origin.py)."""

    def __init__(self, field: Field, array: Array, origin: ArrowField | None = None,
                 options: ArrowReadOptions = DEFAULT_READ, dictionaries: list[Array] | None = None) -> None:
        """``dictionaries``: the dictionary pages of the chunks the values were
        read from, for a column that reads as an Arrow dictionary."""
        self.field = field
        self.array = array
        self.origin = origin
        self.options = options
        self.dictionaries = dictionaries or []

    @property
    def name(self) -> str:
        return self.field.name

    def __len__(self) -> int:
        return len(self.array)

    @property
    def null_count(self) -> int:
        return self.array.null_count

    def to_pylist(self) -> list:
        if foreign_extension(self.origin):  # its scalars convert as the extension says, through pyarrow
            try:
                return self.to_arrow().to_pylist()
            except (UnsupportedError, ValueError):  # no pyarrow, or values it cannot convert: the path below
                pass
        try:
            return array_to_pylist(self.field, self.array, self.origin, self.options.int96_unit)
        except ParquetError as exc:
            exc.add_context(column=self.name)
            raise

    def to_arrow(self) -> Any:
        return self._to_arrow(None if self.origin is None else pyarrow_fields([self.origin])[0])

    def _to_arrow(self, origin: Any) -> Any:
        """The pyarrow array and field; ``origin``: the stored field as a pyarrow field."""
        try:
            array = array_to_arrow(self.field, self.array, self.options.int96_unit)
        except ParquetError as exc:
            exc.add_context(column=self.name)
            raise
        target = read_type(array.type, self.field, self.options)  # the reading options first, as pyarrow
        if origin is not None:
            target = undictionaried(restored_type(target, origin.type), self.options)
        if self.dictionaries and _is_dictionary(target):
            pages = [array_to_arrow(self.field, d, self.options.int96_unit) for d in self.dictionaries]
            return dictionary_array(array, target, pages)
        return restore_array(array, target)

    def __repr__(self) -> str:
        return f"<Column {self.name!r}: {self.field.type_string()}, {len(self)} rows>"


def _is_dictionary(typ: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_dictionary(typ)


def array_to_pylist(field: Field, array: Array, origin: ArrowField | None = None, int96_unit: str | None = None,
                    *, leaf: Callable[..., list] = leaf_to_pylist) -> list:
    """Python values of ``array`` (shaped as ``field``), as pyarrow's to_pylist gives
    them; ``origin``: the Arrow field stored for it (its durations and time zones);
    ``int96_unit``: the unit INT96 timestamps are coerced to (arrow_read.py);
    ``leaf``: what turns a leaf's values into Python values (leaf_to_pylist's
    arguments), for callers that show some values otherwise."""
    if field.kind == PRIMITIVE:
        return leaf(array, _info(field), origin, int96_unit)
    valid = array.is_valid().tolist()
    origins = child_origins(field, origin)
    if field.kind == STRUCT:
        names = [child.name for child in field.children]
        columns = [array_to_pylist(child, array.children[child.name], o, int96_unit, leaf=leaf)
                   for child, o in zip(field.children, origins, strict=True)]
        return [dict(zip(names, values, strict=True)) if ok else None
                for ok, *values in zip(valid, *columns, strict=True)]
    offsets = array.offsets.tolist()
    if field.kind == LIST:
        items = array_to_pylist(field.element, array.values, origins[0], int96_unit, leaf=leaf)
        return [items[offsets[i] : offsets[i + 1]] if valid[i] else None for i in range(len(array))]
    keys = array_to_pylist(field.key, array.keys, origins[0], int96_unit, leaf=leaf)
    if array.items is None:  # a map without values reads as a list of its keys
        return [keys[offsets[i] : offsets[i + 1]] if valid[i] else None for i in range(len(array))]
    items = array_to_pylist(field.value, array.items, origins[1], int96_unit, leaf=leaf)
    pairs = list(zip(keys, items, strict=True))
    return [pairs[offsets[i] : offsets[i + 1]] if valid[i] else None for i in range(len(array))]


def array_to_arrow(field: Field, array: Array, int96_unit: str | None = None) -> Any:
    """``array`` as a pyarrow Array of the type pyarrow.parquet reads the field as
    (INT96 timestamps in ``int96_unit`` when given)."""
    from parquet_codec.arrow_adapter import ArrowChild, leaf_to_arrow, nested_to_arrow

    if field.kind == PRIMITIVE:
        info = _info(field)
        if info.kind == "int96" and int96_unit is not None:
            return leaf_to_arrow(array, info, int96_unit=int96_unit)
        if info.kind == "int96":
            # pyarrow's timestamp[ns], unless a value lies beyond 64-bit nanoseconds
            # (Spark writes such values): then exact microseconds, never wrapped.
            try:
                return leaf_to_arrow(array, info, int96_unit="ns")
            except UnsupportedError:
                return leaf_to_arrow(array, info, int96_unit="us")
        return leaf_to_arrow(array, info)
    children = {LIST: lambda: {"element": field.element}, MAP: lambda: {"key": field.key, "value": field.value},
                STRUCT: lambda: {c.name: c for c in field.children}}[field.kind]()

    def convert(child: Array, role: str) -> ArrowChild:
        sub = children[role]
        return ArrowChild(array_to_arrow(sub, child, int96_unit), sub.nullable, sub.name if field.kind in (STRUCT, LIST) else None,
                          sub.node.field_id)

    return nested_to_arrow(array, convert)


class Table:
    """Columns of equal length, one per top-level field of ``schema``."""

    def __init__(self, schema: Schema, arrays: dict[str, Array], num_rows: int | None = None, *,
                 metadata: Mapping[str, str] | None = None, origin: Mapping[str, ArrowField] | None = None,
                 read_options: ArrowReadOptions = DEFAULT_READ,
                 dictionaries: Mapping[str, list[Array]] | None = None) -> None:
        """``metadata``: the table's key-value metadata (pyarrow's schema metadata);
        ``origin``: per column name, the Arrow field it was written from (arrow_origin.py);
        ``read_options``: pyarrow's reading options that shape its Arrow types (arrow_read.py);
        ``dictionaries``: per column name, the dictionary pages it was read from (see Column)."""
        fields = schema.fields
        names = [f.name for f in fields]
        repeated = repeated_name(names)
        if repeated:
            raise UnsupportedError(f"{repeated[1]} top-level columns are named {repeated[0]!r}: "
                                   f"a Table's column names must be distinct")
        if names != list(arrays):
            raise SchemaError(f"columns {list(arrays)} do not match the schema's fields {[f.name for f in fields]}")
        lengths = {len(a) for a in arrays.values()}
        if num_rows is None:
            num_rows = lengths.pop() if lengths else 0
        if lengths - {num_rows}:
            raise SchemaError(f"columns have {sorted(lengths)} rows, expected {num_rows}")
        self.schema = schema
        origin, dictionaries = origin or {}, dictionaries or {}
        self._columns = [Column(f, arrays[f.name], projected_origin(f, origin.get(f.name)), read_options,
                                dictionaries.get(f.name)) for f in fields]
        self.num_rows = num_rows
        self.metadata: dict[str, str] = dict(metadata or {})
        self.read_options = read_options

    @property
    def origin(self) -> dict[str, ArrowField]:
        """The stored Arrow field of each column that has one."""
        return {c.name: c.origin for c in self._columns if c.origin is not None}

    @property
    def dictionaries(self) -> dict[str, list[Array]]:
        """The dictionary pages of each column that reads as an Arrow dictionary."""
        return {c.name: c.dictionaries for c in self._columns if c.dictionaries}

    def _like(self, schema: Schema, arrays: dict[str, Array], num_rows: int,
              dictionaries: Mapping[str, list[Array]] | None = None) -> Table:
        """A table of ``arrays`` with this one's metadata, columns' origins and dictionaries."""
        return Table(schema, arrays, num_rows, metadata=self.metadata, origin=self.origin,
                     read_options=self.read_options,
                     dictionaries=self.dictionaries if dictionaries is None else dictionaries)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self._columns]

    @property
    def columns(self) -> list[Column]:
        return list(self._columns)

    @property
    def num_columns(self) -> int:
        return len(self._columns)

    def column(self, key: str | int) -> Column:
        if isinstance(key, int):
            return self._columns[key]
        for column in self._columns:
            if column.name == key:
                return column
        raise KeyError(f"no column {key!r}; columns are {self.column_names}")

    def __getitem__(self, key: str | int) -> Column:
        return self.column(key)

    def __len__(self) -> int:
        return self.num_rows

    def __iter__(self) -> Iterator[Column]:
        return iter(self._columns)

    def to_pydict(self) -> dict[str, list]:
        return {c.name: c.to_pylist() for c in self._columns}

    def to_pylist(self) -> list[dict]:
        names = self.column_names
        columns = [c.to_pylist() for c in self._columns]
        return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)] if names else [
            {} for _ in range(self.num_rows)]

    def to_arrow(self) -> Any:
        """A pyarrow Table, typed as pyarrow.parquet reads the file (the stored
        Arrow schema applied), with the table's metadata as schema metadata."""
        import pyarrow as pa

        from parquet_codec.arrow_adapter import ArrowChild, arrow_field

        stored = [c for c in self._columns if c.origin is not None]
        origins = dict(zip([c.name for c in stored], pyarrow_fields([c.origin for c in stored]), strict=True))
        fields, arrays = [], []
        for column in self._columns:
            origin = origins.get(column.name)
            array = column._to_arrow(origin)
            field = arrow_field(pa, ArrowChild(array, column.field.nullable, column.name, column.field.node.field_id),
                                column.name)
            fields.append(field if origin is None else with_stored_metadata(field, origin))
            arrays.append(array)
        metadata = {key_value_bytes(k): key_value_bytes(v) for k, v in self.metadata.items()} or None
        schema = pa.schema(fields, metadata=metadata)
        if not arrays:  # no column to carry the row count: a batch of empty structs does
            rows = pa.RecordBatch.from_struct_array(pa.nulls(self.num_rows, pa.struct([])))
            return pa.Table.from_batches([rows], schema=schema)
        return pa.Table.from_arrays(arrays, schema=schema)

    def to_pandas(self, **kwargs: Any) -> Any:
        """A pandas DataFrame (through pyarrow, as pyarrow.parquet converts)."""
        return self.to_arrow().to_pandas(**kwargs)

    def select(self, names: list[str]) -> Table:
        """The named columns in the given order. A dotted name ("a.b") reaching
        through structs becomes a column of its own named after its last part,
        null where any enclosing struct is null (as ``pyarrow.parquet.read_table``
        selects nested fields)."""
        picked: dict[str, tuple[SchemaNode, Array, bool]] = {}
        origin: dict[str, ArrowField] = {}
        for name in names:
            node, array, nullable, stored = self._resolve(name)
            if node.name in picked:
                raise SchemaError(f"selection names column {node.name!r} twice")
            picked[node.name] = (node, array, nullable)
            if stored is not None:
                origin[node.name] = stored
        elements = [self.schema.root.element]
        for node, _, nullable in picked.values():
            subtree = _subtree_elements(node)
            if nullable and subtree[0].repetition_type == REQUIRED:
                subtree[0] = _copy_element(subtree[0], repetition_type=OPTIONAL)
            elements.extend(subtree)
        elements[0] = _copy_element(elements[0], num_children=len(picked))
        arrays = {name: array for name, (_, array, _) in picked.items()}
        return Table(Schema.from_elements(elements), arrays, self.num_rows, metadata=self.metadata, origin=origin,
                     read_options=self.read_options, dictionaries=self.dictionaries)

    def _resolve(self, name: str) -> tuple[SchemaNode, Array, bool, ArrowField | None]:
        """The node, array, nullability and stored Arrow field of a column or of
        a field reached through structs by a dotted name."""
        if name in self.column_names:
            column = self.column(name)
            return column.field.node, column.array, column.field.nullable, column.origin
        head, *rest = name.split(".")
        if head not in self.column_names or not rest:
            raise SchemaError(f"no column {name!r}; columns are {self.column_names}")
        column = self.column(head)
        field, array, nullable, stored = column.field, column.array, column.field.nullable, column.origin
        for part in rest:
            child = next((c for c in field.children if c.name == part), None) if field.kind == STRUCT else None
            if child is None:
                raise SchemaError(f"{name!r} does not name a field reachable through structs")
            valid = array.validity
            array = array.children[part]
            if valid is not None:  # a null struct makes its fields null
                array = _with_validity(array, valid & array.is_valid())
            stored = child_origins(field, stored)[field.children.index(child)]
            field, nullable = child, nullable or child.nullable
        return field.node, array, nullable, stored

    def slice(self, offset: int, length: int | None = None) -> Table:
        stop = self.num_rows if length is None else min(self.num_rows, offset + length)
        arrays = {c.name: take_range(c.array, offset, stop) for c in self._columns}
        return self._like(self.schema, arrays, max(stop - offset, 0))

    @staticmethod
    def concat(tables: list[Table]) -> Table:
        """Tables of one schema joined row-wise."""
        if not tables:
            raise ValueError("concat needs at least one table")
        first = tables[0]
        if any(t.schema != first.schema for t in tables[1:]):
            raise SchemaError("cannot concatenate tables with different schemas")
        arrays = {c.name: concat([t.column(i).array for t in tables]) for i, c in enumerate(first._columns)}
        dictionaries = {c.name: merged_dictionaries([(t.column(i).dictionaries, t.column(i).array) for t in tables])
                        for i, c in enumerate(first._columns)}
        return first._like(first.schema, arrays, sum(t.num_rows for t in tables), dictionaries)

    @classmethod
    def from_pydict(cls, data: dict, schema: Schema | None = None) -> Table:
        """A table from columns of Python values or numpy arrays (see :mod:`parquet_codec.convert`)."""
        from parquet_codec.convert import from_pydict

        return from_pydict(data, schema)

    @classmethod
    def from_pylist(cls, rows: list, schema: Schema | None = None) -> Table:
        """A table from a list of row dicts."""
        from parquet_codec.convert import from_pylist

        return from_pylist(rows, schema)

    @classmethod
    def from_pandas(cls, df: Any, schema: Any = None, preserve_index: bool | None = None) -> Table:
        """A table from a pandas DataFrame, its index kept as pyarrow keeps it;
        ``schema`` a Parquet Schema or a pyarrow one (see
        :func:`parquet_codec.convert.from_pandas`)."""
        from parquet_codec.convert import from_pandas

        return from_pandas(df, schema, preserve_index)

    @classmethod
    def from_arrow(cls, table: Any) -> Table:
        """A table from a pyarrow Table, typed as pyarrow.parquet writes it."""
        from parquet_codec.convert import from_arrow

        return from_arrow(table)

    def __repr__(self) -> str:
        cols = ", ".join(f"{c.name}: {c.field.type_string()}" for c in self._columns)
        return f"<Table {self.num_rows} rows: {cols}>"


def _with_validity(array: Array, validity: np.ndarray) -> Array:
    copy = dataclasses.replace(array)
    copy.validity = validity
    return copy


def _copy_element(element: SchemaElement, **changes: object) -> SchemaElement:
    fields = {k: getattr(element, k) for k in SchemaElement.__slots__}
    fields.update(changes)
    return SchemaElement(**fields)


def _subtree_elements(node: SchemaNode) -> list[SchemaElement]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current.element)
        stack.extend(reversed(current.children))
    return out


__all__ = ["Column", "Table", "array_to_arrow", "array_to_pylist"]
