"""Unit tests of the minimal flatbuffer reader and builder."""

from __future__ import annotations

import struct

import pytest

from parquet_codec.errors import MetadataError
from parquet_codec.flatbuffers import Builder, Reader


def _root(buf: bytes, **kwargs) -> object:
    return Reader(buf, **kwargs).root()


def test_scalars_round_trip_with_defaults_for_absent_slots():
    b = Builder()
    formats = {0: ("b", -5), 1: ("B", 250), 2: ("?", True), 3: ("h", -300), 4: ("H", 60000),
               5: ("i", -70000), 6: ("I", 4_000_000_000), 7: ("q", -(2**40)), 8: ("Q", 2**63), 9: ("d", 1.5),
               10: ("f", 0.25)}  # fmt: skip
    buf = b.finish(b.create_table(formats))
    t = _root(buf)
    for slot, (fmt, value) in formats.items():
        assert t.scalar(slot, fmt, 0) == value
    assert t.scalar(11, "i", 42) == 42  # past the vtable: an older writer, default applies
    assert (
        t.string(11) is None and t.table(11) is None and t.tables(11) is None and t.scalars(11, "i") is None
    )


def test_scalars_are_aligned_to_their_size():
    b = Builder()
    b.create_string("x")  # shift the current position off any alignment
    ref = b.create_table({0: ("B", 1), 1: ("q", 7), 2: ("h", 3), 3: ("i", 9)})
    buf = b.finish(ref)
    assert len(buf) % 8 == 0
    t = _root(buf)
    assert t.pos % 4 == 0 and t.vtable % 2 == 0
    for slot, size in ((0, 1), (1, 8), (2, 2), (3, 4)):
        assert t.field_position(slot, size) % size == 0


def test_strings_and_vectors():
    b = Builder()
    s = b.create_string("héllo")
    e = b.create_string("")
    raw = b.create_string(b"\xff\x00")
    v8 = b.create_scalar_vector("b", [1, -2, 3])
    v64 = b.create_scalar_vector("q", [2**40, -1])
    empty = b.create_scalar_vector("i", [])
    buf = b.finish(b.create_table(offsets={0: s, 1: e, 2: raw, 3: v8, 4: v64, 5: empty}))
    t = _root(buf)
    assert t.string(0) == "héllo".encode()
    assert t.string(1) == b"" and t.string(2) == b"\xff\x00"
    assert t.scalars(3, "b") == [1, -2, 3]
    assert t.scalars(4, "q") == [2**40, -1]
    assert t.field_position(4, 4) is not None
    first, n = t.reader.vector_at(t.field_position(4, 4), 8)
    assert n == 2 and first % 8 == 0
    assert t.scalars(5, "i") == []
    # strings end with a NUL that is not counted
    pos = t.reader.uoffset(t.field_position(0, 4))
    assert buf[pos + 4 + 6] == 0


def test_surrogateescape_strings_encode_to_the_original_bytes():
    b = Builder()
    buf = b.finish(b.create_table(offsets={0: b.create_string(b"\xfe".decode("utf-8", "surrogateescape"))}))
    assert _root(buf).string(0) == b"\xfe"


def test_vector_of_tables_and_union():
    b = Builder()
    kids = [b.create_table({0: ("i", i)}) for i in range(5)]
    vec = b.create_table_vector(kids)
    member = b.create_table({0: ("h", 2)})
    buf = b.finish(b.create_table({1: ("B", 9)}, {0: vec, 2: member}))
    t = _root(buf)
    children = t.tables(0)
    assert [c.scalar(0, "i", -1) for c in children] == list(range(5))
    assert all(c.depth == 1 for c in children)
    type_id, table = t.union(1)
    assert type_id == 9 and table.scalar(0, "h", 0) == 2
    b = Builder()
    assert _root(b.finish(b.create_table())).union(0) == (0, None)


def test_empty_table():
    b = Builder()
    t = _root(b.finish(b.create_table()))
    assert t.vt_size == 4 and t.inline_size == 4


def test_positions_are_absolute_within_a_larger_buffer():
    b = Builder()
    inner = b.finish(b.create_table({0: ("i", 77)}, {1: b.create_string("abc")}))
    data = b"PREFIX!!" + inner + b"tail"
    t = Reader(data, 8, 8 + len(inner)).root()
    assert t.pos >= 8 and t.scalar(0, "i", 0) == 77 and t.string(1) == b"abc"
    with pytest.raises(MetadataError, match="outside"):
        Reader(data, 8, len(data) + 1)


def _patched(buf: bytes, pos: int, fmt: str, value: int) -> bytes:
    out = bytearray(buf)
    struct.pack_into("<" + fmt, out, pos, value)
    return bytes(out)


def _sample() -> tuple[bytes, object]:
    b = Builder()
    vec = b.create_table_vector([b.create_table({0: ("i", 1)})])
    buf = b.finish(b.create_table({1: ("i", 5)}, {0: b.create_string("name"), 2: vec}))
    return buf, _root(buf)


def test_root_offset_errors():
    with pytest.raises(MetadataError, match="outside"):
        Reader(b"\x01\x00").root()
    with pytest.raises(MetadataError, match="past the end"):
        Reader(struct.pack("<I", 100) + bytes(8)).root()
    with pytest.raises(MetadataError, match="zero"):
        Reader(bytes(8)).root()


def test_zero_offset_is_a_self_reference():
    buf, t = _sample()
    with pytest.raises(MetadataError, match=r"zero \(points at itself\)"):
        _root(_patched(buf, t.field_position(0, 4), "I", 0)).string(0)


def test_offset_outside_buffer():
    buf, t = _sample()
    with pytest.raises(MetadataError, match="past the end"):
        _root(_patched(buf, t.field_position(2, 4), "I", 0xFFFFFFF0)).tables(2)


def test_vtable_errors():
    buf, t = _sample()
    with pytest.raises(MetadataError, match="vtable"):
        _root(_patched(buf, t.pos, "i", -(2**31)))
    with pytest.raises(MetadataError, match="invalid size"):
        _root(_patched(buf, t.vtable, "H", 3))
    with pytest.raises(MetadataError, match="invalid table size"):
        _root(_patched(buf, t.vtable + 2, "H", 2))
    with pytest.raises(MetadataError, match="outside"):
        _root(_patched(buf, t.vtable, "H", 0xFFFE))
    # a field offset beyond the table's inline size
    with pytest.raises(MetadataError, match="lies outside the table"):
        _root(_patched(buf, t.vtable + 4 + 2, "H", t.inline_size)).scalar(1, "i", 0)


def test_string_and_vector_lengths_are_checked_before_reading():
    buf, t = _sample()
    spos = t.reader.uoffset(t.field_position(0, 4))
    with pytest.raises(MetadataError, match="outside"):
        _root(_patched(buf, spos, "I", 0xFFFFFFFF)).string(0)
    vpos = t.reader.uoffset(t.field_position(2, 4))
    with pytest.raises(MetadataError, match="declares 1073741823 elements"):
        _root(_patched(buf, vpos, "I", 0x3FFFFFFF)).tables(2)


def test_depth_limit():
    b = Builder()
    ref = b.create_table({0: ("i", 0)})
    for _ in range(10):
        ref = b.create_table(offsets={0: ref})
    buf = b.finish(ref)
    t = Reader(buf, max_depth=10).root()
    for _ in range(10):
        t = t.table(0)
    assert t.scalar(0, "i", -1) == 0
    t = Reader(buf, max_depth=9).root()
    with pytest.raises(MetadataError, match="nested deeper than 9"):
        for _ in range(10):
            t = t.table(0)


def test_shared_offsets_exhaust_the_table_budget():
    b = Builder()
    leaf = b.create_table()
    mid = b.create_table(offsets={0: b.create_table_vector([leaf] * 100)})
    buf = b.finish(b.create_table(offsets={0: b.create_table_vector([mid] * 100)}))
    with pytest.raises(MetadataError, match="number of tables"):
        for m in _root(buf).tables(0):
            m.tables(0)


def test_shared_strings_exhaust_the_byte_budget():
    b = Builder()
    s = b.create_string("x" * 4000)
    buf = b.finish(b.create_table(offsets={i: s for i in range(40)}))
    t = _root(buf)
    with pytest.raises(MetadataError, match="referenced more often"):
        for i in range(40):
            assert len(t.string(i)) == 4000
