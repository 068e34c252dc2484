"""Arrow-layout arrays: concatenation keeps every slot and offset right."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.arrays import (
    BinaryArray,
    ListArray,
    MapArray,
    PrimitiveArray,
    StructArray,
    concat,
    take_rows,
)


def binary(values):
    lengths = [0 if v is None else len(v) for v in values]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    data = np.frombuffer(b"".join(v or b"" for v in values), dtype=np.uint8)
    validity = None if None not in values else np.array([v is not None for v in values])
    return BinaryArray.of(offsets, data, validity)


def as_list(array):
    valid = array.is_valid()
    if isinstance(array, PrimitiveArray):
        return [v if ok else None for v, ok in zip(array.values.tolist(), valid, strict=True)]
    if isinstance(array, BinaryArray):
        data = array.data.tobytes()
        return [data[array.offsets[i] : array.offsets[i + 1]] if valid[i] else None for i in range(len(array))]
    if isinstance(array, ListArray):
        child = as_list(array.values)
        return [child[array.offsets[i] : array.offsets[i + 1]] if valid[i] else None for i in range(len(array))]
    if isinstance(array, MapArray):
        keys, items = as_list(array.keys), as_list(array.items)
        return [list(zip(keys[array.offsets[i] : array.offsets[i + 1]], items[array.offsets[i] : array.offsets[i + 1]], strict=True))
                if valid[i] else None for i in range(len(array))]
    children = {k: as_list(v) for k, v in array.children.items()}
    return [{k: c[i] for k, c in children.items()} if valid[i] else None for i in range(len(array))]


def test_primitive_and_validity():
    a = PrimitiveArray.of(np.array([1, 2], dtype=np.int64))
    b = PrimitiveArray.of(np.array([3, 0], dtype=np.int64), np.array([True, False]))
    joined = concat([a, b])
    assert as_list(joined) == [1, 2, 3, None]
    assert joined.null_count == 1


def test_binary_offsets_shift():
    joined = concat([binary([b"ab", None]), binary([b"", b"xyz"])])
    assert as_list(joined) == [b"ab", None, b"", b"xyz"]
    assert joined.offsets.dtype == np.int64


def test_lists_of_binary_and_sliced_offsets():
    inner = binary([b"a", b"b", b"c"])
    first = ListArray.of(np.array([0, 2, 2], dtype=np.int64), inner, np.array([True, False]))
    second = ListArray.of(np.array([0, 1, 3], dtype=np.int64), binary([b"d", b"e", None]))
    assert as_list(concat([first, second])) == [[b"a", b"b"], None, [b"d"], [b"e", None]]


def test_structs_and_maps():
    s1 = StructArray(1, {"x": PrimitiveArray.of(np.array([1]))})
    s2 = StructArray(2, {"x": PrimitiveArray.of(np.array([2, 3]))}, validity=np.array([True, False]))
    assert as_list(concat([s1, s2])) == [{"x": 1}, {"x": 2}, None]
    m1 = MapArray.of(np.array([0, 1], dtype=np.int64), binary([b"k"]), PrimitiveArray.of(np.array([7])))
    m2 = MapArray.of(np.array([0, 0, 2], dtype=np.int64), binary([b"p", b"q"]), PrimitiveArray.of(np.array([8, 9])))
    assert as_list(concat([m1, m2])) == [[(b"k", 7)], [], [(b"p", 8), (b"q", 9)]]


def test_mismatched_kinds_and_empty():
    with pytest.raises(TypeError):
        concat([PrimitiveArray.of(np.array([1])), binary([b"a"])])
    with pytest.raises(ValueError):
        concat([])


def test_take_range_then_concat_round_trips():
    from parquet_codec.arrays import take_range

    inner = binary([b"a", b"bb", None, b"dddd", b"e"])
    lists = ListArray.of(np.array([0, 1, 3, 3, 5], dtype=np.int64), inner, np.array([True, True, False, True]))
    whole = as_list(lists)
    for cut in range(len(lists) + 1):
        parts = [take_range(lists, 0, cut), take_range(lists, cut, len(lists))]
        assert as_list(parts[0]) + as_list(parts[1]) == whole
        assert as_list(concat(parts)) == whole


def test_take_range_cuts_the_children_of_lists_and_maps_to_their_entries():
    """A slice of a nested array holds only what its rows reference, offsets
    from 0, so reading a batch costs the batch (to_pylist of each of 3,000
    one-row batches converted every row's entries before)."""
    from parquet_codec.arrays import take_range

    inner = ListArray.of(np.array([0, 2, 2, 3, 6], dtype=np.int64), PrimitiveArray.of(np.arange(6)))
    lists = ListArray.of(np.array([0, 1, 3, 4], dtype=np.int64), inner, np.array([True, True, True]))
    keys = PrimitiveArray.of(np.arange(5))
    maps = MapArray.of(np.array([0, 2, 2, 5], dtype=np.int64), keys, binary([b"a", None, b"c", b"d", b"e"]))
    part = take_range(lists, 1, 2)
    assert part.offsets.tolist() == [0, 2] and len(part.values) == 2
    assert part.values.offsets.tolist() == [0, 0, 1] and part.values.values.values.tolist() == [2]
    assert as_list(part) == [[[], [2]]]
    cut = take_range(maps, 2, 3)
    assert cut.offsets.tolist() == [0, 3] and cut.keys.values.tolist() == [2, 3, 4] and len(cut.items) == 3
    assert as_list(take_range(maps, 1, 2)) == [[]]


def test_take_rows_gathers_every_array_kind():
    pa = pytest.importorskip("pyarrow")

    table = pc.Table.from_arrow(pa.table({
        "xs": [[1, 2], None, [], [3]], "s": [{"a": 1, "b": "x"}, None, {"a": None, "b": "yy"}, {"a": 4, "b": None}],
        "m": pa.array([[("k", 1)], None, [], [("z", None), ("w", 2)]], pa.map_(pa.string(), pa.int64())),
        "b": ["p", None, "qq", ""], "n": [1.5, None, 3.0, 4.0]}))
    order = np.array([3, 1, 0, 3, 2])
    rows = table.to_pylist()
    gathered = pc.Table(table.schema, {c.name: take_rows(c.array, order) for c in table.columns}, len(order),
                        origin=table.origin)
    assert gathered.to_pylist() == [rows[i] for i in order]
