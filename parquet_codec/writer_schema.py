"""Checking what is given to :class:`~parquet_codec.writer.ParquetWriter` against
its schema, and the schema against what Parquet can hold (File Format: "Metadata",
the schema's elements).

A typed table must have the writer's schema, as pyarrow requires: the same
columns in the same order, of the same types and nullability (field ids aside,
which pyarrow does not compare). Untyped data must name the schema's columns.
When they differ, the error says how: extra, missing or reordered columns, or
the first column whose type differs. A schema with a group of no fields, or
two fields of one name in a group, is refused before anything is written.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from parquet_codec.errors import SchemaError, UnsupportedError
from parquet_codec.format.ttypes import SchemaElement
from parquet_codec.schema import Schema, repeated_name

#: The start of the message of a table whose schema is not the writer's (pyarrow's words).
MISMATCH = "Table schema does not match schema used to create file: "


def bare_elements(schema: Schema) -> list[SchemaElement]:
    """A schema's elements without their field ids (which, as Arrow field metadata,
    pyarrow does not compare either)."""
    elements = []
    for element in schema.to_elements():
        if element.field_id is not None:
            element = copy.copy(element)
            element.field_id = None
        elements.append(element)
    return elements


def _names_difference(names: Sequence[str], expected: Sequence[str]) -> str | None:
    """What differs between two lists of column names: extra or missing ones, or
    their order; None when they are the same."""
    extra = [n for n in names if n not in expected]
    missing = [n for n in expected if n not in names]
    if extra or missing:
        parts = [f"extra columns {extra}" if extra else "", f"missing columns {missing}" if missing else ""]
        return ", ".join(p for p in parts if p) + f" (the writer's schema has columns {list(expected)})"
    if list(names) != list(expected):
        return f"the columns are in another order: {list(names)}, the writer's schema {list(expected)}"
    return None


def arrow_difference(given: Any, expected: Any) -> str:
    """How a pyarrow schema differs from the writer's: names, or the first column
    whose type or nullability differs."""
    names = _names_difference(given.names, expected.names)
    if names is not None:
        return names

    def text(field: Any) -> str:
        return f"{field.type}{'' if field.nullable else ' not null'}"

    for mine, theirs in zip(given, expected, strict=True):
        if not mine.equals(theirs):
            return f"column {mine.name!r} is {text(mine)} in the table, {text(theirs)} in the writer's schema"
    return f"the table's schema {given} differs from the writer's {expected}"


def _field_texts(schema: Schema) -> list[str]:
    """Each top-level field's subtree as the schema text prints it, on one line."""
    chunks: list[list[str]] = []
    for line in str(schema).splitlines()[1:-1]:
        top_level = not line.startswith("   ")
        if top_level and line.strip() != "}":
            chunks.append([])
        chunks[-1].append(line.strip())
    return [" ".join(chunk) for chunk in chunks]


def parquet_difference(given: Schema, expected: Schema) -> str:
    """How a table's Parquet schema differs from the writer's: names, or the first
    column whose types differ (as the schema text prints them)."""
    names = _names_difference([f.name for f in given.fields], [f.name for f in expected.fields])
    if names is not None:
        return names
    for field, mine, theirs in zip(given.fields, _field_texts(given), _field_texts(expected), strict=True):
        if mine != theirs:
            return f"column {field.name!r} is `{mine}` in the table, `{theirs}` in the writer's schema"
    return f"the table's schema\n{given}differs from the writer's\n{expected}"


def check_names(data: Any, expected: list[str]) -> None:
    """Untyped input (a dict of columns, a list of row dicts, a pandas DataFrame)
    must name the schema's columns, no more and no fewer (in any order). A row
    dict may leave a column out (it is null) as long as some row names it; a
    DataFrame's index columns are left out unless the schema has them."""
    module = type(data).__module__ or ""
    if module.startswith("pandas"):
        names = [str(c) for c in data.columns]
    elif isinstance(data, Mapping):
        names = list(data)
    elif isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        if not data:
            return
        seen: dict[Any, None] = {}
        for row in data:
            if isinstance(row, Mapping):
                seen.update(dict.fromkeys(row))
        names = list(seen)
    else:
        return  # to_table says what it cannot take
    if set(names) != set(expected):
        raise SchemaError(f"the data's columns do not match the writer's schema: {_names_difference(names, expected)}")


def check_groups(schema: Schema) -> None:
    """Refuse a group without fields (an Arrow ``struct<>``), as pyarrow does: it
    has no leaf column to hold its nulls, so it could not be read back as written.
    Refuse a group with two fields of one name: their columns would share one
    path, and a reader keys a struct's fields by name."""
    for node in schema.nodes[1:]:
        if node.is_leaf:
            continue
        if not node.children:
            raise UnsupportedError(f"Cannot write struct type {node.name!r} with no child field to Parquet "
                                   f"(at {node.dotted_path!r}); give it a field")
        repeated = repeated_name([child.name for child in node.children])
        if repeated:
            raise UnsupportedError(f"struct {node.dotted_path!r} has {repeated[1]} fields named {repeated[0]!r}: "
                                   "the fields of a struct written to Parquet need distinct names")


__all__ = ["MISMATCH", "arrow_difference", "bare_elements", "check_groups", "check_names", "parquet_difference"]
