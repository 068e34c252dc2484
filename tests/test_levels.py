"""Dremel shredding and assembly (parquet_codec.levels).

Expected levels are worked out by hand from the definitions in the format's
"Nested Encoding" section and the Dremel paper's Document example; pyarrow is
the oracle for the Arrow layout (offsets and validity) of assembled arrays.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_codec import schema as S
from parquet_codec.arrays import Array, BinaryArray, ListArray, MapArray, PrimitiveArray, StructArray
from parquet_codec.errors import CorruptFileError, DecodingError, ParquetError, SchemaError
from parquet_codec.format.ttypes import ConvertedType, ListType, LogicalType, StringType, Type
from parquet_codec.levels import LeafData, assemble, check_leaf, num_rows, row_starts, shred
from parquet_codec.nested import Field

# ---------------------------------------------------------------------------
# Helpers: Python values <-> Arrays, following pyarrow's to_pylist conventions
# (maps as lists of (key, value) tuples). Test code, so plain Python loops.


def _is_string(node) -> bool:
    lt = node.logical_type
    return lt is not None and lt.STRING is not None


def to_py(field: Field, array: Array) -> list:
    valid = array.is_valid()
    if field.kind == "primitive":
        if isinstance(array, BinaryArray):
            raw = [bytes(array.data[array.offsets[i]:array.offsets[i + 1]]) for i in range(len(array))]
            if _is_string(field.node):
                raw = [b.decode() for b in raw]
        elif array.values.ndim == 2:
            raw = [bytes(row) for row in array.values]
        else:
            raw = array.values.tolist()
        return [v if ok else None for v, ok in zip(raw, valid, strict=True)]
    if field.kind == "struct":
        cols = {c.name: to_py(c, array.children[c.name]) for c in field.children}
        return [{c.name: cols[c.name][i] for c in field.children} if valid[i] else None
                for i in range(len(array))]
    off = array.offsets
    if field.kind == "list":
        inner = to_py(field.children[0], array.values)
        return [inner[off[i]:off[i + 1]] if valid[i] else None for i in range(len(array))]
    keys = to_py(field.children[0], array.keys)
    if array.items is None:
        return [keys[off[i]:off[i + 1]] if valid[i] else None for i in range(len(array))]
    items = to_py(field.children[1], array.items)
    return [list(zip(keys[off[i]:off[i + 1]], items[off[i]:off[i + 1]], strict=True)) if valid[i] else None
            for i in range(len(array))]


def _validity(values: list) -> np.ndarray | None:
    mask = np.array([v is not None for v in values], dtype=bool)
    return None if mask.all() else mask


def _leaf_from_py(field: Field, values: list) -> Array:
    node = field.node
    validity = _validity(values)
    if node.physical_type == 6:  # BYTE_ARRAY
        raw = [(v.encode() if isinstance(v, str) else v) if v is not None else b"" for v in values]
        offsets = np.zeros(len(raw) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in raw], out=offsets[1:])
        return BinaryArray.of(offsets, np.frombuffer(b"".join(raw), dtype=np.uint8), validity)
    if node.physical_type == 7:  # FIXED_LEN_BYTE_ARRAY
        width = node.type_length
        raw = b"".join(v if v is not None else bytes(width) for v in values)
        return PrimitiveArray.of(np.frombuffer(raw, dtype=np.uint8).reshape(len(values), width), validity)
    dtype = {0: np.bool_, 1: np.int32, 2: np.int64, 4: np.float32, 5: np.float64}[node.physical_type]
    return PrimitiveArray.of(np.array([v if v is not None else 0 for v in values], dtype=dtype), validity)


def from_py(field: Field, values: list) -> Array:
    if field.kind == "primitive":
        return _leaf_from_py(field, values)
    validity = _validity(values)
    if field.kind == "struct":
        children = {c.name: from_py(c, [v[c.name] if v is not None else None for v in values])
                    for c in field.children}
        return StructArray(len(values), children, validity=validity)
    lengths = [len(v) if v is not None else 0 for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = [e for v in values if v is not None for e in v]
    if field.kind == "list":
        return ListArray.of(offsets, from_py(field.children[0], flat), validity)
    if len(field.children) == 1:  # a map without value field: lists of keys
        return MapArray.of(offsets, from_py(field.children[0], flat), None, validity)
    keys = from_py(field.children[0], [kv[0] for kv in flat])
    items = from_py(field.children[1], [kv[1] for kv in flat])
    return MapArray.of(offsets, keys, items, validity)


def roundtrip(field: Field, values: list) -> Array:
    leaves = shred(field, from_py(field, values))
    assert set(leaves) == {n.path for n in field.leaf_nodes()}
    out = assemble(field, leaves)
    assert to_py(field, out) == values
    return out


def levels(field: Field, values: list) -> dict[str, tuple[list | None, list | None]]:
    out = shred(field, from_py(field, values))
    return {".".join(p): (None if d.def_levels is None else d.def_levels.tolist(),
                          None if d.rep_levels is None else d.rep_levels.tolist()) for p, d in out.items()}


def _i64(values) -> PrimitiveArray:
    return PrimitiveArray.of(np.array(values, dtype=np.int64))


def _lv(values) -> np.ndarray:
    return np.array(values, dtype=np.int16)


INT = lambda name, rep="optional": S.primitive(name, "INT64", rep)  # noqa: E731
STR = lambda name, rep="optional": S.primitive(name, "BYTE_ARRAY", rep, logical_type="STRING")  # noqa: E731


def one_field(subtree) -> Field:
    return S.Schema.from_fields([subtree]).fields[0]


# ---------------------------------------------------------------------------
# The Dremel paper's Document example (Melnik et al. 2010, Figures 2 and 3)


@pytest.fixture(scope="module")
def document() -> S.Schema:
    return S.Schema.from_fields([
        INT("DocId", "required"),
        S.group("Links", [INT("Backward", "repeated"), INT("Forward", "repeated")], "optional"),
        S.group("Name", [
            S.group("Language", [STR("Code", "required"), STR("Country", "optional")], "repeated"),
            STR("Url", "optional"),
        ], "repeated"),
    ], name="Document")


R1 = {
    "DocId": 10,
    "Links": {"Backward": [], "Forward": [20, 40, 60]},
    "Name": [
        {"Language": [{"Code": "en-us", "Country": "us"}, {"Code": "en", "Country": None}], "Url": "http://A"},
        {"Language": [], "Url": "http://B"},
        {"Language": [{"Code": "en-gb", "Country": "gb"}], "Url": None},
    ],
}
R2 = {"DocId": 20, "Links": {"Backward": [10, 30], "Forward": [80]}, "Name": [{"Language": [], "Url": "http://C"}]}

# (values, repetition levels, definition levels) per column, as in the paper's Figure 3.
DREMEL_COLUMNS = {
    "DocId": ([10, 20], None, None),
    "Links.Backward": ([10, 30], [0, 0, 1], [1, 2, 2]),
    "Links.Forward": ([20, 40, 60, 80], [0, 1, 1, 0], [2, 2, 2, 2]),
    "Name.Language.Code": (["en-us", "en", "en-gb"], [0, 2, 1, 1, 0], [2, 2, 1, 2, 1]),
    "Name.Language.Country": (["us", "gb"], [0, 2, 1, 1, 0], [3, 2, 1, 3, 1]),
    "Name.Url": (["http://A", "http://B", "http://C"], [0, 1, 1, 0], [2, 2, 1, 2]),
}


def test_dremel_document_levels(document):
    assert [(n.dotted_path, n.max_definition_level, n.max_repetition_level) for n in document.leaves] == [
        ("DocId", 0, 0), ("Links.Backward", 2, 1), ("Links.Forward", 2, 1),
        ("Name.Language.Code", 2, 2), ("Name.Language.Country", 3, 2), ("Name.Url", 2, 1)]
    got = {}
    for field in document.fields:
        for path, leaf in shred(field, from_py(field, [R1[field.name], R2[field.name]])).items():
            got[".".join(path)] = leaf
    for col, (values, reps, defs) in DREMEL_COLUMNS.items():
        leaf = got[col]
        assert (None if leaf.rep_levels is None else leaf.rep_levels.tolist()) == reps, col
        assert (None if leaf.def_levels is None else leaf.def_levels.tolist()) == defs, col
        node = document.leaf(col)
        as_py = to_py(Field(col, "primitive", False, node, (), 0, 0), leaf.values)
        assert as_py == values, col


def test_dremel_document_assembly(document):
    leaves = {}
    for col, (values, reps, defs) in DREMEL_COLUMNS.items():
        if isinstance(values[0], str):
            data = [v.encode() for v in values]
            offsets = np.concatenate(([0], np.cumsum([len(b) for b in data])))
            arr = BinaryArray.of(offsets, np.frombuffer(b"".join(data), np.uint8))
        else:
            arr = _i64(values)
        n = len(reps) if reps is not None else len(values)
        leaves[tuple(col.split("."))] = LeafData(None if defs is None else _lv(defs),
                                                 None if reps is None else _lv(reps), arr, n)
    for field in document.fields:
        assert to_py(field, assemble(field, leaves)) == [R1[field.name], R2[field.name]]


# ---------------------------------------------------------------------------
# Hand-computed levels for each list / map / struct nullability combination


@pytest.mark.parametrize("list_rep, elem_rep, data, expected", [
    ("optional", "optional", [[1, None], [], None, [3]], ([3, 2, 1, 0, 3], [0, 1, 0, 0, 0])),
    ("optional", "required", [[1, 2], [], None], ([2, 2, 1, 0], [0, 1, 0, 0])),
    ("required", "optional", [[None], [], [4, 5]], ([1, 0, 2, 2], [0, 0, 0, 1])),
    ("required", "required", [[1, 2], [], [3]], ([1, 1, 0, 1], [0, 1, 0, 0])),
])
def test_list_levels(list_rep, elem_rep, data, expected):
    field = one_field(S.list_("l", INT("x", elem_rep), list_rep))
    assert levels(field, data) == {"l.list.element": expected}
    roundtrip(field, data)


def test_nested_list_levels():
    field = one_field(S.list_("a", S.list_("b", INT("x"))))
    data = [[[1, 2], None, []], None, [], [[None]]]
    # max def: a(1) list(2) b(3) list(4) x(5); max rep 2
    assert levels(field, data) == {"a.list.element.list.element": ([5, 5, 2, 3, 0, 1, 4], [0, 2, 1, 1, 0, 0, 0])}
    roundtrip(field, data)


def test_map_levels():
    field = one_field(S.map_("m", STR("k", "required"), INT("v")))
    data = [[("a", 1), ("b", None)], None, []]
    assert levels(field, data) == {"m.key_value.key": ([2, 2, 0, 1], [0, 1, 0, 0]),
                                   "m.key_value.value": ([3, 2, 0, 1], [0, 1, 0, 0])}
    out = roundtrip(field, data)
    assert isinstance(out, MapArray) and out.offsets.tolist() == [0, 2, 2, 2]
    assert out.validity.tolist() == [True, False, True]


def test_required_map_of_required_values():
    field = one_field(S.map_("m", INT("k", "required"), INT("v", "required"), "required"))
    data = [[(1, 2)], [], [(3, 4), (5, 6)]]
    assert levels(field, data) == {"m.key_value.key": ([1, 0, 1, 1], [0, 0, 0, 1]),
                                   "m.key_value.value": ([1, 0, 1, 1], [0, 0, 0, 1])}
    roundtrip(field, data)


@pytest.mark.parametrize("struct_rep, child_rep, data, expected", [
    ("optional", "optional", [{"x": 1}, {"x": None}, None], [2, 1, 0]),
    ("optional", "required", [{"x": 1}, None], [1, 0]),
    ("required", "optional", [{"x": None}, {"x": 2}], [0, 1]),
    ("required", "required", [{"x": 1}], None),
])
def test_struct_levels(struct_rep, child_rep, data, expected):
    field = one_field(S.group("s", [INT("x", child_rep)], struct_rep))
    assert levels(field, data) == {"s.x": (expected, None)}
    out = roundtrip(field, data)
    assert isinstance(out, StructArray)
    assert (out.validity is None) == (None not in data)


def test_list_of_structs_with_lists():
    field = one_field(S.list_("l", S.group("s", [INT("a"), S.list_("b", STR("x"))])))
    data = [[{"a": 1, "b": ["p", None]}, None, {"a": None, "b": None}], None, [], [{"a": 3, "b": []}]]
    roundtrip(field, data)
    got = levels(field, data)
    # a: l(1) list(2) s(3) a(4); b.x: l(1) list(2) s(3) b(4) list(5) x(6)
    assert got["l.list.element.a"] == ([4, 2, 3, 0, 1, 4], [0, 1, 1, 0, 0, 0])
    assert got["l.list.element.b.list.element"] == ([6, 5, 2, 3, 0, 1, 4], [0, 2, 1, 1, 0, 0, 0])


def test_legacy_repeated_fields_roundtrip():
    # `repeated int32 x` and `repeated group g {...}` outside any LIST: non-null lists.
    schema = S.Schema.from_elements(S.Schema.from_fields([
        S.primitive("x", "INT32", "repeated"),
        S.group("g", [INT("a", "required"), STR("b")], "repeated"),
    ]).to_elements())
    fx, fg = schema.fields
    assert levels(fx, [[1, 2], []]) == {"x": ([1, 1, 0], [0, 1, 0])}
    roundtrip(fx, [[1, 2], [], [3]])
    roundtrip(fg, [[{"a": 1, "b": None}, {"a": 2, "b": "z"}], []])


def test_two_level_list_and_map_without_value():
    lst = one_field(S.group("l", [S.primitive("e", "INT32", "repeated")], "optional",
                            logical_type=LogicalType(LIST=ListType())))
    assert levels(lst, [[1], None, []]) == {"l.e": ([2, 0, 1], [0, 0, 0])}
    roundtrip(lst, [[1, 2], None, []])
    keys_only = one_field(S.map_("m", INT("k", "required"), None, "required"))
    out = roundtrip(keys_only, [[1, 2], []])
    assert isinstance(out, MapArray) and out.items is None


def test_fixed_len_and_strings_with_nulls():
    field = one_field(S.list_("l", S.primitive("f", "FIXED_LEN_BYTE_ARRAY", "optional", type_length=3)))
    out = roundtrip(field, [[b"abc", None], None, [b"xyz"]])
    assert out.values.values.shape == (3, 3)
    assert out.values.values[1].tolist() == [0, 0, 0]  # null slots hold zeros
    s = one_field(STR("s"))
    out = roundtrip(s, ["a", None, "", "bcd"])
    assert out.offsets.tolist() == [0, 1, 1, 1, 4]  # nulls are empty ranges


def test_flat_required_column_is_zero_copy():
    field = one_field(INT("x", "required"))
    values = _i64([1, 2, 3])
    leaves = shred(field, values)
    assert leaves[("x",)].def_levels is None and leaves[("x",)].rep_levels is None
    assert assemble(field, leaves) is leaves[("x",)].values
    assert leaves[("x",)].values.values is values.values


def test_empty_input():
    field = one_field(S.list_("l", S.group("s", [INT("a"), STR("b")])))
    out = roundtrip(field, [])
    assert len(out) == 0 and out.offsets.tolist() == [0]


def test_row_starts_and_num_rows():
    reps = _lv([0, 1, 1, 0, 0, 2, 1])
    assert row_starts(reps, 7).tolist() == [0, 3, 4]
    assert row_starts(None, 3).tolist() == [0, 1, 2]
    assert num_rows(LeafData(None, reps, _i64(range(7)), 7)) == 3
    assert num_rows(LeafData(None, None, _i64(range(5)), 5)) == 5


def test_single_leaf_assembly_gives_row_count():
    field = one_field(S.list_("l", INT("x")))
    leaf = LeafData(_lv([3, 3, 0, 1, 2]), _lv([0, 1, 0, 0, 0]), _i64([7, 8]), 5)
    arr = assemble(field, {("l", "list", "element"): leaf})
    assert len(arr) == 4 and arr.offsets.tolist() == [0, 2, 2, 2, 3]  # [7, 8], None, [], [None]
    assert arr.validity.tolist() == [True, False, True, True]
    assert arr.values.validity.tolist() == [True, True, False]


# ---------------------------------------------------------------------------
# Malformed level streams


def _list_leaf(defs, reps, values, n=None):
    n = len(defs) if n is None else n
    return LeafData(None if defs is None else _lv(defs), None if reps is None else _lv(reps), _i64(values), n)


LIST_PATH = ("l", "list", "element")


@pytest.mark.parametrize("leaf, error, text", [
    (_list_leaf([3, 3], [1, 1], [1, 2]), DecodingError, "repetition levels of column 'l.list.element' start at 1"),
    (_list_leaf([4, 3], [0, 1], [1]), DecodingError, "definition level 4"),
    (_list_leaf([3, 3], [0, 2], [1, 2]), DecodingError, "repetition level 2"),
    (_list_leaf([3, -1], [0, 0], [1]), DecodingError, "definition level -1"),
    (_list_leaf([3, 3, 0], [0, 1, 0], [1]), DecodingError, "2 non-null slots but 1 values"),
    (_list_leaf([3, 0, 3], [0, 0, 0], [1, 2, 3]), DecodingError, "2 non-null slots but 3 values"),
    (_list_leaf([3, 1], [0, 1], [1]), DecodingError, "repeats a list that is absent"),
    (_list_leaf([0, 3], [0, 1], [1]), DecodingError, "previous value did not open"),
    (_list_leaf(None, [0, 1], [1, 2], 2), DecodingError, "no definition levels"),
    (_list_leaf([3, 3], None, [1, 2], 2), DecodingError, "no repetition levels"),
    (_list_leaf([3, 3], [0, 1], [1, 2], 3), DecodingError, "2 definition levels for 3 values"),
])
def test_malformed_level_streams(leaf, error, text):
    field = one_field(S.list_("l", INT("x")))
    with pytest.raises(error, match=text):
        assemble(field, {LIST_PATH: leaf})
    with pytest.raises(ParquetError):
        check_leaf(field.element.node, leaf)


def test_columns_of_a_struct_disagree_on_rows():
    field = one_field(S.group("s", [INT("a", "required"), INT("b", "required")], "required"))
    leaves = {("s", "a"): LeafData(None, None, _i64([1, 2, 3]), 3), ("s", "b"): LeafData(None, None, _i64([1, 2]), 2)}
    with pytest.raises(CorruptFileError, match="disagree"):
        assemble(field, leaves)


def test_columns_of_a_list_disagree_on_entries():
    field = one_field(S.list_("l", S.group("s", [INT("a", "required"), INT("b", "required")], "required")))
    a = LeafData(_lv([2, 2]), _lv([0, 1]), _i64([1, 2]), 2)
    b = LeafData(_lv([2, 1]), _lv([0, 0]), _i64([1]), 2)
    with pytest.raises(CorruptFileError):
        assemble(field, {("l", "list", "element", "a"): a, ("l", "list", "element", "b"): b})


def test_missing_leaf_and_wrong_shapes():
    field = one_field(S.group("s", [INT("a"), INT("b")]))
    with pytest.raises(SchemaError, match="no level data"):
        assemble(field, {("s", "a"): LeafData(_lv([2]), None, _i64([1]), 1)})
    with pytest.raises(SchemaError, match="is a struct"):
        shred(field, _i64([1]))
    req = one_field(INT("x", "required"))
    with pytest.raises(SchemaError, match="not nullable"):
        shred(req, PrimitiveArray.of(np.array([1, 2]), np.array([True, False])))


# ---------------------------------------------------------------------------
# Random schemas and data: round trips, and pyarrow as the layout oracle

def _leaf_types():
    return st.sampled_from(["int64", "int32", "string", "double", "bool", "fixed3"])


def _types():
    return st.recursive(
        _leaf_types().map(lambda t: ("leaf", t)),
        lambda inner: st.one_of(
            st.lists(st.tuples(inner, st.booleans()), min_size=1, max_size=3).map(lambda cs: ("struct", cs)),
            st.tuples(inner, st.booleans(), st.integers(0, 2)).map(lambda t: ("list",) + t),
            st.tuples(st.sampled_from(["int64", "string"]), inner, st.booleans()).map(lambda t: ("map",) + t),
        ),
        max_leaves=6,
    )


_PHYSICAL = {"int64": ("INT64", None, None), "int32": ("INT32", None, None), "string": ("BYTE_ARRAY", "STRING", None),
             "double": ("DOUBLE", None, None), "bool": ("BOOLEAN", None, None), "fixed3": ("FIXED_LEN_BYTE_ARRAY", None, 3)}


def _subtree(name: str, typ, nullable: bool, member: bool = True):
    """Schema subtree of a random type; ``member``: a struct member or top-level
    field, the only places a bare repeated field may stand."""
    rep = "optional" if nullable else "required"
    if typ[0] == "leaf":
        phys, logical, length = _PHYSICAL[typ[1]]
        return S.primitive(name, phys, rep, logical_type=logical, type_length=length)
    if typ[0] == "struct":
        return S.group(name, [_subtree(f"f{i}", t, n) for i, (t, n) in enumerate(typ[1])], rep)
    if typ[0] == "list":
        elem, elem_nullable, shape = typ[1], typ[2], typ[3]
        legacy_ok = not elem_nullable and elem[0] in ("leaf", "struct")
        if shape == 1 and legacy_ok and not nullable and member:  # bare repeated field
            return _as_repeated(_subtree(name, elem, False))
        if shape == 2 and legacy_ok and elem[0] == "leaf":  # 2-level LIST, rule 1
            return S.group(name, [_as_repeated(_subtree("array", elem, False))], rep,
                           logical_type=LogicalType(LIST=ListType()))
        return S.list_(name, _subtree("element", elem, elem_nullable, False), rep)
    key = S.primitive("key", *(("INT64",) if typ[1] == "int64" else ("BYTE_ARRAY",)), "required",
                      logical_type=None if typ[1] == "int64" else "STRING")
    return S.map_(name, key, _subtree("value", typ[2], typ[3], False), rep)


def _as_repeated(subtree):
    subtree[0].repetition_type = S.REPEATED
    return subtree


def _leaf_values(kind: str):
    return {"int64": st.integers(-(2**63), 2**63 - 1), "int32": st.integers(-(2**31), 2**31 - 1),
            "string": st.text(max_size=5), "double": st.floats(allow_nan=False),
            "bool": st.booleans(), "fixed3": st.binary(min_size=3, max_size=3)}[kind]


def _values(field: Field):
    if field.kind == "primitive":
        kind = next(k for k, v in _PHYSICAL.items()
                    if v[0] == Type._VALUES_TO_NAMES[field.node.physical_type]
                    and (v[1] == "STRING") == _is_string(field.node))
        base = _leaf_values(kind)
    elif field.kind == "struct":
        base = st.fixed_dictionaries({c.name: _values(c) for c in field.children})
    elif field.kind == "list":
        base = st.lists(_values(field.children[0]), max_size=3)
    else:
        base = st.lists(st.tuples(_values(field.children[0]), _values(field.children[1])), max_size=3)
    return st.one_of(st.none(), base) if field.nullable else base


def _arrow_type(field: Field) -> pa.DataType:
    if field.kind == "primitive":
        node = field.node
        return {0: pa.bool_(), 1: pa.int32(), 2: pa.int64(), 5: pa.float64(),
                7: pa.binary(node.type_length or 0)}.get(node.physical_type) or (
            pa.string() if _is_string(node) else pa.binary())
    if field.kind == "struct":
        return pa.struct([pa.field(c.name, _arrow_type(c), c.nullable) for c in field.children])
    if field.kind == "list":
        e = field.children[0]
        return pa.list_(pa.field(e.name, _arrow_type(e), e.nullable))
    k, v = field.children
    return pa.map_(pa.field("key", _arrow_type(k), False), pa.field("value", _arrow_type(v), v.nullable))


def compare_with_arrow(field: Field, mine: Array, theirs: pa.Array, care: np.ndarray) -> None:
    """Offsets must match exactly; validity and values where every ancestor is valid."""
    assert len(mine) == len(theirs)
    valid = mine.is_valid()
    np.testing.assert_array_equal(valid[care], theirs.is_valid().to_numpy(zero_copy_only=False)[care])
    care = care & valid
    if field.kind == "primitive":
        assert [v for v, c in zip(to_py(field, mine), care, strict=True) if c] == \
               [v for v, c in zip(theirs.to_pylist(), care, strict=True) if c]
        return
    if field.kind == "struct":
        for i, child in enumerate(field.children):
            compare_with_arrow(child, mine.children[child.name], theirs.field(i), care)
        return
    offsets = theirs.offsets.to_numpy()
    np.testing.assert_array_equal(mine.offsets, offsets)
    inner = np.repeat(care, np.diff(offsets))
    if field.kind == "list":
        compare_with_arrow(field.children[0], mine.values, theirs.values, inner)
    else:
        compare_with_arrow(field.children[0], mine.keys, theirs.keys, inner)
        compare_with_arrow(field.children[1], mine.items, theirs.items, inner)


@st.composite
def _field_and_data(draw):
    typ = draw(_types())
    nullable = draw(st.booleans())
    field = one_field(_subtree("top", typ, nullable))
    data = draw(st.lists(_values(field), max_size=8))
    return field, data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_field_and_data())
def test_roundtrip_random_nested(case):
    field, data = case
    out = roundtrip(field, data)
    theirs = pa.array(data, type=_arrow_type(field))
    compare_with_arrow(field, out, theirs, np.ones(len(data), dtype=bool))
    # every leaf's stream is well formed and holds one record per row
    for path, leaf in shred(field, from_py(field, data)).items():
        node = next(n for n in field.leaf_nodes() if n.path == path)
        check_leaf(node, leaf)
        assert num_rows(leaf) == len(data)
        assert len(row_starts(leaf.rep_levels, leaf.num_values)) == len(data)


def test_converted_type_only_schema_roundtrip():
    # A file annotating LIST and UTF8 through converted types only.
    elements = S.Schema.from_fields([S.list_("l", STR("x"))]).to_elements()
    for e in elements:
        if e.logicalType is not None:
            assert e.converted_type in (ConvertedType.LIST, ConvertedType.UTF8)
            e.logicalType = None
    field = S.Schema.from_elements(elements).fields[0]
    assert field.kind == "list" and field.element.node.logical_type == LogicalType(STRING=StringType())
    roundtrip(field, [["a", None], None])


def test_lists_reached_matches_searchsorted():
    from parquet_codec.levels import _lists_reached

    rng = np.random.default_rng(0)
    for lists in range(7):  # comparisons up to 4 lists, searchsorted beyond
        entries = np.sort(rng.choice(np.arange(1, 12), lists, replace=False))
        defs = rng.integers(0, 13, 500).astype(np.int16)
        np.testing.assert_array_equal(_lists_reached(entries, defs), np.searchsorted(entries, defs, side="right"))


def test_list_whose_repeated_group_is_a_map():
    """Impala's legacy files: `LIST > repeated group array (MAP) > repeated group map
    (MAP) > key, value` is a list of required maps (pyarrow reads it so)."""
    E = S.SchemaElement
    schema = S.Schema.from_elements([
        E(name="schema", num_children=1),
        E(name="l", repetition_type=0, num_children=1, converted_type=ConvertedType.LIST),
        E(name="array", repetition_type=2, num_children=1, converted_type=ConvertedType.MAP),
        E(name="map", repetition_type=2, num_children=2, converted_type=ConvertedType.MAP),
        E(name="key", type=Type.BYTE_ARRAY, repetition_type=0, converted_type=ConvertedType.UTF8),
        E(name="value", type=Type.INT32, repetition_type=1),
    ])  # fmt: skip
    (field,) = schema.fields
    element = field.element
    assert element.kind == "map" and not element.nullable and element.name == "array"
    assert levels(field, [[[("a", 2), ("b", None)], []], []])["l.array.map.value"] == ([3, 2, 1, 0], [0, 2, 1, 0])
    out = roundtrip(field, [[[("a", 2), ("b", None)], []], [], [[("c", 5)]]])
    assert isinstance(out.values, MapArray)


def test_a_struct_with_two_fields_of_one_name_is_refused():
    """A StructArray keys its children by name: one would stand in for the other."""
    from parquet_codec.chunk_reader import empty_leaf
    from parquet_codec.errors import UnsupportedError
    from parquet_codec.format.ttypes import FieldRepetitionType, SchemaElement
    from parquet_codec.schema import Schema

    required = FieldRepetitionType.REQUIRED
    schema = Schema.from_elements([
        SchemaElement(name="schema", num_children=1),
        SchemaElement(name="s", repetition_type=required, num_children=2),
        SchemaElement(name="a", type=Type.INT32, repetition_type=required),
        SchemaElement(name="a", type=Type.INT64, repetition_type=required),
    ])
    field = schema.fields[0]
    leaves = {node.path: empty_leaf(node) for node in field.leaf_nodes()}
    with pytest.raises(UnsupportedError, match="'s' has 2 fields named 'a'"):
        assemble(field, leaves, num_rows=0)


def _strings(*items: str | None) -> BinaryArray:
    raw = [b"" if s is None else s.encode() for s in items]
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in raw])])
    validity = None if None not in items else np.array([s is not None for s in items])
    return BinaryArray(len(raw), offsets, np.frombuffer(b"".join(raw), dtype=np.uint8), validity=validity)


def _texts(array: BinaryArray) -> list[str]:
    raw, offsets = np.asarray(array.data).tobytes(), np.asarray(array.offsets).tolist()
    return [raw[a:b].decode() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


def test_merged_dictionaries_list_entries_as_pyarrow_chunks_do():
    """Dictionary entries over parts in order: each part's pages; a part without
    pages that a later part with pages follows lists its distinct values first
    (pyarrow's dictionary for that plain chunk); parts after the last page add nothing."""
    from parquet_codec.levels import merged_dictionaries

    page_a, page_b = _strings("p", "q"), _strings("q", "p")
    parts = [([], _strings("z", None, "y", "z")), ([page_a], _strings("q")), ([], _strings("x")),
             ([page_a], _strings("p")), ([page_b], _strings("p")), ([], _strings("w"))]
    merged = merged_dictionaries(parts)
    assert [_texts(a) for a in merged] == [["z", "y"], ["p", "q"], ["x"], ["q", "p"]]
    assert merged[1] is page_a and merged[3] is page_b
    assert merged_dictionaries([([], _strings("a")), ([], _strings("b"))]) == []
