"""Record shredding and assembly with definition and repetition levels.

Parquet stores nested data the Dremel way (File Format: "Nested Encoding"):
every leaf column holds, per value slot, a *definition level* (how many
optional or repeated nodes on its path are present) and a *repetition level*
(at which repeated node a new entry starts; 0 starts a new record).

:func:`assemble` turns the level streams of a field's leaves into the
Arrow-layout arrays of :mod:`parquet_codec.arrays`, :func:`shred` does the
reverse for the writer. Both work one nesting level at a time with numpy over
whole streams; nothing loops per value or per row.

The key fact used throughout: for a field whose nearest enclosing list entry
repeats at level ``r`` and exists at definition level ``e``, the positions of
a leaf stream that carry one slot of that field are exactly those with
``rep <= r`` and ``def >= e``; the slot is non-null where ``def`` reaches the
field's own ``def_level``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from parquet_codec.arrays import (
    Array,
    BinaryArray,
    ListArray,
    MapArray,
    PrimitiveArray,
    StructArray,
    take,
    take_range,
)
from parquet_codec.distinct import distinct_bytes, distinct_values
from parquet_codec.errors import (
    CorruptFileError,
    DecodingError,
    ResourceLimitError,
    SchemaError,
    UnsupportedError,
)
from parquet_codec.limits import reserve_items
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.schema import SchemaNode, repeated_name

LEVEL_DTYPE = np.int16  # levels never exceed the schema depth, bounded well below 2**15


class LeafData(NamedTuple):
    """One leaf column's decoded data (a whole column chunk, or whole rows of it).

    ``def_levels`` is None when the leaf's max definition level is 0 and
    ``rep_levels`` None when its max repetition level is 0. ``values`` holds
    only the non-null values (PrimitiveArray or BinaryArray, no validity): one
    per level equal to the max definition level. ``num_values`` counts the
    level slots, nulls included. ``dictionary``: the values of the chunk's
    dictionary page, in its order, when it has one. ``spread``: ``values``
    holds a slot per level instead, zero where null (chunk_reader.py writes a flat
    leaf's values so, into the array it assembles to).
    """

    def_levels: np.ndarray | None
    rep_levels: np.ndarray | None
    values: Array
    num_values: int
    dictionary: Array | None = None
    spread: bool = False


def keep_dictionary(dictionaries: dict[str, list[Array]], name: str, leaves: Iterable[LeafData]) -> None:
    """Add the dictionary pages of ``leaves`` (a column's chunks) to
    ``dictionaries[name]``, but one equal to the page added last (writers
    commonly repeat a categorical's dictionary in every row group)."""
    for data in leaves:
        if data.dictionary is None:
            continue
        kept = dictionaries.setdefault(name, [])
        if not (kept and _same_entries(kept[-1], data.dictionary)):
            kept.append(data.dictionary)


def merged_dictionaries(parts: Sequence[tuple[Sequence[Array], Array]]) -> list[Array]:
    """A column's dictionary entries over consecutive parts (row groups, files),
    each given as (its dictionary pages, its leaf values), in the order of
    pyarrow's chunks, whose dictionaries a DataFrame's categories join in turn:
    a part's pages (one already listed, as a slice of one table shares them,
    or equal to the last, once); a part without pages that one with pages
    follows adds its distinct values in order of appearance, the dictionary
    pyarrow builds for it (plain chunks)."""
    last = max((i for i, (pages, _) in enumerate(parts) if pages), default=-1)
    out: list[Array] = []
    seen: set[int] = set()
    for i, (pages, values) in enumerate(parts):
        fresh = [page for page in pages if id(page) not in seen]  # (the parts hold these: no id is reused)
        seen.update(id(page) for page in pages)
        if not pages and i < last and isinstance(values, (PrimitiveArray, BinaryArray)) and values.null_count < len(values):
            fresh = [_distinct_present(values)]
        for page in fresh:
            if not (out and _same_entries(out[-1], page)):
                out.append(page)
    return out


def _distinct_present(values: PrimitiveArray | BinaryArray) -> Array:
    """The distinct non-null values of a leaf array, in order of first appearance."""
    if values.validity is not None:
        values = take(values, np.flatnonzero(values.validity))
    if isinstance(values, BinaryArray):
        found = distinct_bytes(values.offsets, values.data)
    else:
        found = distinct_values(values.values)
    return take(values, found.first)


def _same_entries(a: Array, b: Array) -> bool:
    """Whether two dictionary pages' values (no validity) are equal."""
    if isinstance(a, BinaryArray) and isinstance(b, BinaryArray):
        return np.array_equal(a.offsets, b.offsets) and np.array_equal(a.data, b.data)
    return isinstance(a, PrimitiveArray) and isinstance(b, PrimitiveArray) and np.array_equal(a.values, b.values)


def reaching(levels: np.ndarray, level: int, max_level: int) -> np.ndarray:
    """Where ``levels`` (at most ``max_level``) reach ``level``, as a bool mask:
    levels 0 and 1 held as bytes (chunk_reader.py keeps them so) are one already."""
    if max_level == 1 and levels.dtype == np.uint8:
        return levels.view(np.bool_)
    return levels >= level


def row_starts(rep_levels: np.ndarray | None, num_values: int) -> np.ndarray:
    """Positions in a level stream where a record starts (repetition level 0),
    where a writer may cut pages and a reader may split batches."""
    if rep_levels is None:
        return np.arange(num_values, dtype=np.int64)
    return np.flatnonzero(np.asarray(rep_levels) == 0)


def num_rows(leaf: LeafData) -> int:
    """The number of records a leaf's level stream holds."""
    if leaf.rep_levels is None:
        return int(leaf.num_values)
    return int(np.count_nonzero(np.asarray(leaf.rep_levels) == 0))


# ---------------------------------------------------------------------------
# Validation of one leaf's level stream


def _entry_def_levels(node: SchemaNode) -> np.ndarray:
    """Definition level at which the entry of each repeated ancestor (outermost
    first) exists; the k-th value is where repetition level k+1 is allowed."""
    levels = []
    while node.parent is not None:
        if node.repetition == 2:  # REPEATED
            levels.append(node.max_definition_level)
        node = node.parent
    return np.array(levels[::-1], dtype=np.int64)


def _lists_reached(entries: np.ndarray, defs: np.ndarray) -> np.ndarray:
    """How many of the ascending ``entries`` each definition level reaches
    (``np.searchsorted(entries, defs, side="right")``): for the few lists
    of a real schema, one comparison pass per list is several times faster."""
    if len(entries) > 4:
        return np.searchsorted(entries, defs, side="right")
    depth = np.zeros(len(defs), dtype=LEVEL_DTYPE)
    for level in entries.tolist():
        depth += defs >= level
    return depth


def check_leaf(node: SchemaNode, leaf: LeafData) -> None:
    """Reject a level stream that contradicts the schema or itself (DecodingError)."""
    col = node.dotted_path
    n = leaf.num_values
    max_def, max_rep = node.max_definition_level, node.max_repetition_level
    d, r = leaf.def_levels, leaf.rep_levels
    for name, levels, maximum in (("definition", d, max_def), ("repetition", r, max_rep)):
        if levels is None:
            if maximum > 0:
                raise DecodingError(f"column {col!r} has no {name} levels but its max {name} level is {maximum}")
            continue
        if len(levels) != n:
            raise DecodingError(f"column {col!r} has {len(levels)} {name} levels for {n} values")
        if n and (int(levels.min()) < 0 or int(levels.max()) > maximum):
            bad = int(levels.max()) if int(levels.max()) > maximum else int(levels.min())
            raise DecodingError(f"{name} level {bad} of column {col!r} is outside 0..{maximum}")
    if r is not None and n and r[0] != 0:
        raise DecodingError(f"repetition levels of column {col!r} start at {int(r[0])}, not 0")
    if leaf.spread:
        if len(leaf.values) != n:
            raise DecodingError(f"column {col!r} has {n} level slots but {len(leaf.values)} value slots")
    else:
        non_null = n if d is None else int(np.count_nonzero(d == max_def))
        if non_null != len(leaf.values):
            raise DecodingError(f"column {col!r} has {non_null} non-null slots but {len(leaf.values)} values")
    if r is not None and max_rep > 0 and n:
        # How many nested lists each position reaches: a repetition at level k needs the
        # k-th list's entry present here and present (opened) at the previous position.
        depth = _lists_reached(_entry_def_levels(node), d)
        if np.any(r > depth):
            i = int(np.argmax(r > depth))
            raise DecodingError(f"column {col!r}, level {i}: repetition level {int(r[i])} "
                                f"with definition level {int(d[i])} repeats a list that is absent")
        if n > 1 and np.any(r[1:] > depth[:-1]):
            i = int(np.argmax(r[1:] > depth[:-1])) + 1
            raise DecodingError(f"column {col!r}, level {i}: repetition level {int(r[i])} "
                                f"continues a list the previous value did not open")


# ---------------------------------------------------------------------------
# Assembly: levels -> arrays


class _Assembler:
    def __init__(self, leaves: Mapping[tuple[str, ...], LeafData]) -> None:
        self.leaves = leaves
        self.checked: set[tuple[str, ...]] = set()

    def leaf(self, node: SchemaNode) -> LeafData:
        data = self.leaves.get(node.path)
        if data is None:
            raise SchemaError(f"no level data given for column {node.dotted_path!r}")
        if node.path not in self.checked:
            check_leaf(node, data)
            self.checked.add(node.path)
        return data

    def slots(self, data: LeafData, rep_ctx: int, def_ctx: int) -> np.ndarray | None:
        """Positions carrying a slot of a field in context (rep_ctx, def_ctx); None = all."""
        mask = None
        if data.rep_levels is not None:
            mask = data.rep_levels <= rep_ctx
        if data.def_levels is not None and def_ctx > 0:
            present = data.def_levels >= def_ctx
            mask = present if mask is None else mask & present
        return None if mask is None else np.flatnonzero(mask)

    def build(self, field: Field, rep_ctx: int, def_ctx: int) -> Array:
        node = field.first_leaf()
        data = self.leaf(node)
        pos = self.slots(data, rep_ctx, def_ctx)
        count = data.num_values if pos is None else len(pos)
        validity = None
        if data.def_levels is not None and field.def_level > 0:
            defs = data.def_levels if pos is None else data.def_levels[pos]
            valid = defs >= field.def_level
            validity = None if valid.all() else valid
        if field.kind == PRIMITIVE:
            return _scatter(data.values, validity, count)
        if field.kind == STRUCT:
            children = {}
            for child in field.children:
                arr = self.build(child, rep_ctx, def_ctx)
                _expect_length(arr, count, child, field)
                children[child.name] = arr
            return StructArray(count, children, validity=validity)
        return self.build_list(field, data, pos, validity)

    def build_into(self, field: Field, out: np.ndarray) -> Array:
        """A flat primitive field's slots, written into ``out`` (one per level slot)."""
        data = self.leaf(field.node)
        if data.rep_levels is not None or data.num_values != len(out):
            raise CorruptFileError(f"column {field.node.dotted_path!r} holds {data.num_values} level slots "
                                   f"where the row group declares {len(out)} rows")
        validity = None
        if data.def_levels is not None and field.def_level > 0:
            valid = reaching(data.def_levels, field.def_level, field.node.max_definition_level)
            validity = None if valid.all() else valid
        if data.spread:
            return _spread_into(data.values, validity, out)
        return _scatter_into(data.values, validity, out)

    def build_list(self, field: Field, data: LeafData, pos: np.ndarray | None,
                   validity: np.ndarray | None) -> Array:
        entry = field.repeated_node
        rep_e, def_e = entry.max_repetition_level, entry.max_definition_level
        is_entry = data.rep_levels <= rep_e
        if data.def_levels is not None:
            is_entry &= data.def_levels >= def_e
        # before[i] counts the entries at positions < i, so a slot's offset is before[its position].
        before = np.concatenate(([0], np.cumsum(is_entry, dtype=np.int64)))
        offsets = np.append(before[pos], before[-1]) if pos is not None else before
        total = int(before[-1])
        children = [self.build(child, rep_e, def_e) for child in field.children]
        for child, arr in zip(field.children, children, strict=True):
            _expect_length(arr, total, child, field)
        if field.kind == LIST:
            return ListArray.of(offsets, children[0], validity)
        items = children[1] if len(children) > 1 else None
        return MapArray.of(offsets, children[0], items, validity)


def _expect_length(arr: Array, expected: int, child: Field, parent: Field) -> None:
    if len(arr) != expected:
        first = parent.first_leaf().dotted_path
        raise CorruptFileError(
            f"column {child.first_leaf().dotted_path!r} has {len(arr)} slots for field "
            f"{'.'.join(child.path)!r} where column {first!r} has {expected}: "
            f"the columns of {'.'.join(parent.path)!r} disagree on its structure")


def _scatter(values: Array, validity: np.ndarray | None, count: int) -> Array:
    """Spread the non-null values over ``count`` slots, zero or empty where null."""
    if validity is None:
        return values
    if isinstance(values, BinaryArray):
        offsets = np.asarray(values.offsets, dtype=np.int64)
        lengths = np.zeros(count, dtype=np.int64)
        lengths[validity] = np.diff(offsets)
        new_offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=new_offsets[1:])
        data = values.data[offsets[0]:offsets[-1]] if len(offsets) else values.data[:0]
        return BinaryArray.of(new_offsets, data, validity)
    if isinstance(values, PrimitiveArray):
        raw = values.values
        out = np.zeros((count,) + raw.shape[1:], dtype=raw.dtype)
        out[validity] = raw
        return PrimitiveArray.of(out, validity)
    raise SchemaError(f"leaf values must be a PrimitiveArray or BinaryArray, got {type(values).__name__}")


def _scatter_into(values: Array, validity: np.ndarray | None, out: np.ndarray) -> PrimitiveArray:
    """:func:`_scatter` of fixed-width values into ``out``; values that are
    already ``out`` itself (decoded in place) are not copied, unless nulls
    must be spread among them."""
    if not isinstance(values, PrimitiveArray) or values.values.shape[1:] != out.shape[1:]:
        raise SchemaError(f"cannot write {type(values).__name__} values into a {out.dtype} column buffer")
    raw = values.values
    if validity is None:
        _copy_unless_there(raw, out)
    else:
        if np.may_share_memory(raw, out):  # decoded in place where no nulls were expected: move them aside
            raw = raw.copy()
        out.fill(0)
        out[np.flatnonzero(validity)] = raw  # measured faster than boolean-mask assignment
    return PrimitiveArray.of(out, validity)


def _spread_into(values: Array, validity: np.ndarray | None, out: np.ndarray) -> PrimitiveArray:
    """``values`` spread to their slots already (one per row: check_leaf and
    build_into checked the counts): into ``out``, unless they are there."""
    _copy_unless_there(values.values, out)
    return PrimitiveArray.of(out, validity)


def _copy_unless_there(raw: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = raw``, unless ``raw`` is ``out`` already (decoded in place)."""
    if raw.__array_interface__["data"][0] != out.__array_interface__["data"][0]:
        out[:] = raw


def assemble(field: Field, leaves: Mapping[tuple[str, ...], LeafData], out: np.ndarray | None = None, *,
             num_rows: int | None = None) -> Array:
    """Build the array of a top-level ``field`` (one slot per record) from the
    level streams and non-null values of its leaves, keyed by leaf path.
    ``out``: for a flat primitive field, the array its slots are written to
    (nulls as zeros); the result's values are then ``out`` itself.

    A field with no leaf at all (empty groups only: nothing records whether a
    value is present) is ``num_rows`` nulls, as pyarrow reads it."""
    _check_distinct_names(field)
    if not field.leaf_nodes():
        if num_rows is None:
            raise SchemaError(f"field {field.name!r} has no leaf column to read it from")
        if not 0 <= num_rows < 2**31:  # no bytes back the count here: keep to one Arrow array's
            raise CorruptFileError(f"field {field.name!r} has no column, and {num_rows} rows are declared for it")
        # Only the declared row count sizes these arrays: a validity byte and an offset per row.
        reserve_items(num_rows, 9, f"{num_rows} nulls of field {field.name!r}")
        try:
            return _nulls(field, num_rows)
        except MemoryError:
            raise ResourceLimitError(f"{num_rows} nulls of field {field.name!r} do not fit in memory") from None
    try:
        if out is not None and field.kind == PRIMITIVE:
            return _Assembler(leaves).build_into(field, out)
        return _Assembler(leaves).build(field, 0, 0)
    except RecursionError:
        raise SchemaError(f"field {field.name!r} nests too deeply to assemble") from None


def _check_distinct_names(field: Field) -> None:
    """Refuse a struct with two fields of one name (UnsupportedError): a
    StructArray keys its children by name, so one would silently stand in for
    the other, as a Table refuses two top-level columns of one name."""
    stack = [field]
    while stack:
        node = stack.pop()
        repeated = repeated_name([child.name for child in node.children]) if node.kind == STRUCT else None
        if repeated:
            raise UnsupportedError(f"struct {node.node.dotted_path!r} has {repeated[1]} fields "
                                   f"named {repeated[0]!r}: a struct's field names must be distinct")
        stack.extend(node.children)


def _nulls(field: Field, count: int) -> Array:
    """``count`` null slots of a nested ``field`` (its lists empty, its children null)."""
    validity = np.zeros(count, dtype=np.bool_)
    if field.kind == STRUCT:
        return StructArray(count, {c.name: _nulls(c, count) for c in field.children}, validity=validity)
    if field.kind not in (LIST, MAP):
        raise SchemaError(f"field {field.name!r} is a {field.kind} without a column")
    offsets = np.zeros(count + 1, dtype=np.int64)
    children = [_nulls(child, 0) for child in field.children]
    if field.kind == LIST:
        return ListArray.of(offsets, children[0], validity)
    return MapArray.of(offsets, children[0], children[1] if len(children) > 1 else None, validity)


# ---------------------------------------------------------------------------
# Shredding: arrays -> levels


class _Stream(NamedTuple):
    """The level stream under construction, one entry per output position.
    ``idx`` indexes the current array, or is -1 where a null or empty value
    above already fixed the entry's definition level."""

    rep: np.ndarray
    defs: np.ndarray
    idx: np.ndarray
    identity: bool  # idx is still 0..n-1 over the whole array (nothing expanded)
    span: tuple[int, int] | None = None  # the live idx are exactly span[0]..span[1]-1, in order
    aligned: bool = False  # idx[i] is i or -1: only nulls of the top-level array applied


def shred(field: Field, array: Array) -> dict[tuple[str, ...], LeafData]:
    """The level streams and non-null values of every leaf of ``field`` for an
    array holding one slot per record (the inverse of :func:`assemble`)."""
    n = len(array)
    start = _Stream(np.zeros(n, LEVEL_DTYPE), np.zeros(n, LEVEL_DTYPE), np.arange(n, dtype=np.int64), True)
    out: dict[tuple[str, ...], LeafData] = {}
    try:
        _shred(field, array, start, out)
    except RecursionError:
        raise SchemaError(f"field {field.name!r} nests too deeply to shred") from None
    return out


def _kind_matches(field: Field, array: Array) -> bool:
    expected = {PRIMITIVE: (PrimitiveArray, BinaryArray), STRUCT: (StructArray,), LIST: (ListArray,),
                MAP: (MapArray,)}[field.kind]
    return isinstance(array, expected)


def _shred(field: Field, array: Array, s: _Stream, out: dict) -> None:
    if not _kind_matches(field, array):
        raise SchemaError(f"field {'.'.join(field.path)!r} is a {field.kind} but holds a {type(array).__name__}")
    s = _apply_nulls(field, array, s)
    if field.kind == PRIMITIVE:
        out[field.node.path] = _leaf_output(field, array, s)
    elif field.kind == STRUCT:
        for child in field.children:
            if child.name not in array.children:
                raise SchemaError(f"struct {'.'.join(field.path)!r} has no child array {child.name!r}")
            _shred(child, array.children[child.name], s, out)
    else:
        inner = _expand_entries(field, array, s)
        if field.kind == LIST:
            _shred(field.children[0], array.values, inner, out)
            return
        _shred(field.children[0], array.keys, inner, out)
        if len(field.children) > 1:
            if array.items is None:
                raise SchemaError(f"map {'.'.join(field.path)!r} has a value field but no item array")
            _shred(field.children[1], array.items, inner, out)


def _apply_nulls(field: Field, array: Array, s: _Stream) -> _Stream:
    """Fix the definition level of entries whose value is null at this field."""
    if array.validity is None:
        return s
    if s.identity or s.aligned:  # position i holds slot i (or is already -1)
        null = ~array.validity if s.identity else ~array.validity & (s.idx >= 0)
    else:
        live = s.idx >= 0
        null = np.zeros(len(s.idx), dtype=bool)
        null[live] = ~array.validity[s.idx[live]]
    if not null.any():
        return s
    if not field.nullable:
        raise SchemaError(f"field {'.'.join(field.path)!r} is not nullable but holds "
                          f"{int(np.count_nonzero(null))} nulls")
    # The parent is present, this optional node is not.
    defs = np.where(null, np.array(field.def_level - 1, dtype=LEVEL_DTYPE), s.defs)
    idx = np.where(null, -1, s.idx)
    # Nulls: the live idx no longer form a span, but top-level positions stay aligned.
    return _Stream(s.rep, defs, idx, False, aligned=s.identity or s.aligned)


def _expand_entries(field: Field, array: ListArray | MapArray, s: _Stream) -> _Stream:
    """One stream entry per list entry; empty lists keep one entry that ends there.

    Only an entry's first position inherits the parent's levels; the others
    repeat at this list's level, and their definition level is left for the
    leaf (or a null below) to fix, as for every live position."""
    offsets = np.asarray(array.offsets, dtype=np.int64)
    if s.identity:
        live = None
        starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
    else:
        live = s.idx >= 0
        starts = np.zeros(len(s.idx), dtype=np.int64)
        lengths = np.zeros(len(s.idx), dtype=np.int64)
        starts[live] = offsets[s.idx[live]]
        lengths[live] = offsets[s.idx[live] + 1] - starts[live]
    empty = lengths == 0
    counts = np.where(empty, 1, lengths)
    first = np.cumsum(counts) - counts  # output position of each entry's first element
    total = int(first[-1] + counts[-1]) if len(counts) else 0
    rep = np.full(total, field.repeated_node.max_repetition_level, dtype=LEVEL_DTYPE)
    rep[first] = s.rep
    defs = np.zeros(total, dtype=LEVEL_DTYPE)
    defs[first] = s.defs
    if live is None:
        defs[first[empty]] = field.def_level  # present but empty
    else:
        defs[first[live & empty]] = field.def_level
    idx = np.repeat(starts - first, counts)
    idx += np.arange(total, dtype=np.int64)
    idx[first[empty]] = -1  # empty or null: nothing below
    span = (int(offsets[0]), int(offsets[-1])) if live is None else None  # all entries, in order
    return _Stream(rep, defs, idx, False, span)


def _leaf_output(field: Field, array: Array, s: _Stream) -> LeafData:
    node = field.node
    if s.identity:  # nothing expanded or nulled: every slot is a value, the input's values as they are
        defs = np.full(len(s.idx), node.max_definition_level, dtype=LEVEL_DTYPE)
        return LeafData(defs if node.max_definition_level > 0 else None,
                        s.rep if node.max_repetition_level > 0 else None, _without_validity(array), len(defs))
    live = s.idx >= 0
    defs = np.where(live, np.array(node.max_definition_level, dtype=LEVEL_DTYPE), s.defs)
    if s.span is not None:  # the entries of every list, in order: a slice, no gather
        values = _without_validity(take_range(array, *s.span))
    elif s.aligned and isinstance(array, PrimitiveArray):  # the valid slots, by mask
        values = PrimitiveArray.of(array.values[live])
    else:
        values = take(array, s.idx[live])  # (no validity: only non-null slots are kept)
    return LeafData(defs if node.max_definition_level > 0 else None,
                    s.rep if node.max_repetition_level > 0 else None, values, len(defs))


def _without_validity(array: Array) -> Array:
    if isinstance(array, BinaryArray):
        return BinaryArray.of(array.offsets, array.data)
    return PrimitiveArray.of(array.values)


__all__ = ["LeafData", "LEVEL_DTYPE", "assemble", "shred", "check_leaf", "reaching", "row_starts", "num_rows"]
