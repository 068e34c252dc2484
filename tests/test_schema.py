"""The schema tree (parquet_codec.schema) and nested-type resolution (parquet_codec.nested).

pyarrow is the oracle for how each file's schema looks in memory; the printed
form was checked against parquet-java's MessageType.toString() (via PySpark's
bundled parquet-java) and is pinned here as text.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_codec import reader as pc_reader
from parquet_codec import schema as S
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import (
    ConvertedType,
    IntType,
    ListType,
    LogicalType,
    MapType,
    NanoSeconds,
    NullType,
    SchemaElement,
    StringType,
    TimestampType,
    TimeUnit,
    VariantType,
)
from parquet_codec.nested import Field
from tests.support.footer import read_footer

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "parquet-testing"


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*.parquet*") if p.is_file() and p.read_bytes()[-4:] == b"PAR1")


def needs_corpus():
    return pytest.mark.skipif(not CORPUS.is_dir(), reason="parquet-testing corpus not present")


def shape(f: Field) -> tuple:
    """(name, kind, nullable, children) — comparable with pyarrow's fields."""
    if f.kind == "map" and f.value is None:
        # pyarrow reads a key-only map as list<key> (Arrow has no sets); we keep it a map.
        return (f.name, "list", f.nullable, (shape(f.key),))
    return (f.name, f.kind, f.nullable, tuple(shape(c) for c in f.children))


def arrow_shape(f: pa.Field) -> tuple:
    t = f.type
    if pa.types.is_map(t):
        return (f.name, "map", f.nullable, (arrow_shape(t.key_field), arrow_shape(t.item_field)))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        # large and fixed-size lists come back from the stored ARROW:schema; all are LISTs in Parquet
        return (f.name, "list", f.nullable, (arrow_shape(t.value_field),))
    if pa.types.is_struct(t):
        return (f.name, "struct", f.nullable, tuple(arrow_shape(t.field(i)) for i in range(t.num_fields)))
    return (f.name, "primitive", f.nullable, ())


# Files whose footer our schema layer reads but pyarrow's verdict differs, and why.
PYARROW_DISAGREES = {
    # Map keys declared `optional` (written by Presto): pyarrow refuses ("Map keys must be
    # annotated as required"); we read the map with nullable keys, as arrow-rs does.
    "data/incorrect_map_schema.parquet": (("my_map", "map", True, (("key", "primitive", True, ()),
                                                                   ("value", "primitive", True, ()))),),
}
# Files both readers reject, with the reason.
BOTH_REJECT = {
    "bad_data/PARQUET-1481.parquet": "unknown physical type -7",
}


@needs_corpus()
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_schema_matches_pyarrow(path: Path):
    rel = str(path.relative_to(CORPUS))
    meta = read_footer(path.read_bytes())
    if rel in BOTH_REJECT:
        with pytest.raises(SchemaError, match=BOTH_REJECT[rel]):
            S.Schema.from_elements(meta.schema)
        with pytest.raises(Exception):  # noqa: B017 - pyarrow raises OSError/ArrowInvalid
            pq.read_schema(path)
        return
    schema = S.Schema.from_elements(meta.schema)
    mine = tuple(shape(f) for f in schema.fields)
    if rel in PYARROW_DISAGREES:
        assert mine == PYARROW_DISAGREES[rel]
        with pytest.raises(pa.ArrowInvalid):
            pq.read_schema(path)
        return
    assert mine == tuple(arrow_shape(f) for f in pq.read_schema(path))
    # the leaves are the file's columns, in order, with pyarrow's paths and levels
    descr = pq.ParquetFile(path).schema
    assert [leaf.path for leaf in schema.leaves] == [tuple(descr.column(i).path.split(".")) for i in range(len(descr))]
    for i, leaf in enumerate(schema.leaves):
        assert leaf.column_index == i
        assert leaf.max_definition_level == descr.column(i).max_definition_level
        assert leaf.max_repetition_level == descr.column(i).max_repetition_level
    # round trip: the same elements, and rebuilding gives the same tree
    assert schema.to_elements() == meta.schema
    again = S.Schema.from_elements(schema.to_elements())
    assert str(again) == str(schema) and again == schema


def test_corpus_guard():
    """Every special case above names a corpus file that exists."""
    if not CORPUS.is_dir():
        pytest.skip("parquet-testing corpus not present")
    for rel in [*PYARROW_DISAGREES, *BOTH_REJECT]:
        assert (CORPUS / rel).is_file(), rel


# ---------------------------------------------------------------------------
# Legacy nested shapes, checked field by field


def corpus_schema(name: str) -> S.Schema:
    path = CORPUS / "data" / name
    if not path.is_file():
        pytest.skip(f"{name} not present")
    return S.Schema.from_elements(read_footer(path.read_bytes()).schema)


def test_old_list_structure_rule_3():
    (a,) = corpus_schema("old_list_structure.parquet").fields
    # required group a (LIST) { repeated group array (LIST) { repeated int32 array; } }
    assert a.kind == "list" and not a.nullable and a.repeated_node.name == "array"
    inner = a.element
    assert inner.kind == "list" and not inner.nullable and inner.name == "array"
    assert inner.repeated_node.is_leaf and inner.repeated_node.path == ("a", "array", "array")
    assert (inner.def_level, inner.rep_level) == (1, 1)
    assert inner.element.kind == "primitive" and (inner.element.def_level, inner.element.rep_level) == (2, 2)


def test_repeated_no_annotation():
    _, phones = corpus_schema("repeated_no_annotation.parquet").fields
    assert phones.kind == "struct" and phones.nullable and phones.def_level == 1
    (phone,) = phones.children
    assert phone.kind == "list" and not phone.nullable and phone.node is phone.repeated_node
    assert (phone.def_level, phone.repeated_node.max_definition_level) == (1, 2)
    assert phone.element.kind == "struct" and phone.element.node is phone.node
    assert [c.name for c in phone.element.children] == ["number", "kind"]


def test_maps_and_key_only_map():
    s = corpus_schema("map_no_value.parquet")
    my_map, no_value, my_list = s.fields
    assert my_map.kind == "map" and my_map.value is not None and my_map.value.nullable
    assert no_value.kind == "map" and no_value.value is None and not no_value.key.nullable
    assert my_list.kind == "list"
    impala = corpus_schema("nonnullable.impala.parquet")
    int_map = impala.field("Int_Map")  # MAP over a MAP_KEY_VALUE-annotated repeated group
    assert int_map.kind == "map" and int_map.repeated_node.name == "map"
    assert int_map.repeated_node.converted_type == ConvertedType.MAP_KEY_VALUE


E = SchemaElement
LIST = LogicalType(LIST=ListType())
MAP = LogicalType(MAP=MapType())


def tree(*subtree: SchemaElement) -> list[SchemaElement]:
    """A schema whose root holds the one field ``subtree`` (depth-first elements)."""
    return [E(name="schema", num_children=1)] + list(subtree)


def fields_of(elements: list[SchemaElement]) -> tuple[Field, ...]:
    return S.Schema.from_elements(elements).fields


def _list(name, rep=1, n=1, **kw):
    return E(name=name, repetition_type=rep, num_children=n, logicalType=LIST, **kw)


@pytest.mark.parametrize("elements, expected", [
    # rule 1: repeated primitive is the required element
    ([_list("l"), E(name="element", type=1, repetition_type=2)],
     ("l", "list", True, (("element", "primitive", False, ()),))),
    # rule 2: a repeated group with several fields is a required struct element
    ([_list("l"), E(name="element", repetition_type=2, num_children=2),
      E(name="str", type=6, repetition_type=0), E(name="num", type=1, repetition_type=0)],
     ("l", "list", True, (("element", "struct", False, (("str", "primitive", False, ()),
                                                        ("num", "primitive", False, ()))),))),
    # rule 3 unannotated: a struct element holding a list (pyarrow 26 agrees)
    ([_list("l"), E(name="bag", repetition_type=2, num_children=1), E(name="x", type=1, repetition_type=2)],
     ("l", "list", True, (("bag", "struct", False, (("x", "list", False, (("x", "primitive", False, ()),)),)),))),
    # rule 4: `array` and `<name>_tuple` are one-field struct elements
    ([_list("l"), E(name="array", repetition_type=2, num_children=1), E(name="s", type=6, repetition_type=0)],
     ("l", "list", True, (("array", "struct", False, (("s", "primitive", False, ()),)),))),
    ([_list("l"), E(name="l_tuple", repetition_type=2, num_children=1), E(name="s", type=6, repetition_type=1)],
     ("l", "list", True, (("l_tuple", "struct", False, (("s", "primitive", True, ()),)),))),
    # rule 5: otherwise the single field is the element, with its own nullability
    ([_list("l"), E(name="element", repetition_type=2, num_children=1), E(name="str", type=6, repetition_type=1)],
     ("l", "list", True, (("str", "primitive", True, ()),))),
    # LIST by converted type only
    ([E(name="l", repetition_type=0, num_children=1, converted_type=ConvertedType.LIST),
      E(name="list", repetition_type=2, num_children=1), E(name="item", type=1, repetition_type=1)],
     ("l", "list", False, (("item", "primitive", True, ()),))),
    # legacy MAP_KEY_VALUE on the outer group is a MAP; key/value found by position
    ([E(name="m", repetition_type=1, num_children=1, converted_type=ConvertedType.MAP_KEY_VALUE),
      E(name="map", repetition_type=2, num_children=2), E(name="str", type=6, repetition_type=0),
      E(name="num", type=1, repetition_type=0)],
     ("m", "map", True, (("str", "primitive", False, ()), ("num", "primitive", False, ())))),
    # bare repeated fields: required lists of required elements
    ([E(name="x", type=1, repetition_type=2)], ("x", "list", False, (("x", "primitive", False, ()),))),
])
def test_list_and_map_rules(elements, expected):
    (field,) = fields_of(tree(*elements))
    assert shape(field) == expected
    # pyarrow, given the same footer, agrees
    assert arrow_shape(arrow_schema_of(tree(*elements))[0]) == expected


def arrow_schema_of(elements: list[SchemaElement]) -> pa.Schema:
    """pyarrow's reading of a footer with the given schema and no rows."""
    from parquet_codec.thrift_io import serialize

    buf = io.BytesIO()
    pq.write_table(pa.table({"a": pa.array([], pa.int32())}), buf)
    meta = read_footer(buf.getvalue())
    meta.schema, meta.column_orders, meta.row_groups, meta.num_rows = elements, None, [], 0
    body = serialize(meta)
    return pq.read_schema(io.BytesIO(b"PAR1" + body + struct.pack("<I", len(body)) + b"PAR1"))


def test_levels_of_fields():
    schema = S.Schema.from_fields([
        S.list_("a", S.map_("m", S.primitive("k", "INT64", "required"), S.primitive("v", "INT64"))),
    ])
    (a,) = schema.fields
    assert (a.def_level, a.rep_level, a.repeated_node.max_definition_level, a.repeated_node.max_repetition_level) == (1, 0, 2, 1)
    m = a.element
    assert (m.kind, m.def_level, m.rep_level) == ("map", 3, 1)
    assert (m.repeated_node.max_definition_level, m.repeated_node.max_repetition_level) == (4, 2)
    assert (m.key.def_level, m.value.def_level, m.value.rep_level) == (4, 5, 2)
    assert [n.dotted_path for n in a.leaf_nodes()] == ["a.list.element.key_value.key", "a.list.element.key_value.value"]


@pytest.mark.parametrize("elements, message", [
    ([_list("l", n=2), E(name="a", type=1, repetition_type=2), E(name="b", type=1, repetition_type=2)],
     "exactly one child"),
    ([_list("l"), E(name="x", type=1, repetition_type=1)], "must be repeated"),
    ([_list("l", rep=2), E(name="x", type=1, repetition_type=2)], "must not be repeated"),
    ([E(name="m", repetition_type=1, num_children=1, logicalType=MAP), E(name="kv", repetition_type=2, num_children=3),
      E(name="k", type=1, repetition_type=0), E(name="v", type=1, repetition_type=1), E(name="w", type=1, repetition_type=1)],
     "at most one value"),
    ([E(name="m", repetition_type=1, num_children=1, logicalType=MAP), E(name="kv", type=1, repetition_type=2)],
     "repeated group"),
])
def test_uninterpretable_nested_groups(elements, message):
    schema = S.Schema.from_elements(tree(*elements))  # the tree itself is fine and printable
    assert str(schema)
    with pytest.raises(SchemaError, match=message):
        _ = schema.fields
    with pytest.raises(pa.ArrowInvalid):  # pyarrow refuses these too
        arrow_schema_of(tree(*elements))


# ---------------------------------------------------------------------------
# Malformed element lists


@pytest.mark.parametrize("elements, message", [
    ([], "no elements"),
    ([E(name="s", num_children=2), E(name="a", type=1, repetition_type=0)], "element 0 's': declares 2 children"),
    ([E(name="s", num_children=1), E(name="g", num_children=-1, repetition_type=0)], "element 1 'g': negative num_children"),
    ([E(name="s", num_children=1), E(name="a", repetition_type=1)], "element 1 'a': has neither a physical type"),
    ([E(name="s", num_children=1), E(name="a", type=1, repetition_type=1), E(name="b", type=1)], "after the end"),
    ([E(name="s", num_children=1), E(name="a", type=7, type_length=0, repetition_type=1)], "type_length"),
    ([E(name="s", num_children=1), E(name="a", type=7, repetition_type=1)], "type_length"),
    ([E(name="s", num_children=1), E(name="a", type=12, repetition_type=1)], "unknown physical type 12"),
    ([E(name="s", num_children=1), E(name="a", type=1, repetition_type=5)], "unknown repetition type 5"),
    ([E(name="s", type=1)], "root"),
    ([E(name="s", num_children=1), E(type=1, repetition_type=1)], "no name"),
])
def test_malformed_schemas(elements, message):
    with pytest.raises(SchemaError, match=message):
        S.Schema.from_elements(elements)


def test_a_physical_type_beside_children_is_ignored_as_pyarrow_does():
    """Some writers set a type on groups (the root, even): the children decide."""
    root_typed = [E(name="s", type=1, num_children=1, repetition_type=0), E(name="a", type=1, repetition_type=1)]
    group_typed = [E(name="s", num_children=1), E(name="g", type=1, num_children=1, repetition_type=1),
                   E(name="a", type=1, repetition_type=1)]
    for elements, leaf in ((root_typed, "a"), (group_typed, "g.a")):
        schema = S.Schema.from_elements(elements)
        assert [node.dotted_path for node in schema.leaves] == [leaf]
        assert schema.fields[0].kind == ("primitive" if leaf == "a" else "struct")
        assert arrow_schema_of(elements).names == [leaf.split(".")[0]]


_GROUP = dict(name="g", num_children=1, repetition_type=1)


@pytest.mark.parametrize("annotation, allowed", [
    (dict(converted_type=ConvertedType.LIST), True), (dict(converted_type=ConvertedType.MAP_KEY_VALUE), True),
    (dict(logicalType=LogicalType(VARIANT=VariantType())), True), (dict(logicalType=LogicalType()), True),
    (dict(converted_type=ConvertedType.UTF8), False),
    (dict(converted_type=ConvertedType.DECIMAL, precision=3, scale=1), False),
    (dict(converted_type=24), False), (dict(converted_type=99), False),
    (dict(logicalType=LogicalType(STRING=StringType())), False), (dict(logicalType=LogicalType(UNKNOWN=NullType())), False),
])  # fmt: skip
def test_group_annotations(annotation, allowed):
    """A group takes LIST, MAP, MAP_KEY_VALUE and VARIANT (and a type from the
    future), not the annotations of primitive types: pyarrow refuses those."""
    elements = [E(name="s", num_children=1), E(**_GROUP, **annotation), E(name="a", type=1, repetition_type=1)]
    if allowed:
        S.Schema.from_elements(elements)
        return
    with pytest.raises(SchemaError, match="element 1 'g': a group cannot be annotated"):
        S.Schema.from_elements(elements)
    with pytest.raises((pa.ArrowInvalid, OSError)):
        arrow_schema_of(elements)


def test_the_root_is_held_to_the_same_annotations():
    elements = [E(name="s", num_children=1, converted_type=ConvertedType.UTF8), E(name="a", type=1, repetition_type=1)]
    with pytest.raises(SchemaError, match="element 0 's': a group cannot be annotated with converted type UTF8"):
        S.Schema.from_elements(elements)
    with pytest.raises(OSError):
        arrow_schema_of(elements)
    elements[0] = E(name="s", num_children=1, logicalType=LogicalType(LIST=ListType()))
    assert S.Schema.from_elements(elements).leaves[0].dotted_path == "a"
    assert arrow_schema_of(elements).names == ["a"]


def test_deep_nesting_is_rejected_without_recursion():
    depth = 10_000
    elements = [E(name="s", num_children=1)]
    elements += [E(name=f"g{i}", repetition_type=1, num_children=1) for i in range(depth)]
    elements.append(E(name="leaf", type=1, repetition_type=1))
    with pytest.raises(SchemaError, match="deeper than 1000"):
        S.Schema.from_elements(elements)


def test_deep_but_allowed_nesting():
    depth = S.MAX_DEPTH - 1
    elements = [E(name="s", num_children=1)]
    elements += [E(name="g", repetition_type=1, num_children=1) for _ in range(depth)]
    elements.append(E(name="leaf", type=1, repetition_type=1))
    schema = S.Schema.from_elements(elements)
    (leaf,) = schema.leaves
    assert leaf.max_definition_level == depth + 1 and len(leaf.path) == depth + 1
    assert str(schema).count("{") == depth + 1
    try:  # resolving such a tree recurses; it either works or fails cleanly
        field = schema.fields[0]
    except SchemaError:
        return
    assert field.kind == "struct"


def test_tolerated_oddities():
    # Like pyarrow: any root repetition, a missing repetition (read as required),
    # empty groups, empty and duplicate names, leaves with num_children 0.
    schema = S.Schema.from_elements([
        E(name="s", num_children=5, repetition_type=2),
        E(name="a", type=1),
        E(name="g", repetition_type=1, num_children=0),
        E(name="", type=1, repetition_type=1),
        E(name="a", type=2, repetition_type=1),
        E(name="n", type=1, repetition_type=1, num_children=0),
    ])
    assert schema.root.repetition is None
    assert schema.leaf("a").repetition == S.REQUIRED and schema.leaf("a").physical_type == 1
    assert [f.kind for f in schema.fields] == ["primitive", "struct", "primitive", "primitive", "primitive"]
    assert [leaf.column_index for leaf in schema.leaves] == [0, 1, 2, 3]
    assert S.Schema.from_elements([E(name="empty", num_children=0)]).leaves == []


# ---------------------------------------------------------------------------
# Lookup, text form, builders


def test_leaf_lookup():
    schema = S.Schema.from_fields([S.group("a", [S.list_("b", S.primitive("c", "INT32"))])])
    leaf = schema.leaf(("a", "b", "list", "element"))
    assert schema.leaf("a.b.list.element") is leaf and schema.column(0) is leaf
    assert leaf.dotted_path == "a.b.list.element" and leaf.is_leaf and leaf.parent.parent.name == "b"
    with pytest.raises(SchemaError, match="no column 'a.b'"):
        schema.leaf("a.b")
    with pytest.raises(SchemaError):
        schema.column(3)


# Printed by parquet-java 1.15 (MessageType.toString) for the file pyarrow writes from TYPES_TABLE.
JAVA_TYPES_TEXT = """\
message schema {
  optional int32 i8 (INTEGER(8,true)) = 7;
  optional int32 u16 (INTEGER(16,false));
  optional int64 u64 (INTEGER(64,false));
  optional binary s (STRING);
  optional binary b;
  optional int32 d (DATE);
  optional int64 ts_ms (TIMESTAMP(MILLIS,false));
  optional int64 ts_us_utc (TIMESTAMP(MICROS,true));
  optional int64 ts_ns (TIMESTAMP(NANOS,false));
  optional int32 t_ms (TIME(MILLIS,false));
  optional int64 t_ns (TIME(NANOS,false));
  optional fixed_len_byte_array(4) dec (DECIMAL(9,2));
  optional fixed_len_byte_array(16) dec38 (DECIMAL(38,2));
  optional fixed_len_byte_array(2) f16 (FLOAT16);
  optional fixed_len_byte_array(4) fsb;
  optional group lst (LIST) {
    repeated group list {
      optional int32 element;
    }
  }
  optional group m (MAP) {
    repeated group key_value {
      required binary key (STRING);
      optional int64 value;
    }
  }
  optional group st {
    required int32 x;
  }
  optional int32 nul (UNKNOWN);
}
"""


def test_text_matches_parquet_java():
    import datetime
    import decimal

    t = pa.table({
        "i8": pa.array([1], pa.int8()), "u16": pa.array([1], pa.uint16()), "u64": pa.array([1], pa.uint64()),
        "s": pa.array(["x"]), "b": pa.array([b"x"]), "d": pa.array([datetime.date(2020, 1, 1)]),
        "ts_ms": pa.array([1], pa.timestamp("ms")), "ts_us_utc": pa.array([1], pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array([1], pa.timestamp("ns")), "t_ms": pa.array([1], pa.time32("ms")),
        "t_ns": pa.array([1], pa.time64("ns")),
        "dec": pa.array([decimal.Decimal("1.23")], pa.decimal128(9, 2)),
        "dec38": pa.array([decimal.Decimal("1.23")], pa.decimal128(38, 2)),
        "f16": pa.array([1.0], pa.float16()), "fsb": pa.array([b"abcd"], pa.binary(4)),
        "lst": pa.array([[1]], pa.list_(pa.int32())), "m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int64())),
        "st": pa.array([{"x": 1}], pa.struct([pa.field("x", pa.int32(), nullable=False)])),
        "nul": pa.array([None], pa.null()),
    })
    schema = t.schema.set(0, t.schema.field(0).with_metadata({b"PARQUET:field_id": b"7"}))
    buf = io.BytesIO()
    pq.write_table(t.cast(schema), buf, store_schema=False)
    assert str(S.Schema.from_elements(read_footer(buf.getvalue()).schema)) == JAVA_TYPES_TEXT


# Printed by parquet-java for corpus files (legacy converted types, MAP_KEY_VALUE, GEOMETRY).
JAVA_CORPUS_TEXT = {
    "old_list_structure.parquet": """\
message my_record {
  required group a (LIST) {
    repeated group array (LIST) {
      repeated int32 array;
    }
  }
}
""",
    "nested_maps.snappy.parquet": """\
message spark_schema {
  optional group a (MAP) {
    repeated group key_value {
      required binary key (STRING);
      optional group value (MAP) {
        repeated group key_value {
          required int32 key;
          required boolean value;
        }
      }
    }
  }
  required int32 b;
  required double c;
}
""",
    "fixed_length_decimal.parquet": "message spark_schema {\n  optional fixed_len_byte_array(11) value (DECIMAL(25,2));\n}\n",
    "null_list.parquet": """\
message arrow_schema {
  optional group emptylist (LIST) {
    repeated group list {
      optional int32 item (UNKNOWN);
    }
  }
}
""",
    "geospatial/crs-srid.parquet": "message schema {\n  optional binary wkt (STRING);\n"
                                   "  optional binary geometry (GEOMETRY(srid:5070));\n}\n",
    "geospatial/geography-lines.parquet": "message arrow_schema {\n  optional int64 id;\n"
                                          "  optional binary geometry (GEOGRAPHY(OGC:CRS84,SPHERICAL));\n}\n",
}


@needs_corpus()
@pytest.mark.parametrize("name", sorted(JAVA_CORPUS_TEXT))
def test_corpus_text_matches_parquet_java(name):
    assert str(corpus_schema(name)) == JAVA_CORPUS_TEXT[name]


@needs_corpus()
def test_text_of_impala_map_key_value():
    text = str(corpus_schema("nonnullable.impala.parquet"))
    assert text.startswith("message org.apache.impala.ComplexTypesTbl {\n  required int64 ID;\n")
    assert "  required group Int_Map (MAP) {\n    repeated group map (MAP_KEY_VALUE) {\n" in text


def test_converted_types_become_logical_types():
    schema = S.Schema.from_fields([
        S.primitive("u", "INT32", converted_type=ConvertedType.UINT_16),
        S.primitive("t", "INT64", converted_type=ConvertedType.TIMESTAMP_MILLIS),
        S.primitive("d", "FIXED_LEN_BYTE_ARRAY", converted_type=ConvertedType.DECIMAL, type_length=5,
                    precision=10, scale=3),
        S.primitive("i", "FIXED_LEN_BYTE_ARRAY", converted_type=ConvertedType.INTERVAL, type_length=12),
    ])
    u, t, d, i = schema.leaves
    assert u.logical_type == LogicalType(INTEGER=IntType(bitWidth=16, isSigned=False))
    assert t.logical_type.TIMESTAMP.isAdjustedToUTC and t.logical_type.TIMESTAMP.unit.MILLIS is not None
    assert (d.logical_type.DECIMAL.precision, d.logical_type.DECIMAL.scale) == (10, 3)
    assert i.logical_type is None
    assert str(schema).splitlines()[1:5] == [
        "  optional int32 u (INTEGER(16,false));", "  optional int64 t (TIMESTAMP(MILLIS,true));",
        "  optional fixed_len_byte_array(5) d (DECIMAL(10,3));", "  optional fixed_len_byte_array(12) i (INTERVAL);"]


def test_unknown_logical_type_falls_back():
    element = E(name="x", type=6, repetition_type=1, logicalType=LogicalType(), converted_type=ConvertedType.UTF8)
    (leaf,) = S.Schema.from_elements([E(name="s", num_children=1), element]).leaves
    assert leaf.logical_type.STRING is not None
    assert str(S.Schema.from_elements([E(name="s", num_children=1), E(name="y", type=6, repetition_type=1,
                                                                     logicalType=LogicalType())])) \
        == "message s {\n  optional binary y;\n}\n"


def test_builders_write_what_pyarrow_writes():
    ns = LogicalType(TIMESTAMP=TimestampType(isAdjustedToUTC=True, unit=TimeUnit(NANOS=NanoSeconds())))
    ours = S.Schema.from_fields([
        S.primitive("id", "INT64", "required"),
        S.primitive("name", "BYTE_ARRAY", logical_type="STRING"),
        S.primitive("ts", "INT64", logical_type=ns),
        S.list_("tags", S.primitive("t", "BYTE_ARRAY", logical_type="STRING")),
        S.map_("attrs", S.primitive("k", "BYTE_ARRAY", "required", logical_type="STRING"),
               S.primitive("v", "INT32", logical_type=LogicalType(INTEGER=IntType(bitWidth=8, isSigned=True)))),
        S.group("point", [S.primitive("x", "DOUBLE", "required"), S.primitive("y", "DOUBLE", "required")]),
    ])
    table = pa.table({
        "id": pa.array([1], pa.int64()), "name": pa.array(["a"]), "ts": pa.array([1], pa.timestamp("ns", tz="UTC")),
        "tags": pa.array([["x"]]), "attrs": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int8())),
        "point": pa.array([{"x": 1.0, "y": 2.0}], pa.struct([pa.field("x", pa.float64(), False),
                                                             pa.field("y", pa.float64(), False)])),
    })
    table = table.cast(table.schema.set(0, pa.field("id", pa.int64(), nullable=False)))
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False)
    theirs = S.Schema.from_elements(read_footer(buf.getvalue()).schema)
    assert str(ours) == str(theirs)
    assert ours.to_elements() == theirs.to_elements()
    assert S.Schema.from_elements(ours.to_elements()) == ours


def test_builder_errors():
    with pytest.raises(SchemaError, match="key must be required"):
        S.map_("m", S.primitive("k", "INT32"), None)
    with pytest.raises(SchemaError, match="not repeated"):
        S.list_("l", S.primitive("e", "INT32", "repeated"))
    with pytest.raises(SchemaError, match="unknown physical type"):
        S.primitive("x", "INT33")
    with pytest.raises(SchemaError, match="unknown repetition"):
        S.primitive("x", "INT32", "sometimes")
    with pytest.raises(SchemaError, match="needs parameters"):
        S.primitive("x", "INT32", logical_type="DECIMAL")


def test_projection_of_a_map_key_keeps_its_value_group_whole():
    """A map is kept whole when one of its leaves is selected: a group value
    none of whose leaves is selected keeps all its fields, not none (a group
    of no fields, which no leaf could be read for)."""
    table = pa.table({"m": pa.array([[(b"k", {"a": 1, "b": "x"})], None],
                                    pa.map_(pa.binary(), pa.struct([("a", pa.int64()), ("b", pa.string())])))})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    schema = pc_reader.ParquetFile(buf.getvalue()).schema
    projected = schema.project([("m", "key_value", "key")])
    assert [leaf.dotted_path for leaf in projected.leaves] == [leaf.dotted_path for leaf in schema.leaves]
    # a selected leaf of the value still prunes it
    assert [leaf.dotted_path for leaf in schema.project([("m", "key_value", "value", "b")]).leaves] == [
        "m.key_value.key", "m.key_value.value.b"]
    got = pc_reader.ParquetFile(buf.getvalue()).read(columns=["m.key_value.key"])
    assert got.to_pylist() == table.to_pylist()
