"""Field names as pyarrow's writer options change them in the file.

- ``use_compliant_nested_type=False``: LogicalTypes.md ("Lists") names the
  element of a 3-level list ``element``. pyarrow's non-compliant mode keeps
  the 3-level structure and the middle ``repeated group list`` but names the
  element after the Arrow list's value field (``item`` unless the Arrow type
  names it otherwise). Maps keep their ``key_value`` / ``key`` / ``value``
  names; lists inside maps and structs are renamed like any other list.
- ``flavor="spark"``: top-level fields whose names hold a character Spark
  rejects in a column name (space, ``,;{}()=``, newline, tab) are renamed
  with ``_`` in its place, as pyarrow sanitizes them.

Tables keep their own names; only the file's schema (and what is keyed by
its paths) uses these.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from parquet_codec.format.ttypes import SchemaElement
from parquet_codec.schema import REPEATED, Schema

#: pyarrow's default name of a list's value field.
ARROW_ITEM_NAME = "item"

Path = tuple[str, ...]


def _is_compliant_element(node: Any) -> bool:
    """The ``element`` of a standard 3-level list: LIST group > repeated group ``list`` > one child."""
    middle = node.parent
    if middle is None or middle.parent is None or node.name != "element":
        return False
    return (middle.repetition == REPEATED and not middle.is_leaf and len(middle.children) == 1
            and middle.parent.is_list_annotated and len(middle.parent.children) == 1)


def arrow_list_names(schema: Schema, names: Mapping[Path, str] | None = None) -> Schema:
    """``schema`` with each list element renamed as pyarrow's non-compliant
    writer names it: ``names[path]`` (keyed by the element's compliant path,
    see :func:`arrow_element_names`) or ``item``."""
    names = names or {}
    elements: list[SchemaElement] = []
    changed = False
    for node in schema.nodes:
        element = node.element
        if _is_compliant_element(node):
            new_name = names.get(node.path, ARROW_ITEM_NAME)
            if new_name != element.name:
                element = copy.copy(element)  # the given schema's elements stay untouched
                element.name = new_name
                changed = True
        elements.append(element)
    return Schema.from_elements(elements) if changed else schema


_SPARK_DISALLOWED = re.compile(r"[ ,;{}()\n\t=]")


def spark_field_names(schema: Schema) -> Schema:
    """``schema`` with the top-level names Spark rejects made safe."""
    elements = list(schema.to_elements())
    changed = False
    for node in schema.root.children:
        safe = _SPARK_DISALLOWED.sub("_", node.name)
        if safe != node.name:
            element = elements[node.index] = copy.copy(node.element)
            element.name = safe
            changed = True
    return Schema.from_elements(elements) if changed else schema


def arrow_element_names(table: Any) -> dict[Path, str]:
    """The Arrow value-field names of the lists of a pyarrow Table, RecordBatch
    or Schema, keyed by the compliant path of the element they name
    (``("a", "list", "element")``); empty for anything else."""
    try:
        import pyarrow as pa
    except ImportError:
        return {}
    if isinstance(table, (pa.Table, pa.RecordBatch)):
        table = table.schema
    if not isinstance(table, pa.Schema):
        return {}
    out: dict[Path, str] = {}
    stack: list[tuple[Path, Any]] = [((f.name,), f.type) for f in table]
    while stack:
        path, typ = stack.pop()
        if isinstance(typ, pa.DictionaryType):
            typ = typ.value_type
        if isinstance(typ, pa.BaseExtensionType):
            typ = typ.storage_type
        if pa.types.is_map(typ):
            stack.append((path + ("key_value", "key"), typ.key_type))
            stack.append((path + ("key_value", "value"), typ.item_type))
        elif pa.types.is_struct(typ):
            stack.extend((path + (typ.field(i).name,), typ.field(i).type) for i in range(typ.num_fields))
        elif pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
            element = path + ("list", "element")
            out[element] = typ.value_field.name
            stack.append((element, typ.value_type))
    return out


__all__ = ["ARROW_ITEM_NAME", "arrow_element_names", "arrow_list_names", "spark_field_names"]
