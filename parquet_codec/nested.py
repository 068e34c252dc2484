"""Nested types: how schema groups become structs, lists and maps in memory.

LogicalTypes.md ("Nested Types") fixes the standard shapes: a LIST group
wrapping ``repeated group list { element }`` and a MAP group wrapping
``repeated group key_value { key; value }``. Files written before those
rules use other shapes, and its backward-compatibility rules say how to read
them. This module applies those rules and, where the rules leave room,
decides as pyarrow (Arrow C++) does, so that a column read here has the shape
pyarrow gives it. The result is a tree of :class:`Field`, one per value in
memory, each knowing the definition and repetition levels at which its value
exists; :mod:`parquet_codec.levels` assembles and shreds data with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import FieldRepetitionType

if TYPE_CHECKING:
    from parquet_codec.schema import SchemaNode

_REPEATED = FieldRepetitionType.REPEATED
_OPTIONAL = FieldRepetitionType.OPTIONAL

PRIMITIVE, STRUCT, LIST, MAP = "primitive", "struct", "list", "map"


@dataclass(frozen=True, eq=False)
class Field:
    """A column's shape in memory.

    - ``kind``: "primitive", "struct", "list" or "map".
    - ``node``: the schema node the value comes from: the leaf, the struct
      group, the LIST/MAP-annotated group, or for an unannotated repeated
      field the repeated node itself.
    - ``children``: struct: its fields; list: ``(element,)``; map:
      ``(key, value)`` or ``(key,)`` when the key_value group has no value.
    - ``def_level``: the definition level at and above which the value is
      present (not null); ``rep_level``: the repetition level of the list
      entry that holds the value (0 outside any list).
    - ``repeated_node`` (list and map): the repeated node whose occurrences are
      the entries; an entry exists at definition level
      ``repeated_node.max_definition_level`` and repeats at
      ``repeated_node.max_repetition_level``.
    """

    name: str
    kind: str
    nullable: bool
    node: SchemaNode
    children: tuple[Field, ...]
    def_level: int
    rep_level: int
    repeated_node: SchemaNode | None = None

    @property
    def path(self) -> tuple[str, ...]:
        return self.node.path

    @property
    def is_nested(self) -> bool:
        return self.kind != PRIMITIVE

    @property
    def element(self) -> Field:
        """A list's element field."""
        if self.kind != LIST:
            raise SchemaError(f"field {self.name!r} is a {self.kind}, not a list")
        return self.children[0]

    @property
    def key(self) -> Field:
        if self.kind != MAP:
            raise SchemaError(f"field {self.name!r} is a {self.kind}, not a map")
        return self.children[0]

    @property
    def value(self) -> Field | None:
        """A map's value field; None for a map whose key_value group has only a key."""
        if self.kind != MAP:
            raise SchemaError(f"field {self.name!r} is a {self.kind}, not a map")
        return self.children[1] if len(self.children) > 1 else None

    def leaf_nodes(self) -> list[SchemaNode]:
        """The leaf columns this field reads, in column order."""
        return self.node.leaves()

    def first_leaf(self) -> SchemaNode:
        """The first leaf column, whose levels also describe every ancestor."""
        node = self.node
        while not node.is_leaf:
            # skip empty groups (pyarrow reads them as struct<>): they have no column
            node = next((c for c in node.children if c.is_leaf or c.leaves()), None)
            if node is None:
                raise SchemaError(f"field {'.'.join(self.path)!r} has no leaf column to read it from")
        return node

    def type_string(self) -> str:
        """A short Arrow-like description, e.g. ``list<element: int32>`` (for messages)."""
        if self.kind == PRIMITIVE:
            return "leaf"
        inner = ", ".join(f"{c.name}: {c.type_string()}{'' if c.nullable else ' not null'}"
                          for c in self.children)
        return f"{self.kind}<{inner}>"

    def __repr__(self) -> str:
        return f"Field({self.name!r}, {self.type_string()}, nullable={self.nullable}, def={self.def_level}, rep={self.rep_level})"


def resolve_fields(root: SchemaNode) -> tuple[Field, ...]:
    """The top-level fields of a schema (the root's children)."""
    try:
        return _resolve_all(root.children)
    except RecursionError:
        raise SchemaError("schema nesting too deep to resolve its nested types") from None


def _where(node: SchemaNode) -> str:
    return f"schema element {node.index} {'.'.join(node.path)!r}"


def resolve(node: SchemaNode) -> Field:
    """The field for a node met as a regular field (a struct member or a top-level column)."""
    if node.is_leaf:
        if node.repetition == _REPEATED:
            return _bare_repeated(node)
        return Field(node.name, PRIMITIVE, node.repetition == _OPTIONAL, node, (),
                     node.max_definition_level, node.max_repetition_level)
    if node.is_list_annotated:
        return _list_field(node)
    if node.is_map_annotated:
        return _map_field(node)
    if node.repetition == _REPEATED:
        return _bare_repeated(node)
    # A plain struct, built inline: one stack frame per level of nested structs.
    children = []
    for child in node.children:
        children.append(resolve(child))
    return Field(node.name, STRUCT, node.repetition == _OPTIONAL, node, tuple(children),
                 node.max_definition_level, node.max_repetition_level)


def _resolve_all(nodes: tuple[SchemaNode, ...]) -> tuple[Field, ...]:
    out = []
    for child in nodes:  # a plain loop: one stack frame less per level than a generator
        out.append(resolve(child))
    return tuple(out)


def _struct(node: SchemaNode, nullable: bool) -> Field:
    children = _resolve_all(node.children)
    return Field(node.name, STRUCT, nullable, node, children, node.max_definition_level, node.max_repetition_level)


def _required_element(node: SchemaNode) -> Field:
    """A repeated node that is itself the element: required, one per entry."""
    if node.is_leaf:
        return Field(node.name, PRIMITIVE, False, node, (), node.max_definition_level, node.max_repetition_level)
    return _struct(node, False)


def _bare_repeated(node: SchemaNode) -> Field:
    """A repeated field outside any LIST/MAP: a required list of required
    elements (LogicalTypes.md "Nested Types", first paragraphs)."""
    element = _required_element(node)
    # The list itself exists wherever its parent does: one level below the entries.
    return Field(node.name, LIST, False, node, (element,), node.max_definition_level - 1,
                 node.max_repetition_level - 1, node)


def _list_field(group: SchemaNode) -> Field:
    """A LIST-annotated group (LogicalTypes.md "Lists" and its backward-compatibility rules)."""
    if len(group.children) != 1:
        raise SchemaError(f"{_where(group)}: a LIST-annotated group must have exactly one child, "
                          f"it has {len(group.children)}")
    if group.repetition == _REPEATED:
        raise SchemaError(f"{_where(group)}: a LIST-annotated group must not be repeated")
    repeated = group.children[0]
    if repeated.repetition != _REPEATED:
        raise SchemaError(f"{_where(repeated)}: the child of a LIST-annotated group must be repeated")
    element = _list_element(group, repeated)
    return Field(group.name, LIST, group.repetition == _OPTIONAL, group, (element,),
                 group.max_definition_level, group.max_repetition_level, repeated)


def _list_element(group: SchemaNode, repeated: SchemaNode) -> Field:
    """The element of a LIST whose repeated child is ``repeated``."""
    if repeated.is_leaf:  # rule 1: `repeated int32 element` is a required element
        return _required_element(repeated)
    if not repeated.children:
        raise SchemaError(f"{_where(repeated)}: the repeated group of a LIST has no fields")
    if len(repeated.children) > 1:  # rule 2: several fields form a required struct element
        return _required_element(repeated)
    only = repeated.children[0]
    if only.repetition == _REPEATED:
        # Rule 3: the repeated group is the element. Annotated LIST it is a list
        # whose entries are `only`, their element found by these same rules: a
        # 2-level list of old Avro/Thrift files (`repeated int32 array`), or
        # the 3-level one Spark's legacy format nests (`repeated group bag`);
        # unannotated it is a struct holding a list.
        if repeated.is_list_annotated:
            return Field(repeated.name, LIST, False, repeated, (_list_element(repeated, only),),
                         repeated.max_definition_level, repeated.max_repetition_level, only)
        if repeated.is_map_annotated:  # likewise a map whose key_value group is `only` (Impala's legacy files)
            return _map_of(repeated, only, nullable=False)
        return _required_element(repeated)
    if repeated.name == "array" or repeated.name == group.name + "_tuple":
        return _required_element(repeated)  # rule 4: a one-field struct element
    # Rule 5, the standard 3-level shape: the single field is the element, with its own nullability.
    return resolve(only)


def _map_field(group: SchemaNode) -> Field:
    """A MAP (or legacy MAP_KEY_VALUE) group (LogicalTypes.md "Maps")."""
    if len(group.children) != 1:
        raise SchemaError(f"{_where(group)}: a MAP-annotated group must have exactly one child, "
                          f"it has {len(group.children)}")
    if group.repetition == _REPEATED:
        raise SchemaError(f"{_where(group)}: a MAP-annotated group must not be repeated")
    return _map_of(group, group.children[0], nullable=group.repetition == _OPTIONAL)


def _map_of(group: SchemaNode, key_value: SchemaNode, nullable: bool) -> Field:
    """The map of ``group`` whose entries are the repeated ``key_value`` group."""
    if key_value.repetition != _REPEATED or key_value.is_leaf:
        raise SchemaError(f"{_where(key_value)}: the child of a MAP-annotated group must be a repeated group")
    if len(key_value.children) not in (1, 2):
        raise SchemaError(f"{_where(key_value)}: a map's key_value group must hold a key and at most "
                          f"one value, it has {len(key_value.children)} fields")
    # Key and value are found by position, whatever their names. A key that is not
    # required (Presto wrote such files) is read as written: pyarrow refuses it.
    children = _resolve_all(key_value.children)
    # (A repeated group that is itself the map has its levels one below its entries'.)
    return Field(group.name, MAP, nullable, group, children, key_value.max_definition_level - 1,
                 key_value.max_repetition_level - 1, key_value)


__all__ = ["Field", "resolve_fields", "resolve", "PRIMITIVE", "STRUCT", "LIST", "MAP"]
