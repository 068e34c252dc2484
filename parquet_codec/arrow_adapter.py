"""The bridge to pyarrow, and the only module that imports it (lazily).

Reading: :func:`leaf_to_arrow` wraps a leaf's numpy buffers in a
``pyarrow.Array`` without copying where Arrow's layout is numpy's (numbers,
dates, times, timestamps, fixed-size values, binary data); validity is packed
into a bitmap. The Arrow type is the one ``pyarrow.parquet`` gives the same
Parquet column by default (no ``ARROW:schema`` hint, extensions enabled):
INT96 -> timestamp[ns]; TIMESTAMP(unit, UTC) -> timestamp[unit, tz=UTC];
STRING -> string (large_string past 2 GiB); JSON -> arrow.json; UUID ->
arrow.uuid; ENUM, BSON -> binary; INTERVAL -> fixed_size_binary(12);
DECIMAL -> decimal128(p, s) / decimal256(p, s) whatever the physical type;
FLOAT16 -> halffloat; UNKNOWN -> null. :func:`nested_to_arrow` assembles
lists (int32 offsets, large_list past them), structs and maps from children
the caller converts.

Writing: :func:`from_arrow` turns a pyarrow array into the package's physical
arrays plus an :class:`ArrowField` tree describing the Parquet types, choosing
them as ``pyarrow.parquet`` writes them (decimals as minimal-length
FIXED_LEN_BYTE_ARRAY, seconds coerced to milliseconds, date64 to date32 (the day,
truncated toward zero, as pyarrow writes it),
dictionaries decoded, durations as plain INT64).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from parquet_codec import decimals
from parquet_codec.arrays import Array, BinaryArray, ListArray, MapArray, PrimitiveArray, StructArray
from parquet_codec.encodings.byte_arrays import spans
from parquet_codec.errors import SchemaError, UnsupportedError
from parquet_codec.format.ttypes import Type
from parquet_codec.geospatial import GEOARROW_WKB, geo_from_geoarrow
from parquet_codec.types import Geospatial, LogicalInfo, from_logical, logical_dtype, to_logical

_INT32_MAX = 2**31 - 1


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise UnsupportedError(
            "pyarrow is not installed; install it (pip install 'parquet-codec[arrow]') to use Arrow"
        ) from None
    return pyarrow


# ---------------------------------------------------------------- Parquet -> Arrow


def to_arrow_type(info: LogicalInfo, *, int96_unit: str = "ns", large: bool = False) -> Any:
    """The Arrow type pyarrow reads a leaf as; ``large`` picks 64-bit offsets
    for variable-length values."""
    pa, kind = _pa(), info.kind
    if kind == "int":
        return getattr(pa, f"{'' if info.signed else 'u'}int{info.bit_width}")()
    if kind in ("string", "json", "enum", "bson", "binary"):
        text = kind in ("string", "json")
        storage = (pa.large_string() if large else pa.string()) if text else (
            pa.large_binary() if large else pa.binary()
        )
        return pa.json_(storage) if kind == "json" else storage
    if kind == "decimal":
        if info.precision > decimals.MAX_DECIMAL256_PRECISION:
            raise UnsupportedError(f"DECIMAL precision {info.precision} exceeds Arrow's decimal256 (76)")
        make = pa.decimal128 if info.precision <= decimals.MAX_DECIMAL128_PRECISION else pa.decimal256
        return make(info.precision, info.scale)
    if kind == "time":
        return pa.time32("ms") if info.unit == "ms" else pa.time64(info.unit)
    if kind == "timestamp":
        return pa.timestamp(info.unit, tz="UTC" if info.utc else None)
    if kind in ("fixed_binary", "interval"):
        return pa.binary(info.type_length)
    simple = {
        "boolean": pa.bool_, "float16": pa.float16, "date": pa.date32, "null": pa.null, "uuid": pa.uuid,
        "float": pa.float32 if info.bit_width == 32 else pa.float64,
        "int96": lambda: pa.timestamp(int96_unit),
    }  # fmt: skip
    if kind not in simple:
        raise UnsupportedError(f"no Arrow type for logical kind {kind!r}")
    return simple[kind]()


def _buffer(pa: Any, values: np.ndarray) -> Any:
    """A pyarrow buffer over a numpy array's memory (no copy when contiguous)."""
    values = np.ascontiguousarray(values)
    return pa.py_buffer(values.reshape(-1) if values.ndim != 1 else values)


def _validity_buffer(pa: Any, array: Array) -> tuple[Any, int]:
    nulls = array.null_count
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(array.validity, bitorder="little")), nulls


def _binary_to_arrow(pa: Any, array: BinaryArray, info: LogicalInfo) -> Any:
    offsets = np.asarray(array.offsets)
    large = len(array) > 0 and int(offsets[-1]) > _INT32_MAX
    offsets = offsets.astype(np.int64 if large else np.int32, copy=False)
    arrow_type = to_arrow_type(info, large=large)
    storage_type = arrow_type.storage_type if info.kind == "json" else arrow_type
    validity, nulls = _validity_buffer(pa, array)
    buffers = [validity, _buffer(pa, offsets), _buffer(pa, np.asarray(array.data, dtype=np.uint8))]
    storage = pa.Array.from_buffers(storage_type, len(array), buffers, null_count=nulls)
    return pa.ExtensionArray.from_storage(arrow_type, storage) if info.kind == "json" else storage


def leaf_to_arrow(array: PrimitiveArray | BinaryArray, info: LogicalInfo, *, int96_unit: str = "ns") -> Any:
    """A leaf column as the ``pyarrow.Array`` pyarrow.parquet would read,
    sharing the numpy buffers wherever Arrow's layout allows."""
    pa, n = _pa(), len(array)
    if info.kind == "null":
        return pa.nulls(n)
    if not isinstance(array, BinaryArray) or info.kind == "decimal":
        array = to_logical(array, info, int96_unit=int96_unit)
    if isinstance(array, BinaryArray):
        return _binary_to_arrow(pa, array, info)
    arrow_type = to_arrow_type(info, int96_unit=int96_unit)
    values = np.asarray(array.values)
    if info.kind == "boolean":
        values = np.packbits(values.astype(bool, copy=False), bitorder="little")
    elif info.kind == "decimal" and values.ndim == 1:
        values = decimals.ints_to_le(values, decimals.arrow_width(info.precision))
    elif values.ndim == 1 and values.dtype.byteorder not in "=|":
        values = values.astype(values.dtype.newbyteorder("="))
    storage_type = arrow_type.storage_type if info.kind == "uuid" else arrow_type
    validity, nulls = _validity_buffer(pa, array)
    result = pa.Array.from_buffers(storage_type, n, [validity, _buffer(pa, values)], null_count=nulls)
    return pa.ExtensionArray.from_storage(arrow_type, result) if info.kind == "uuid" else result


class ArrowChild(NamedTuple):
    """A converted child of a nested array: its Arrow array and field details.
    ``name`` defaults to the role it was asked for (the struct field name,
    "element", "key" or "value")."""

    array: Any
    nullable: bool = True
    name: str | None = None
    field_id: int | None = None


def arrow_field(pa: Any, child: ArrowChild, role: str, nullable: bool | None = None) -> Any:
    """The ``pyarrow.Field`` of a converted array, named ``child.name`` or its
    role, carrying its Parquet field id as PARQUET:field_id metadata, as pyarrow."""
    metadata = None if child.field_id is None else {b"PARQUET:field_id": str(child.field_id).encode()}
    keep = child.nullable if nullable is None else nullable
    keep = keep or pa.types.is_null(child.array.type)  # Arrow's null type is nullable by definition
    return pa.field(child.name or role, child.array.type, nullable=keep, metadata=metadata)


def _without_nulls(pa: Any, array: Any) -> Any:
    """``array`` (as built here) without its validity bitmap: its slots, those
    under it included, as they are (converted with their nulls: an INT96
    slot there is not a timestamp that decides the unit)."""
    typ = array.type
    if not array.null_count or pa.types.is_null(typ):
        return array
    if isinstance(typ, pa.BaseExtensionType):
        return pa.ExtensionArray.from_storage(typ, _without_nulls(pa, array.storage))
    if pa.types.is_struct(typ):
        children = [array.field(i) for i in range(typ.num_fields)]
    elif pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_map(typ):
        children = [array.values]
    else:
        children = None
    own = array.buffers()[: typ.num_buffers]
    return pa.Array.from_buffers(typ, len(array), [None, *own[1:]], null_count=0, offset=array.offset,
                                 children=children)


def _list_offsets(pa: Any, offsets: np.ndarray) -> tuple[Any, bool]:
    offsets = np.asarray(offsets)
    large = len(offsets) > 0 and int(offsets[-1]) > _INT32_MAX
    return _buffer(pa, offsets.astype(np.int64 if large else np.int32, copy=False)), large


def nested_to_arrow(array: ListArray | StructArray | MapArray, convert: Callable[[Array, str], ArrowChild]) -> Any:
    """A list, struct or map array as a ``pyarrow.Array``; ``convert(child,
    role)`` turns each child into an :class:`ArrowChild` (role: the struct
    field name, "element" for list items, "key" / "value" for maps).

    Lists get int32 offsets as pyarrow reads them (large_list past 2**31
    items); a map without a value field becomes a list of its keys, as
    pyarrow reads it."""
    pa, n = _pa(), len(array)
    validity, nulls = _validity_buffer(pa, array)
    if isinstance(array, StructArray):
        kids = [(name, convert(child, name)) for name, child in array.children.items()]
        arrow_type = pa.struct([arrow_field(pa, kid, name) for name, kid in kids])
        # A field that is not nullable is null only under null structs: Arrow's holds no nulls there.
        children = [kid.array if kid.nullable else _without_nulls(pa, kid.array) for _, kid in kids]
        return pa.Array.from_buffers(arrow_type, n, [validity], null_count=nulls, children=children)
    offsets, large = _list_offsets(pa, array.offsets)
    if isinstance(array, MapArray) and array.items is not None:
        if large:
            raise UnsupportedError("a map column with more than 2**31 entries has no Arrow map type")
        key, item = convert(array.keys, "key"), convert(array.items, "value")
        if key.array.null_count:  # (Arrow would abort the process on building such a map)
            raise SchemaError(f"{key.array.null_count} map keys are null, which Arrow's map type cannot hold "
                              "(the Parquet key field should be required; to_pylist reads them)")
        key_field, item_field = arrow_field(pa, key, "key", nullable=False), arrow_field(pa, item, "value")
        entries = pa.StructArray.from_arrays([key.array, item.array], fields=[key_field, item_field])
        arrow_type = pa.map_(key_field, item_field)
        return pa.Array.from_buffers(arrow_type, n, [validity, offsets], null_count=nulls, children=[entries])
    role = "key" if isinstance(array, MapArray) else "element"
    kid = convert(array.keys if isinstance(array, MapArray) else array.values, role)
    arrow_type = (pa.large_list if large else pa.list_)(arrow_field(pa, kid, role))
    return pa.Array.from_buffers(arrow_type, n, [validity, offsets], null_count=nulls, children=[kid.array])


# ---------------------------------------------------------------- Arrow -> Parquet


@dataclass(frozen=True)
class ArrowField:
    """What a writer needs to know about one Arrow field: ``layout`` is
    "leaf", "list", "struct" or "map"; ``info`` describes a leaf's Parquet
    type; ``children`` are the list element, the struct fields, or the map
    key and value."""

    name: str
    nullable: bool
    layout: str
    info: LogicalInfo | None = None
    children: tuple[ArrowField, ...] = ()
    field_id: int | None = None


def _normalized_type(pa: Any, typ: Any) -> Any:
    """The Arrow type written in place of ``typ`` (the recasts pyarrow.parquet
    applies: views to large types, date64 to date32, seconds to milliseconds,
    durations to int64, fixed-size lists and list views to lists, dictionaries and unknown
    extension types to their values)."""
    t = pa.types
    if t.is_dictionary(typ):
        return _normalized_type(pa, typ.value_type)
    if isinstance(typ, pa.BaseExtensionType):
        known = typ.extension_name in ("arrow.uuid", "arrow.json")
        return typ if known else _normalized_type(pa, typ.storage_type)
    if t.is_string_view(typ):
        return pa.large_string()
    if t.is_binary_view(typ):
        return pa.large_binary()
    if t.is_date64(typ):
        return pa.date32()
    if t.is_duration(typ):
        return pa.int64()
    if t.is_time32(typ) and typ.unit == "s":
        return pa.time32("ms")
    if t.is_timestamp(typ) and typ.unit == "s":
        return pa.timestamp("ms", tz=typ.tz)
    if t.is_fixed_size_list(typ) or t.is_list_view(typ):
        return pa.list_(typ.value_field)
    if t.is_large_list_view(typ):
        return pa.large_list(typ.value_field)
    return typ


def _normalize(pa: Any, array: Any) -> Any:
    """Recast an array to :func:`_normalized_type` (a copy only when it differs)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks else pa.array([], array.type)
    typ = array.type
    if pa.types.is_dictionary(typ):
        return _normalize(pa, array.dictionary_decode())
    if isinstance(typ, pa.BaseExtensionType) and typ.extension_name not in ("arrow.uuid", "arrow.json"):
        return _normalize(pa, array.storage)
    if pa.types.is_list_view(typ) or pa.types.is_large_list_view(typ):
        return _normalize(pa, _list_from_view(pa, array))
    if pa.types.is_fixed_size_list(typ):
        return _list_from_fixed(pa, array)
    target = _normalized_type(pa, typ)
    if target == typ:
        return array
    try:
        # date64 milliseconds off midnight: pyarrow writes the day, truncated toward zero (-1 ms is day 0)
        return array.cast(target, safe=not pa.types.is_date64(typ))
    except pa.ArrowInvalid as exc:  # e.g. seconds beyond int64 milliseconds
        raise SchemaError(str(exc)) from None


def _list_from_view(pa: Any, array: Any) -> Any:
    """A list view as a list array of the same rows (pyarrow's cast leaves
    null views' offsets short): each row's values gathered in order."""
    valid = np.asarray(array.is_valid())
    sizes = np.where(valid, np.asarray(array.sizes, dtype=np.int64), 0)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    values = _take_items(pa, array.values, spans(np.asarray(array.offsets), sizes))
    large = pa.types.is_large_list_view(array.type)
    kind, width = (pa.LargeListArray, pa.int64()) if large else (pa.ListArray, pa.int32())
    return kind.from_arrays(pa.array(offsets, width), values, mask=pa.array(~valid) if not valid.all() else None)


def _list_from_fixed(pa: Any, array: Any) -> Any:
    """A fixed-size list array as a list array over the same items (pyarrow's
    cast miscounts the null-typed items of lists below it)."""
    size, n = array.type.list_size, len(array)
    offsets = pa.array(np.arange(n + 1, dtype=np.int64) * size, pa.int32())
    values = array.values.slice(array.offset * size, n * size)
    mask = array.is_null() if array.null_count else None
    return pa.ListArray.from_arrays(offsets, values, type=_normalized_type(pa, array.type), mask=mask)


def _take_items(pa: Any, array: Any, indices: np.ndarray) -> Any:
    """``array.take(indices)``; string and binary views (at any depth), which
    pyarrow's take does not serve, come out as large strings and binaries."""
    plain = without_views(pa, array.type)
    if plain != array.type:
        try:
            array = array.cast(plain)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise UnsupportedError(f"cannot gather the items of a {array.type} array: {exc}") from None
    return array.take(pa.array(indices))


def without_views(pa: Any, typ: Any) -> Any:
    """``typ`` with its string and binary views, at any depth of lists,
    structs and maps, as large strings and binaries."""
    def unviewed(leaf: Any) -> Any:
        if pa.types.is_string_view(leaf):
            return pa.large_string()
        return pa.large_binary() if pa.types.is_binary_view(leaf) else leaf

    return map_leaves(pa, typ, unviewed)


def map_leaves(pa: Any, typ: Any, leaf: Callable[[Any], Any]) -> Any:
    """``typ`` with ``leaf`` applied to each type in it, at any depth of lists,
    structs and maps, that is none of those."""
    t = pa.types

    def field(f: Any) -> Any:
        return f.with_type(map_leaves(pa, f.type, leaf))

    if t.is_struct(typ):
        return pa.struct([field(typ.field(i)) for i in range(typ.num_fields)])
    if t.is_map(typ):
        return pa.map_(field(typ.key_field), field(typ.item_field), keys_sorted=typ.keys_sorted)
    if t.is_fixed_size_list(typ):
        return pa.list_(field(typ.value_field), typ.list_size)
    for is_kind, kind in ((t.is_list, pa.list_), (t.is_large_list, pa.large_list), (t.is_list_view, pa.list_view),
                          (t.is_large_list_view, pa.large_list_view)):
        if is_kind(typ):
            return kind(field(typ.value_field))
    return leaf(typ)


def _leaf_info(pa: Any, typ: Any) -> LogicalInfo:
    """The Parquet type pyarrow.parquet writes for an Arrow leaf type."""
    t = pa.types
    if isinstance(typ, pa.BaseExtensionType):
        if typ.extension_name == "arrow.uuid":
            return LogicalInfo("uuid", Type.FIXED_LEN_BYTE_ARRAY, type_length=16)
        return LogicalInfo("json", Type.BYTE_ARRAY)
    if t.is_integer(typ):
        physical = Type.INT64 if typ.bit_width == 64 else Type.INT32
        return LogicalInfo("int", physical, bit_width=typ.bit_width, signed=t.is_signed_integer(typ))
    if t.is_decimal(typ):
        length = decimals.min_bytes(typ.precision)
        return LogicalInfo("decimal", Type.FIXED_LEN_BYTE_ARRAY, type_length=length,
                           precision=typ.precision, scale=typ.scale)  # fmt: skip
    if t.is_timestamp(typ):
        return LogicalInfo("timestamp", Type.INT64, unit=typ.unit, utc=typ.tz is not None)
    if t.is_time(typ):
        return LogicalInfo("time", Type.INT32 if typ.unit == "ms" else Type.INT64, unit=typ.unit)
    if t.is_fixed_size_binary(typ):
        return LogicalInfo("fixed_binary", Type.FIXED_LEN_BYTE_ARRAY, type_length=typ.byte_width)
    checks = [
        (t.is_null, LogicalInfo("null", Type.INT32)),
        (t.is_boolean, LogicalInfo("boolean", Type.BOOLEAN)),
        (t.is_float16, LogicalInfo("float16", Type.FIXED_LEN_BYTE_ARRAY, type_length=2, bit_width=16)),
        (t.is_float32, LogicalInfo("float", Type.FLOAT, bit_width=32)),
        (t.is_float64, LogicalInfo("float", Type.DOUBLE, bit_width=64)),
        (lambda x: t.is_string(x) or t.is_large_string(x), LogicalInfo("string", Type.BYTE_ARRAY)),
        (lambda x: t.is_binary(x) or t.is_large_binary(x), LogicalInfo("binary", Type.BYTE_ARRAY)),
        (t.is_date32, LogicalInfo("date", Type.INT32)),
    ]
    for test, info in checks:
        if test(typ):
            return info
    raise UnsupportedError(f"Arrow type {typ} has no Parquet equivalent here")


_FIELD_ID = re.compile(rb"-?[0-9]+")


def _field_id(metadata: Any) -> int | None:
    """The field id a PARQUET:field_id entry gives, as pyarrow reads it: a
    decimal int32 of at least 0 (pyarrow's -1 and any other negative mean
    none); anything else (out of range, not a number) is no field id either."""
    raw = (metadata or {}).get(b"PARQUET:field_id")
    if raw is None or _FIELD_ID.fullmatch(raw) is None:
        return None
    value = int(raw)
    return value if 0 <= value < 2 ** 31 else None


def field_from_arrow(field: Any) -> ArrowField:
    """Describe a ``pyarrow.Field`` (after the recasts :func:`from_arrow` applies)."""
    pa = _pa()
    typ = _normalized_type(pa, field.type)
    base = {"name": field.name, "nullable": field.nullable, "field_id": _field_id(field.metadata)}
    geo = _geoarrow(pa, field.type)
    if geo is not None and (pa.types.is_binary(typ) or pa.types.is_large_binary(typ)):
        return ArrowField(layout="leaf", info=replace(LogicalInfo("binary", Type.BYTE_ARRAY), geo=geo), **base)
    if pa.types.is_struct(typ):
        kids = tuple(field_from_arrow(typ.field(i)) for i in range(typ.num_fields))
        return ArrowField(layout="struct", children=kids, **base)
    if pa.types.is_map(typ):
        kids = (field_from_arrow(typ.key_field), field_from_arrow(typ.item_field))
        return ArrowField(layout="map", children=kids, **base)
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return ArrowField(layout="list", children=(field_from_arrow(typ.value_field),), **base)
    if pa.types.is_list_view(typ) or pa.types.is_large_list_view(typ) or pa.types.is_union(typ):
        raise UnsupportedError(f"Arrow type {typ} cannot be written to Parquet")
    return ArrowField(layout="leaf", info=_leaf_info(pa, typ), **base)


def _geoarrow(pa: Any, typ: Any) -> Geospatial | None:
    """The GEOMETRY / GEOGRAPHY annotation of a ``geoarrow.wkb`` type (the
    extension's own serialized metadata; a type that cannot serialize it
    takes the defaults), or None for any other type."""
    if not isinstance(typ, pa.BaseExtensionType) or typ.extension_name != GEOARROW_WKB:
        return None
    serialize = getattr(typ, "__arrow_ext_serialize__", None)
    return geo_from_geoarrow(serialize() if serialize is not None else b"")


def _validity_from_arrow(array: Any) -> np.ndarray | None:
    if array.null_count == 0:
        return None
    bitmap = array.buffers()[0]
    if bitmap is None:  # the null type has no bitmap: every slot is null
        return np.zeros(len(array), dtype=bool)
    bits = np.frombuffer(bitmap, dtype=np.uint8)
    return np.unpackbits(bits, count=array.offset + len(array), bitorder="little")[array.offset :].astype(bool)


def _offsets_from_arrow(array: Any, large: bool) -> np.ndarray:
    raw = np.frombuffer(array.buffers()[1], dtype=np.int64 if large else np.int32)
    return raw[array.offset : array.offset + len(array) + 1].astype(np.int64)


def _drop_null_ranges(offsets: np.ndarray, validity: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Offsets (from 0) whose null slots are empty, and the indices of the
    child items kept (None when nothing is dropped)."""
    offsets = offsets - offsets[0]
    lengths = np.diff(offsets)
    if validity is None or not (lengths[~validity] > 0).any():
        return offsets, None
    lengths = np.where(validity, lengths, 0)
    starts = offsets[:-1]
    kept = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=kept[1:])
    take = np.repeat(starts - kept[:-1], lengths) + np.arange(int(kept[-1]), dtype=np.int64)
    return kept, take


def _primitive_values(array: Any, info: LogicalInfo) -> np.ndarray:
    n, off = len(array), array.offset
    data = array.buffers()[1]
    if info.kind == "boolean":
        bits = np.frombuffer(data, dtype=np.uint8)
        return np.unpackbits(bits, count=off + n, bitorder="little")[off:].astype(bool)
    if info.kind in ("fixed_binary", "uuid", "decimal"):
        width = array.type.byte_width
        raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        return raw[off * width : (off + n) * width].reshape(n, width)
    dtype = logical_dtype(info)
    return np.frombuffer(data, dtype=dtype, count=n, offset=off * dtype.itemsize)


def _leaf_from_arrow(array: Any, info: LogicalInfo) -> Array:
    """An Arrow leaf as physical values: zero-copy for numbers, dates, times,
    timestamps and binary data without nulls; null slots are zeroed (a copy)
    to keep the package's convention."""
    n = len(array)
    validity = _validity_from_arrow(array)
    if info.kind == "null":
        return from_logical(PrimitiveArray(n, np.zeros(n, np.int32)), info)
    if info.kind in ("uuid", "json"):
        array = array.storage
    if info.physical_type == Type.BYTE_ARRAY and info.kind != "decimal":
        large = array.type.id in (_pa().large_string().id, _pa().large_binary().id)
        offsets = _offsets_from_arrow(array, large)
        raw = array.buffers()[2]
        data = np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.zeros(0, np.uint8)
        data = data[int(offsets[0]) : int(offsets[-1])]
        offsets, take = _drop_null_ranges(offsets, validity)
        if take is not None:
            data = data[take]
        return BinaryArray(n, offsets, data, validity=validity)
    values = _primitive_values(array, info)
    if validity is not None:
        mask = validity if values.ndim == 1 else validity[:, None]
        values = np.where(mask, values, np.zeros((), values.dtype))
    return from_logical(PrimitiveArray(n, values, validity=validity), info)


def _nested_from_arrow(pa: Any, array: Any, field: ArrowField) -> Array:
    n = len(array)
    validity = _validity_from_arrow(array)
    if field.layout == "struct":
        children = {kid.name: _from_arrow(pa, array.field(i), kid) for i, kid in enumerate(field.children)}
        return StructArray(n, children, validity=validity)
    offsets = _offsets_from_arrow(array, pa.types.is_large_list(array.type))
    child = array.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    offsets, take = _drop_null_ranges(offsets, validity)
    if take is not None:
        child = _take_items(pa, child, take)
    if field.layout == "list":
        return ListArray(n, offsets, _from_arrow(pa, child, field.children[0]), validity=validity)
    key_field, item_field = field.children
    keys = _from_arrow(pa, child.field(0), key_field)
    return MapArray(n, offsets, keys, _from_arrow(pa, child.field(1), item_field), validity=validity)


def _from_arrow(pa: Any, array: Any, field: ArrowField) -> Array:
    array = _normalize(pa, array)
    if field.layout == "leaf":
        return _leaf_from_arrow(array, field.info)
    return _nested_from_arrow(pa, array, field)


def from_arrow(array: Any, name: str = "", nullable: bool = True, *, field: Any = None) -> tuple[Array, ArrowField]:
    """A ``pyarrow.Array`` (or ``ChunkedArray``) as the package's physical
    arrays, ready to encode, plus the :class:`ArrowField` describing them.
    ``field``: the table schema's ``pyarrow.Field`` for the array, whose
    names and field ids (PARQUET:field_id metadata, at any depth) are written,
    in place of ``name``, ``nullable`` and the array's own type."""
    pa = _pa()
    if not isinstance(array, (pa.Array, pa.ChunkedArray)):
        raise SchemaError(f"expected a pyarrow Array, got {type(array).__name__}")
    field = field_from_arrow(field if field is not None else pa.field(name, array.type, nullable=nullable))
    return _from_arrow(pa, array, field), field


__all__ = [
    "ArrowChild",
    "ArrowField",
    "arrow_field",
    "to_arrow_type",
    "leaf_to_arrow",
    "nested_to_arrow",
    "field_from_arrow",
    "from_arrow",
    "map_leaves",
    "without_views",
]
