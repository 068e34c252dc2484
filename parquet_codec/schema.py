"""The schema tree of a Parquet file.

A footer stores the schema as a flat, depth-first list of ``SchemaElement``
(File Format: "Metadata", "Nested Encoding"): the first element is the root
group and every group is followed by its ``num_children`` subtrees. This
module rebuilds the tree, validates it, computes each node's maximum
definition and repetition levels and its column path, and prints it the way
parquet-java's ``MessageType.toString()`` does. Writers build schemas with
the small constructors at the end (:func:`primitive`, :func:`group`,
:func:`list_`, :func:`map_`, :meth:`Schema.from_fields`).

How a group becomes a list, map or struct in memory (the LIST/MAP
backward-compatibility rules) lives in :mod:`parquet_codec.nested`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from functools import cached_property

from parquet_codec.converted_types import converted_from_logical, resolved_logical_type, union_member
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import (
    BsonType,
    ConvertedType,
    DateType,
    EdgeInterpolationAlgorithm,
    EnumType,
    FieldRepetitionType,
    JsonType,
    ListType,
    LogicalType,
    MapType,
    SchemaElement,
    StringType,
    TimeUnit,
    Type,
)
from parquet_codec.nested import Field, resolve_fields

#: Deepest nesting accepted. Real schemas nest a few dozen levels at most;
#: the bound keeps hostile footers from building pathological trees.
MAX_DEPTH = 1000

REQUIRED = FieldRepetitionType.REQUIRED
OPTIONAL = FieldRepetitionType.OPTIONAL
REPEATED = FieldRepetitionType.REPEATED

_REPETITION_NAMES = {REQUIRED: "required", OPTIONAL: "optional", REPEATED: "repeated"}


class SchemaNode:
    """One node of the schema tree: the root, a group or a leaf (a column)."""

    __slots__ = (
        "element", "index", "name", "repetition", "physical_type", "type_length", "converted_type",
        "logical_type", "field_id", "children", "parent", "path", "max_definition_level",
        "max_repetition_level", "column_index",
    )

    def __init__(self, element: SchemaElement, index: int, parent: SchemaNode | None, is_group: bool) -> None:
        self.element = element
        self.index = index  # position in the flat element list, for error messages
        self.name: str = element.name
        self.parent = parent
        self.children: tuple[SchemaNode, ...] = ()
        self.physical_type: int | None = None if is_group else element.type
        self.type_length: int | None = element.type_length
        self.converted_type: int | None = element.converted_type
        self.logical_type: LogicalType | None = resolved_logical_type(element)
        self.field_id: int | None = element.field_id
        self.column_index: int | None = None
        if parent is None:
            # The root's repetition carries no meaning; writers disagree on it.
            self.repetition: int | None = None
            self.path: tuple[str, ...] = ()
            self.max_definition_level = 0
            self.max_repetition_level = 0
        else:
            # A missing repetition is read as REQUIRED, as parquet-cpp does.
            rep = REQUIRED if element.repetition_type is None else element.repetition_type
            self.repetition = rep
            self.path = parent.path + (self.name,)
            self.max_definition_level = parent.max_definition_level + (rep != REQUIRED)
            self.max_repetition_level = parent.max_repetition_level + (rep == REPEATED)

    @property
    def is_leaf(self) -> bool:
        return self.physical_type is not None

    @property
    def precision(self) -> int | None:
        """Decimal precision, from the DECIMAL logical type or the legacy element field."""
        lt = self.logical_type
        return lt.DECIMAL.precision if lt is not None and lt.DECIMAL is not None else self.element.precision

    @property
    def scale(self) -> int | None:
        lt = self.logical_type
        return lt.DECIMAL.scale if lt is not None and lt.DECIMAL is not None else self.element.scale

    @property
    def is_root(self) -> bool:
        return self.parent is None

    @property
    def dotted_path(self) -> str:
        return ".".join(self.path)

    @property
    def is_list_annotated(self) -> bool:
        """Annotated LIST by logical or converted type (LogicalTypes.md "Lists")."""
        lt = self.logical_type
        return (lt is not None and lt.LIST is not None) or self.converted_type == ConvertedType.LIST

    @property
    def is_map_annotated(self) -> bool:
        """Annotated MAP, or the legacy MAP_KEY_VALUE read as MAP (LogicalTypes.md "Maps")."""
        lt = self.logical_type
        return (lt is not None and lt.MAP is not None) or self.converted_type in (
            ConvertedType.MAP, ConvertedType.MAP_KEY_VALUE)

    def leaves(self) -> list[SchemaNode]:
        """The leaf nodes under this node (itself for a leaf), in column order."""
        out: list[SchemaNode] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.is_leaf:
                out.append(node)
            else:
                stack.extend(reversed(node.children))
        return out

    def __repr__(self) -> str:
        kind = "leaf" if self.is_leaf else "group"
        return f"<SchemaNode {kind} {self.dotted_path or self.name!r} def={self.max_definition_level} rep={self.max_repetition_level}>"


def _fail(index: int, element: SchemaElement, problem: str) -> SchemaError:
    return SchemaError(f"schema element {index} {element.name!r}: {problem}")


def _check_element(index: int, element: SchemaElement, is_root: bool) -> bool:
    """Validate one element on its own; return whether it is a group."""
    if not isinstance(element, SchemaElement):
        raise SchemaError(f"schema element {index} is a {type(element).__name__}, not a SchemaElement")
    if not isinstance(element.name, str):
        raise _fail(index, element, "has no name")
    nc, ptype = element.num_children, element.type
    if nc is not None and nc < 0:
        raise _fail(index, element, f"negative num_children {nc}")
    if ptype is not None and ptype not in Type._VALUES_TO_NAMES:
        raise _fail(index, element, f"unknown physical type {ptype}")
    if not is_root and element.repetition_type not in (None, REQUIRED, OPTIONAL, REPEATED):
        raise _fail(index, element, f"unknown repetition type {element.repetition_type}")
    if nc:  # a group with children (a physical type beside them is ignored, as pyarrow does)
        _check_group_annotation(index, element)
        return True
    if ptype is None:
        # num_children == 0 without a type is an empty group (pyarrow reads it as struct<>);
        # neither field set says nothing about what the node is.
        if nc is None and not is_root:
            raise _fail(index, element, "has neither a physical type nor num_children")
        if is_root and nc is None:
            raise _fail(index, element, "the root is not a group (no num_children)")
        _check_group_annotation(index, element)
        return True
    if is_root:
        raise _fail(index, element, "the root must be a group, not a leaf")
    if ptype == Type.FIXED_LEN_BYTE_ARRAY and (element.type_length is None or element.type_length <= 0):
        raise _fail(index, element, f"FIXED_LEN_BYTE_ARRAY needs a positive type_length, got {element.type_length}")
    return False


#: The annotations a group (the root too) may carry; pyarrow refuses the others.
_GROUP_CONVERTED = frozenset({ConvertedType.LIST, ConvertedType.MAP, ConvertedType.MAP_KEY_VALUE})
_GROUP_LOGICAL = frozenset({"LIST", "MAP", "VARIANT"})


def _check_group_annotation(index: int, element: SchemaElement) -> None:
    converted = element.converted_type
    if converted is not None and converted not in _GROUP_CONVERTED:
        name = ConvertedType._VALUES_TO_NAMES.get(converted, str(converted))
        raise _fail(index, element, f"a group cannot be annotated with converted type {name}")
    member = union_member(element.logicalType)
    if member is not None and member[0] not in _GROUP_LOGICAL:
        raise _fail(index, element, f"a group cannot be annotated with logical type {member[0]}")


class Schema:
    """A validated schema tree with its columns (leaves) in file order."""

    def __init__(self, root: SchemaNode, nodes: list[SchemaNode]) -> None:
        self.root = root
        self._nodes = nodes
        self.leaves: list[SchemaNode] = [n for n in nodes if n.is_leaf]
        self._by_path: dict[tuple[str, ...], SchemaNode] = {}
        self._by_dotted: dict[str, SchemaNode] = {}
        for leaf in self.leaves:
            self._by_path.setdefault(leaf.path, leaf)
            self._by_dotted.setdefault(leaf.dotted_path, leaf)

    @classmethod
    def from_elements(cls, elements: Sequence[SchemaElement]) -> Schema:
        """Rebuild the tree from a footer's depth-first element list, iteratively."""
        elements = list(elements)
        if not elements:
            raise SchemaError("the schema has no elements (not even a root)")
        _check_element(0, elements[0], is_root=True)
        root = SchemaNode(elements[0], 0, None, True)
        nodes = [root]
        children: dict[int, list[SchemaNode]] = {0: []}
        # stack of [group node, children still to read]
        stack: list[list] = [[root, elements[0].num_children]]
        i = 1
        column = 0
        while stack:
            top = stack[-1]
            if top[1] == 0:
                stack.pop()
                continue
            if i >= len(elements):
                parent = top[0]
                raise _fail(parent.index, parent.element, f"declares {parent.element.num_children} children "
                            f"but the schema ends after {len(elements)} elements")
            top[1] -= 1
            element = elements[i]
            is_group = _check_element(i, element, is_root=False)
            node = SchemaNode(element, i, top[0], is_group)
            children[top[0].index].append(node)
            nodes.append(node)
            if is_group:
                if len(stack) >= MAX_DEPTH:
                    raise _fail(i, element, f"nesting deeper than {MAX_DEPTH} levels")
                children[i] = []
                stack.append([node, element.num_children or 0])
            else:
                node.column_index = column
                column += 1
            i += 1
        if i != len(elements):
            raise SchemaError(f"{len(elements) - i} schema elements after the end of the tree "
                              f"(element {i} {elements[i].name!r} belongs to no group)")
        for node in nodes:
            if not node.is_leaf:
                node.children = tuple(children[node.index])
        return cls(root, nodes)

    @classmethod
    def from_fields(cls, fields: Iterable[list[SchemaElement]], name: str = "schema") -> Schema:
        """Build a schema from subtrees made with :func:`primitive`, :func:`group`,
        :func:`list_` and :func:`map_`."""
        subtrees = list(fields)
        root = SchemaElement(name=name, num_children=len(subtrees), repetition_type=REQUIRED)
        return cls.from_elements([root] + [e for sub in subtrees for e in sub])

    def project(self, leaf_paths: Iterable[Sequence[str]]) -> Schema:
        """The schema cut down to the fields holding the given leaves, its
        top-level fields in the order the leaves name them first.

        Plain groups (structs) keep only the children that lead to a selected
        leaf; a LIST, a MAP or a repeated group is kept whole, because
        dropping its children could change how its shape resolves (and so
        is a group in it that leads to no selected leaf).
        """
        paths = [tuple(p) for p in leaf_paths]
        wanted = set(paths)
        order = {head: i for i, head in enumerate(dict.fromkeys(p[0] for p in paths if p))}
        selected: dict[int, bool] = {}
        for node in reversed(self._nodes):  # children before parents
            if node.is_leaf:
                selected[node.index] = node.path in wanted
            else:
                selected[node.index] = any(selected[c.index] for c in node.children)
        elements: list[SchemaElement] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.is_leaf:
                elements.append(node.element)
                continue
            prunable = node.is_root or (
                node.repetition != REPEATED and not node.is_list_annotated and not node.is_map_annotated
            )
            kept = [c for c in node.children if selected[c.index]] if prunable else list(node.children)
            if not kept and not node.is_root:  # kept by a parent kept whole: as it is (a map's value, say)
                kept = list(node.children)
            if node.is_root:
                kept.sort(key=lambda c: order.get(c.name, len(order)))
            element = node.element
            if len(kept) != len(node.children):
                element = SchemaElement(**{k: getattr(element, k) for k in SchemaElement.__slots__})
                element.num_children = len(kept)
            elements.append(element)
            stack.extend(reversed(kept))
        return Schema.from_elements(elements)

    def to_elements(self) -> list[SchemaElement]:
        """The flat element list, as a footer stores it (the elements read, unchanged)."""
        return [n.element for n in self._nodes]

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def nodes(self) -> list[SchemaNode]:
        """Every node, depth-first, in the order of the element list."""
        return list(self._nodes)

    @property
    def num_columns(self) -> int:
        return len(self.leaves)

    def leaf(self, path: str | Sequence[str]) -> SchemaNode:
        """The leaf at ``path``: a tuple of names, or a dotted string."""
        node = self._by_dotted.get(path) if isinstance(path, str) else self._by_path.get(tuple(path))
        if node is None:
            shown = path if isinstance(path, str) else ".".join(path)
            raise SchemaError(f"no column {shown!r} in the schema")
        return node

    def column(self, index: int) -> SchemaNode:
        """The leaf with column index ``index``."""
        if not 0 <= index < len(self.leaves):
            raise SchemaError(f"column index {index} out of range ({len(self.leaves)} columns)")
        return self.leaves[index]

    @cached_property
    def fields(self) -> tuple[Field, ...]:
        """The top-level fields in their in-memory (Arrow) shape; raises
        :class:`SchemaError` when a LIST or MAP group cannot be interpreted."""
        return resolve_fields(self.root)

    def field(self, name: str) -> Field:
        """The top-level field called ``name``."""
        for f in self.fields:
            if f.name == name:
                return f
        raise SchemaError(f"no top-level field {name!r} in the schema")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schema):
            return NotImplemented
        return self.to_elements() == other.to_elements()

    __hash__ = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.leaves)

    def __repr__(self) -> str:
        return f"<Schema {self.name!r}: {len(self.root.children)} fields, {len(self.leaves)} columns>"

    def __str__(self) -> str:
        return _format_schema(self)


# ---------------------------------------------------------------------------
# Text form, as parquet-java's MessageType.toString() prints it (the CLI shows it).

_UNIT_NAMES = ("MILLIS", "MICROS", "NANOS")
# parquet-java's PrimitiveTypeName spelling: BYTE_ARRAY is "binary".
_JAVA_TYPE_NAMES = {code: name.lower() for code, name in Type._VALUES_TO_NAMES.items()}
_JAVA_TYPE_NAMES[Type.BYTE_ARRAY] = "binary"


def _unit_name(unit: TimeUnit | None) -> str:
    for name in _UNIT_NAMES:
        if unit is not None and getattr(unit, name) is not None:
            return name
    return "UNKNOWN"


def _bool(value: object) -> str:
    return "true" if value else "false"


def annotation_text(node: SchemaNode) -> str | None:
    """The annotation as parquet-java names it: ``STRING``, ``INTEGER(8,true)``,
    ``DECIMAL(9,2)``, ``TIMESTAMP(MILLIS,true)``; None when there is none."""
    lt = node.logical_type
    if lt is None:
        if node.converted_type in (ConvertedType.MAP_KEY_VALUE, ConvertedType.INTERVAL):
            return ConvertedType._VALUES_TO_NAMES[node.converted_type]
        if node.converted_type == ConvertedType.DECIMAL:
            return "DECIMAL"  # a DECIMAL without precision: malformed, shown bare
        return None
    if lt.INTEGER is not None:
        return f"INTEGER({lt.INTEGER.bitWidth},{_bool(lt.INTEGER.isSigned)})"
    if lt.DECIMAL is not None:
        return f"DECIMAL({lt.DECIMAL.precision},{lt.DECIMAL.scale})"
    for member in ("TIME", "TIMESTAMP"):
        t = getattr(lt, member)
        if t is not None:
            return f"{member}({_unit_name(t.unit)},{_bool(t.isAdjustedToUTC)})"
    if lt.VARIANT is not None and lt.VARIANT.specification_version is not None:
        return f"VARIANT({lt.VARIANT.specification_version})"
    if lt.GEOMETRY is not None and lt.GEOMETRY.crs is not None:
        return f"GEOMETRY({lt.GEOMETRY.crs})"
    if lt.GEOGRAPHY is not None and (lt.GEOGRAPHY.crs is not None or lt.GEOGRAPHY.algorithm is not None):
        algorithm = EdgeInterpolationAlgorithm._VALUES_TO_NAMES.get(lt.GEOGRAPHY.algorithm, "SPHERICAL")
        return f"GEOGRAPHY({lt.GEOGRAPHY.crs or 'OGC:CRS84'},{algorithm})"
    member = union_member(lt)
    return None if member is None else member[0]


def _node_line(node: SchemaNode) -> str:
    rep = _REPETITION_NAMES.get(node.repetition, "required")
    if node.is_leaf:
        head = f"{rep} {_JAVA_TYPE_NAMES.get(node.physical_type, 'binary')}"
        if node.physical_type == Type.FIXED_LEN_BYTE_ARRAY:
            head += f"({node.type_length})"
        head += f" {node.name}"
    else:
        head = f"{rep} group {node.name}"
    note = annotation_text(node)
    if note is not None:
        head += f" ({note})"
    if node.field_id is not None:
        head += f" = {node.field_id}"
    return head + (";" if node.is_leaf else " {")


def _format_schema(schema: Schema) -> str:
    root = schema.root
    note = annotation_text(root)
    lines = [f"message {root.name}" + (f" ({note})" if note else "") + " {"]
    # Iterative walk: a schema may nest up to MAX_DEPTH levels.
    stack: list[tuple[SchemaNode | None, int]] = [(child, 1) for child in reversed(root.children)]
    while stack:
        node, depth = stack.pop()
        if node is None:  # closing brace of a group
            lines.append("  " * depth + "}")
            continue
        lines.append("  " * depth + _node_line(node))
        if not node.is_leaf:
            stack.append((None, depth))
            stack.extend((child, depth + 1) for child in reversed(node.children))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Builders for writers: each returns the depth-first element list of a subtree.

_LOGICAL_SHORTHANDS = {
    "STRING": lambda: LogicalType(STRING=StringType()), "ENUM": lambda: LogicalType(ENUM=EnumType()),
    "DATE": lambda: LogicalType(DATE=DateType()), "JSON": lambda: LogicalType(JSON=JsonType()),
    "BSON": lambda: LogicalType(BSON=BsonType()),
}


def _repetition(value: int | str) -> int:
    if isinstance(value, str):
        for code, name in _REPETITION_NAMES.items():
            if name == value.lower():
                return code
        raise SchemaError(f"unknown repetition {value!r} (required, optional or repeated)")
    if value not in _REPETITION_NAMES:
        raise SchemaError(f"unknown repetition {value!r}")
    return value


def _physical(value: int | str) -> int:
    if isinstance(value, str):
        code = Type._NAMES_TO_VALUES.get(value.upper())
        if code is None:
            raise SchemaError(f"unknown physical type {value!r}")
        return code
    if value not in Type._VALUES_TO_NAMES:
        raise SchemaError(f"unknown physical type {value!r}")
    return value


def _logical(value: LogicalType | str | None) -> LogicalType | None:
    if isinstance(value, str):
        make = _LOGICAL_SHORTHANDS.get(value.upper())
        if make is None:
            raise SchemaError(f"logical type {value!r} needs parameters: pass a LogicalType")
        return make()
    return value


def primitive(name: str, physical_type: int | str, repetition: int | str = OPTIONAL, *,
              logical_type: LogicalType | str | None = None, converted_type: int | None = None,
              type_length: int | None = None, precision: int | None = None, scale: int | None = None,
              field_id: int | None = None) -> list[SchemaElement]:
    """A leaf column. ``converted_type`` defaults to the logical type's legacy equivalent."""
    lt = _logical(logical_type)
    if converted_type is None:
        converted_type = converted_from_logical(lt)
    if lt is not None and lt.DECIMAL is not None:
        precision = lt.DECIMAL.precision if precision is None else precision
        scale = lt.DECIMAL.scale if scale is None else scale
    return [SchemaElement(type=_physical(physical_type), type_length=type_length,
                          repetition_type=_repetition(repetition), name=name, converted_type=converted_type,
                          scale=scale, precision=precision, field_id=field_id, logicalType=lt)]


def group(name: str, children: Iterable[list[SchemaElement]], repetition: int | str = OPTIONAL, *,
          logical_type: LogicalType | str | None = None, converted_type: int | None = None,
          field_id: int | None = None) -> list[SchemaElement]:
    """A group (a struct unless annotated) over the given child subtrees."""
    subtrees = list(children)
    lt = _logical(logical_type)
    if converted_type is None:
        converted_type = converted_from_logical(lt)
    head = SchemaElement(repetition_type=_repetition(repetition), name=name, num_children=len(subtrees),
                         converted_type=converted_type, field_id=field_id, logicalType=lt)
    return [head] + [e for sub in subtrees for e in sub]


def _renamed(subtree: list[SchemaElement], name: str) -> list[SchemaElement]:
    head = copy.copy(subtree[0])
    head.name = name
    return [head] + list(subtree[1:])


def list_(name: str, element: list[SchemaElement], repetition: int | str = OPTIONAL, *,
          field_id: int | None = None) -> list[SchemaElement]:
    """The standard 3-level LIST (LogicalTypes.md "Lists"); the element subtree's
    root is renamed ``element`` and keeps its repetition (required or optional)."""
    if _repetition(element[0].repetition_type or REQUIRED) == REPEATED:
        raise SchemaError(f"list {name!r}: the element must be required or optional, not repeated")
    middle = group("list", [_renamed(element, "element")], REPEATED)
    return group(name, [middle], repetition, logical_type=LogicalType(LIST=ListType()), field_id=field_id)


def map_(name: str, key: list[SchemaElement], value: list[SchemaElement] | None,
         repetition: int | str = OPTIONAL, *, field_id: int | None = None) -> list[SchemaElement]:
    """The standard MAP (LogicalTypes.md "Maps"): ``repeated group key_value`` with a
    required ``key`` and an optional or required ``value`` (omitted when None)."""
    if key[0].repetition_type != REQUIRED:
        raise SchemaError(f"map {name!r}: the key must be required")
    entries = [_renamed(key, "key")]
    if value is not None:
        if value[0].repetition_type == REPEATED:
            raise SchemaError(f"map {name!r}: the value must be required or optional, not repeated")
        entries.append(_renamed(value, "value"))
    middle = group("key_value", entries, REPEATED)
    return group(name, [middle], repetition, logical_type=LogicalType(MAP=MapType()), field_id=field_id)


def repeated_name(names: Sequence[str]) -> tuple[str, int] | None:
    """The first of ``names`` given more than once and how many times it is
    given; None when they are distinct (fields a reader keys by name)."""
    if len(set(names)) == len(names):
        return None
    twice = next(name for name in names if names.count(name) > 1)
    return twice, names.count(twice)


__all__ = [
    "MAX_DEPTH", "REQUIRED", "OPTIONAL", "REPEATED", "SchemaNode", "Schema", "Field",
    "annotation_text", "repeated_name",
    "primitive", "group", "list_", "map_",
]
