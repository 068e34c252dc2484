"""The Arrow schema a file stores (``ARROW:schema``), applied to its columns as they are read.

pyarrow.parquet stores the Arrow schema of the table it writes, IPC-serialized
and base64-encoded, in the key-value metadata (:mod:`parquet_codec.arrow_schema`),
and applies that *origin* schema to the types it infers from the Parquet
schema when reading. This module applies it by the same rules:

- the stored schema counts only when it has as many top-level fields as the
  file; fields are matched by position;
- structs, lists and maps recurse into their children when both sides have
  as many; a list becomes the stored large, fixed-size or view list;
- a UTC-adjusted timestamp gets the stored time zone (keeping the unit read);
  INT64 read as int64 becomes the stored duration; strings and binaries become
  the stored large or view type, or the stored dictionary (its index type,
  the values as read); a
  decimal becomes the stored decimal32/64/256; an extension type comes back
  when its storage type is what was read; field metadata comes back (a
  field id read from the file wins).

Only a time zone, a duration and an extension type other than UUID and JSON
(bool8's booleans: pyarrow makes those values, when installed) change Python
values (``to_pylist``); the rest shapes the types of ``to_arrow``. The table's schema metadata is the
stored schema's, or without one the file's key-value metadata.

A stored schema that does not decode is ignored and the columns keep the
types the Parquet schema gives (pyarrow refuses such a file; its values are
intact, so they are read).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from parquet_codec.arrays import Array, PrimitiveArray
from parquet_codec.arrow_schema import (
    ARROW_SCHEMA_KEY,
    ArrowField,
    ArrowSchema,
    SchemaMessage,
    encode_schema,
    extension_name,
    message_from_metadata,
)
from parquet_codec.errors import MetadataError
from parquet_codec.format.ttypes import Type
from parquet_codec.nested import LIST, MAP, STRUCT, Field
from parquet_codec.temporal import durations_to_py, in_zone, int96_to_py
from parquet_codec.types import LogicalInfo, to_pylist

_LISTS = frozenset({"list", "large_list", "fixed_size_list", "list_view", "large_list_view"})


def split_metadata(key_value: Mapping[str, str | None] | None, fields: Sequence[Field]
                   ) -> tuple[dict[str, str], Mapping[str, ArrowField]]:
    """A file's table-level metadata and the stored Arrow field of each of its
    top-level ``fields`` (by name; each decoded when first looked up), from its
    key-value metadata."""
    metadata = {k: v if isinstance(v, str) else "" for k, v in (key_value or {}).items()
                if isinstance(k, str) and k != ARROW_SCHEMA_KEY}  # (a key-less entry says nothing)
    stored = (key_value or {}).get(ARROW_SCHEMA_KEY)
    if stored is None:
        return metadata, {}
    try:
        message = message_from_metadata(stored)
    except MetadataError:
        return metadata, {}
    if message.num_fields != len(fields):
        return metadata, {}
    return dict(message.metadata), _StoredFields(message, [f.name for f in fields])


class _StoredFields(Mapping):
    """Top-level name -> stored Arrow field, decoded on first use; a field
    that does not decode is absent (its column keeps the Parquet schema's type)."""

    def __init__(self, message: SchemaMessage, names: list[str]) -> None:
        self._message = message
        self._index = {name: i for i, name in enumerate(names)}

    def __getitem__(self, name: str) -> ArrowField:
        try:
            return self._message.field(self._index[name])
        except MetadataError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def stored_schema(origins: Sequence[ArrowField], metadata: Mapping[str, str]) -> ArrowSchema:
    """The ARROW:schema a writer stores for columns of these origins."""
    return ArrowSchema(tuple(origins), tuple(metadata.items()))


# ---------------------------------------------------------------- Python values


def projected_origin(field: Field, origin: ArrowField | None) -> ArrowField | None:
    """``origin`` cut to the struct fields ``field`` keeps, at any depth: a read
    of some fields of a struct gives them their stored types, as pyarrow
    applies the whole stored schema before projecting. The kept fields are
    matched by name, in order; ``origin`` itself when nothing was cut, or
    when the names do not match (then :func:`child_origins` pairs none)."""
    if origin is None or not field.children:
        return origin
    if field.kind == STRUCT and origin.type.id == "struct":
        kept = _kept_by_name([c.name for c in field.children], origin.children)
        if kept is None:
            return origin
        return _with_children(origin, tuple(projected_origin(c, o) for c, o in zip(field.children, kept, strict=True)))
    paired = child_origins(field, origin)
    if any(o is None for o in paired):
        return origin
    cut = tuple(projected_origin(c, o) for c, o in zip(field.children, paired, strict=True))
    if field.kind == MAP:  # (a map's stored field holds its key and value in its entries)
        return _with_children(origin, (_with_children(origin.children[0], cut),))
    return _with_children(origin, cut)


def _with_children(origin: ArrowField, children: tuple[ArrowField | None, ...]) -> ArrowField:
    """``origin`` with these children: itself when they are its own (the usual case, not copied)."""
    if len(children) == len(origin.children) and all(a is b for a, b in zip(children, origin.children, strict=True)):
        return origin
    return dataclasses.replace(origin, children=children)


def _kept_by_name(names: list[str], stored: tuple[ArrowField, ...]) -> list[ArrowField] | None:
    """The stored fields named ``names``, taken in order (a name may repeat
    in a struct); None when one is missing."""
    kept, start = [], 0
    for name in names:
        found = next((i for i in range(start, len(stored)) if stored[i].name == name), None)
        if found is None:
            return None
        kept.append(stored[found])
        start = found + 1
    return kept


def child_origins(field: Field, origin: ArrowField | None) -> tuple[ArrowField | None, ...]:
    """The stored fields matching ``field.children``, where the rules recurse."""
    none = (None,) * len(field.children)
    if origin is None:
        return none
    kind = origin.type.id
    if field.kind == STRUCT and kind == "struct" and len(origin.children) == len(field.children):
        return origin.children
    if field.kind == LIST and kind in _LISTS and len(origin.children) == 1:
        return origin.children
    if field.kind == MAP and kind == "map" and len(field.children) == 2 and len(origin.children) == 1:
        entries = origin.children[0].children
        return entries if len(entries) == 2 else none
    return none


def _is_int64(info: LogicalInfo) -> bool:
    return info.kind == "int" and info.physical_type == Type.INT64 and info.bit_width == 64 and info.signed


#: The extension types whose Python values this package gives itself (their storage's, as pyarrow's).
_NATIVE_EXTENSIONS = frozenset({"arrow.uuid", "arrow.json"})


def foreign_extension(origin: ArrowField | None) -> bool:
    """Whether a stored field holds, at any depth, an extension type whose
    Python values pyarrow makes (bool8's booleans, say) from its storage's."""
    if origin is None:
        return False
    name = extension_name(origin)
    if name is not None and name not in _NATIVE_EXTENSIONS:
        return True
    return any(foreign_extension(child) for child in origin.children)


def leaf_to_pylist(array: Array, info: LogicalInfo, origin: ArrowField | None, int96_unit: str | None = None
                   ) -> list:
    """A leaf's Python values, with the stored duration or time zone applied;
    INT96 timestamps truncated to ``int96_unit`` when given (arrow_read.py)."""
    if info.kind == "int96" and int96_unit is not None and isinstance(array, PrimitiveArray):
        return int96_to_py(array.values, array.validity, int96_unit)
    typ = None if origin is None or origin.dictionary is not None else origin.type
    if typ is not None and isinstance(array, PrimitiveArray):
        if typ.id == "duration" and _is_int64(info) and typ.unit:
            return durations_to_py(array.values, typ.unit, array.validity)
        if typ.id == "timestamp" and info.kind == "timestamp" and info.utc and typ.timezone:
            return in_zone(to_pylist(array, info), typ.timezone)
    return to_pylist(array, info)


# ---------------------------------------------------------------- Arrow types


def pyarrow_fields(origins: Sequence[ArrowField]) -> list[Any | None]:
    """The stored fields as pyarrow fields (extension types resolved by pyarrow's
    registry); None for one pyarrow cannot take (e.g. a type newer than it)."""
    try:
        return list(_pyarrow_schema(origins))
    except Exception:  # one field spoils the schema: take them one by one
        if len(origins) < 2:
            return [None] * len(origins)
        return [pyarrow_fields([origin])[0] for origin in origins]


def _pyarrow_schema(origins: Sequence[ArrowField]) -> Any:
    import pyarrow as pa

    return pa.ipc.read_schema(pa.py_buffer(encode_schema(ArrowSchema(tuple(origins)))))


def restored_type(inferred: Any, origin: Any) -> Any:
    """The type pyarrow gives a column it infers as ``inferred`` whose stored type is ``origin``."""
    import pyarrow as pa

    if isinstance(origin, pa.BaseExtensionType):  # (canonical ones, bool8 or tensors, are not pa.ExtensionType)
        storage = restored_type(inferred, origin.storage_type)
        return origin if storage.equals(origin.storage_type) else storage
    nested = _restored_nested(pa, inferred, origin)
    if nested is not None:
        return nested
    if pa.types.is_timestamp(origin) and pa.types.is_timestamp(inferred):
        if inferred.tz == "UTC" and origin.tz:
            return pa.timestamp(inferred.unit, origin.tz)
        return inferred
    if pa.types.is_duration(origin) and pa.types.is_int64(inferred):
        return origin
    if pa.types.is_dictionary(origin) and _dictionary_readable(pa, inferred):
        return pa.dictionary(origin.index_type, inferred, origin.ordered)
    if (_is_string(pa, origin) and pa.types.is_string(inferred)) or (
            _is_binary(pa, origin) and pa.types.is_binary(inferred)):
        return origin
    if pa.types.is_decimal(origin) and pa.types.is_decimal128(inferred):
        return origin
    return inferred


def _is_string(pa: Any, typ: Any) -> bool:
    return pa.types.is_large_string(typ) or pa.types.is_string_view(typ)


def _is_binary(pa: Any, typ: Any) -> bool:
    return pa.types.is_large_binary(typ) or pa.types.is_binary_view(typ)


def _dictionary_readable(pa: Any, typ: Any) -> bool:
    return pa.types.is_string(typ) or pa.types.is_binary(typ)


def restored_field(inferred: Any, origin: Any) -> Any:
    """``inferred`` (a pyarrow field) with the stored type and metadata applied."""
    return with_stored_metadata(inferred.with_type(restored_type(inferred.type, origin.type)), origin)


def with_stored_metadata(field: Any, origin: Any) -> Any:
    """``field`` (pyarrow) with the stored field's metadata; keys read from the file
    (the field id) win."""
    if not origin.metadata:
        return field
    merged = dict(origin.metadata)
    merged.update(field.metadata or {})
    return field.with_metadata(merged)


def _restored_nested(pa: Any, inferred: Any, origin: Any) -> Any | None:
    count = inferred.num_fields
    if not count or origin.num_fields != count:
        return None
    if pa.types.is_struct(inferred) and pa.types.is_struct(origin):
        return pa.struct([restored_field(inferred.field(i), origin.field(i)) for i in range(count)])
    if pa.types.is_map(inferred) and pa.types.is_map(origin):
        key = restored_field(inferred.key_field, origin.key_field)
        item = restored_field(inferred.item_field, origin.item_field)
        return pa.map_(key, item, keys_sorted=inferred.keys_sorted)
    if not pa.types.is_list(inferred):
        return None
    value = restored_field(inferred.value_field, origin.value_field)
    if pa.types.is_large_list(origin):
        return pa.large_list(value)
    if pa.types.is_fixed_size_list(origin):
        return pa.list_(value, origin.list_size)
    if pa.types.is_list_view(origin):
        return pa.list_view(value)
    if pa.types.is_large_list_view(origin):
        return pa.large_list_view(value)
    if pa.types.is_list(origin):
        return pa.list_(value)
    return None


def restore_array(array: Any, target: Any, vacant: np.ndarray | None = None) -> Any:
    """``array`` cast to the restored type; unchanged where pyarrow cannot cast
    (e.g. a list whose lengths differ from the stored fixed size). ``vacant``:
    the rows under a null struct, whose values the file does not hold."""
    import pyarrow as pa

    if array.type.equals(target):
        return array
    # pyarrow's cast of a list with null rows to a fixed-size list, at any
    # depth, reads items past the end of the values (garbage, or a crash):
    # such arrays are rebuilt here over their children, restored.
    cast = _rebuilt(pa, array, target, vacant) if _holds_fixed_size(pa, target) else _cast(pa, array, target)
    views = pa.types.is_list_view(target) or pa.types.is_large_list_view(target)  # (pyarrow casts no list to one)
    if cast is None and (views or pa.types.is_list(array.type) and pa.types.is_large_list(target)):
        cast = _relisted(pa, array, target, vacant)
    if cast is not None:
        return cast
    if isinstance(target, pa.BaseExtensionType):
        # from its storage, or from another extension type (e.g. JSON over large_string)
        plain = array.storage if isinstance(array, pa.ExtensionArray) else array
        storage = restore_array(plain, target.storage_type)
        if storage.type.equals(target.storage_type):
            return pa.ExtensionArray.from_storage(target, storage)
    return array


def _holds_fixed_size(pa: Any, typ: Any) -> bool:
    """Whether ``typ`` is or holds (in an extension's storage too) a fixed-size list."""
    if isinstance(typ, pa.BaseExtensionType):
        return _holds_fixed_size(pa, typ.storage_type)
    if pa.types.is_fixed_size_list(typ):
        return True
    return any(_holds_fixed_size(pa, typ.field(i).type) for i in range(typ.num_fields))


def _rebuilt(pa: Any, array: Any, target: Any, vacant: np.ndarray | None = None) -> Any | None:
    """A struct, map or list array as ``target`` over its children restored
    one by one; None where the shapes differ or a child does not restore."""
    if isinstance(array, pa.ChunkedArray):
        chunks = [_rebuilt(pa, chunk, target) for chunk in array.chunks]
        return None if None in chunks else pa.chunked_array(chunks, target)
    kinds = pa.types
    mask = array.is_null() if array.null_count else None
    try:
        if kinds.is_struct(target) and kinds.is_struct(array.type) and array.type.num_fields == target.num_fields:
            # A null struct's children hold nothing in the file (a required
            # fixed-size list there is empty): their rows are vacant too.
            below = _vacant_below(vacant, mask)
            children = [restore_array(array.field(i), target.field(i).type, below) for i in range(target.num_fields)]
            return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)
        if kinds.is_map(target) and kinds.is_map(array.type):
            keys, items = restore_array(array.keys, target.key_type), restore_array(array.items, target.item_type)
            return pa.MapArray.from_arrays(array.offsets, keys, items, type=target, mask=mask)
        if kinds.is_list(array.type):
            return _relisted(pa, array, target, vacant)
    except (pa.ArrowException, ValueError, TypeError):  # a child keeps another type than the target's
        return None
    return None


def _cast(pa: Any, array: Any, target: Any) -> Any | None:
    """``array`` cast to ``target``; None where pyarrow cannot, or where its
    cast gives an invalid array (list<list<null>> to a large_list, say)."""
    try:
        cast = array.cast(target)
        cast.validate()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    return cast


def _relisted(pa: Any, array: Any, target: Any, vacant: np.ndarray | None = None) -> Any | None:
    """A list array as the list, large, fixed-size or view list ``target``
    over its items (restored); None when its lists are not all of the fixed
    size (but for ``vacant`` rows), or its items do not restore."""
    if isinstance(array, pa.ChunkedArray):
        chunks = [_relisted(pa, chunk, target) for chunk in array.chunks]
        return None if None in chunks else pa.chunked_array(chunks, target)
    mask = array.is_null() if array.null_count else None
    if pa.types.is_fixed_size_list(target):
        return _fixed_size(pa, array, target, mask, vacant)
    values = restore_array(array.values, target.value_type)
    if not values.type.equals(target.value_type):
        return None
    if pa.types.is_large_list(target):
        return pa.LargeListArray.from_arrays(array.offsets.cast(pa.int64()), values, type=target, mask=mask)
    if pa.types.is_list(target):
        return pa.ListArray.from_arrays(array.offsets, values, type=target, mask=mask)
    import pyarrow.compute as compute

    offsets = array.offsets
    starts = offsets.slice(0, len(array))
    sizes = compute.subtract(offsets.slice(1), starts).cast(offsets.type)
    kind = pa.LargeListViewArray if pa.types.is_large_list_view(target) else pa.ListViewArray
    return kind.from_arrays(starts, sizes, values, type=target, mask=mask)


def _fixed_size(pa: Any, array: Any, target: Any, mask: Any, vacant: np.ndarray | None = None) -> Any | None:
    """A list array as the fixed-size list ``target`` (its items restored): a
    null or ``vacant`` row stands for ``list_size`` null items whatever its
    length; None when another row has another length."""
    offsets = np.asarray(array.offsets)
    size = target.list_size
    other = np.diff(offsets) != size
    free = _vacant_below(vacant, mask)
    if not other.any():
        items = array.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    elif free is None or (other & ~free).any():
        return None
    else:  # each row's items in place, a null row's null (taken before restoring: take has no view kernels)
        slots = offsets[:-1, None] + np.arange(size)
        slots[other] = 0
        items = array.values.take(pa.array(slots.reshape(-1), mask=np.repeat(other, size)))
    return pa.FixedSizeListArray.from_arrays(restore_array(items, target.value_type), type=target, mask=mask)


def _vacant_below(vacant: np.ndarray | None, mask: Any) -> np.ndarray | None:
    """The rows vacant under an array: those above it (``vacant``) and its
    own null rows (``mask``, a pyarrow boolean array); None for none."""
    if mask is None:
        return vacant
    nulls = mask.to_numpy(zero_copy_only=False)
    return nulls if vacant is None else nulls | vacant


def dictionary_array(values: Any, target: Any, pages: list[Any]) -> Any:
    """``values`` as the dictionary type ``target``, as pyarrow reads a
    dictionary-encoded column: the dictionary lists the chunks' dictionary
    page values (``pages``) first, in their order, then any other value in
    order of appearance (pages that fell back to plain encoding)."""
    import pyarrow as pa
    import pyarrow.compute as compute

    value_type = target.value_type
    values = restore_array(values, value_type)
    pages = [restore_array(page, value_type) for page in pages]
    if not all(page.type.equals(value_type) for page in [values, *pages]):
        return restore_array(values, target)
    dictionary = compute.unique(pa.concat_arrays([*pages, values.drop_null()]))
    try:
        indices = compute.index_in(values, value_set=dictionary).cast(target.index_type)
    except pa.ArrowInvalid:  # more values than the stored index type holds
        return restore_array(values, target)
    return pa.DictionaryArray.from_arrays(indices, dictionary, ordered=target.ordered)


__all__ = ["child_origins", "dictionary_array", "leaf_to_pylist", "projected_origin", "pyarrow_fields", "restore_array",
           "restored_field", "restored_type", "split_metadata", "stored_schema", "with_stored_metadata"]
