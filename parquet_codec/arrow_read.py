"""pyarrow.parquet's reading options that choose the Arrow types of what is read.

- ``coerce_int96_timestamp_unit``: INT96 timestamps in "s", "ms", "us" or "ns"
  (truncated toward negative infinity; the Python values follow);
- ``read_dictionary``: leaves (dotted Parquet paths: a flat column's name, or
  e.g. "a.list.element") of strings or binaries read as dictionaries with
  int32 indices;
- ``binary_type``: strings and binaries as large or view types (the matching
  string type for strings), ``list_type``: lists as large lists, and
  ``arrow_extensions_enabled=False``: UUID as fixed_size_binary(16) and JSON
  as string. pyarrow ignores these three when the file stores its Arrow
  schema (arrow_origin.py), and so does this module.

Only ``to_arrow`` types change, except the INT96 unit, which also truncates
the values ``to_pylist`` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from parquet_codec.errors import UnsupportedError
from parquet_codec.geospatial import GEOARROW_WKB, geoarrow_metadata
from parquet_codec.nested import LIST, MAP, PRIMITIVE, STRUCT, Field
from parquet_codec.types import Geospatial, logical_info

INT96_UNITS = ("s", "ms", "us", "ns")


@dataclass(frozen=True)
class ArrowReadOptions:
    """The reading options of a table (see the module docstring); the defaults change nothing."""

    int96_unit: str | None = None
    read_dictionary: frozenset[str] = frozenset()
    binary_type: Any = None
    list_type: Any = None
    extensions: bool = True
    #: The binary_type stored dictionaries of strings and binaries read as instead (see with_stored_schema).
    dictionaries_as: Any = None
    #: The key-value metadata of a file without a stored Arrow schema: its
    #: GEOMETRY and GEOGRAPHY columns read as ``geoarrow.wkb`` when pyarrow
    #: has that type registered, their CRS looked up there ("projjson:KEY").
    geo_metadata: tuple[tuple[str, str], ...] | None = None

    @classmethod
    def of(cls, *, coerce_int96_timestamp_unit: str | None = None, read_dictionary: Iterable[str] | None = None,
           binary_type: Any = None, list_type: Any = None, arrow_extensions_enabled: bool = True
           ) -> ArrowReadOptions:
        """The options from pyarrow's parameters, checked."""
        unit = coerce_int96_timestamp_unit
        if unit is not None and unit not in INT96_UNITS:
            raise UnsupportedError(f"coerce_int96_timestamp_unit must be one of {INT96_UNITS}, not {unit!r}")
        if isinstance(read_dictionary, str):
            raise TypeError("read_dictionary must be a list of column names, not a string")
        if binary_type is not None:
            _check_binary_type(binary_type)
        return cls(unit, frozenset(read_dictionary or ()), binary_type, list_type, bool(arrow_extensions_enabled))

    def with_stored_schema(self) -> ArrowReadOptions:
        """The options that still apply to a file that stores its Arrow schema:
        a large or view ``binary_type`` only keeps its dictionaries (stored or
        asked for) from being read as such, since pyarrow makes dictionaries
        of plain strings and binaries only."""
        if self._dictionaries_allowed():
            return replace(self, binary_type=None, list_type=None, extensions=True)
        return replace(self, read_dictionary=frozenset(), binary_type=None, list_type=None, extensions=True,
                       dictionaries_as=self.binary_type)

    def _dictionaries_allowed(self) -> bool:
        """pyarrow reads no dictionaries when binaries are to be large or views."""
        if self.binary_type is None:
            return True
        import pyarrow as pa

        return pa.types.is_binary(self.binary_type)

    def holds_dictionary_values(self, kind: str) -> bool:
        """Whether a leaf of LogicalInfo ``kind`` reads as strings or binaries,
        the values pyarrow makes dictionaries of (JSON too, read as strings
        without extensions); a stored dictionary of other values reads decoded."""
        return kind in ("string", "binary", "enum", "bson") or (kind == "json" and not self.extensions)

    def reads_dictionary(self, path: str, kind: str) -> bool:
        """Whether a leaf (dotted ``path``, LogicalInfo ``kind``) is asked for
        by ``read_dictionary``, holds dictionary values (above) and
        ``binary_type`` is neither large nor a view."""
        return self.holds_dictionary_values(kind) and path in self.read_dictionary and self._dictionaries_allowed()

    @property
    def shapes_types(self) -> bool:
        return bool(self.read_dictionary) or self.binary_type is not None or self.list_type is not None \
            or not self.extensions or self.geo_metadata is not None


DEFAULT = ArrowReadOptions()


def geo_metadata(leaves: Iterable[Any], key_value: Mapping[str, str | None] | None
                 ) -> tuple[tuple[str, str], ...] | None:
    """A file's key-value metadata as :attr:`ArrowReadOptions.geo_metadata`
    takes it; None when none of its ``leaves`` (schema nodes) is annotated
    GEOMETRY or GEOGRAPHY, so that other files' leaves are not looked at again."""
    annotations = (leaf.element.logicalType for leaf in leaves)
    if not any(lt is not None and (lt.GEOMETRY is not None or lt.GEOGRAPHY is not None) for lt in annotations):
        return None
    return tuple((k, v) for k, v in (key_value or {}).items() if v is not None)


def read_type(typ: Any, field: Field, options: ArrowReadOptions) -> Any:
    """``typ`` (the pyarrow type ``field`` is read as) with ``options`` applied."""
    import pyarrow as pa

    if not options.shapes_types:
        return typ
    if field.kind == PRIMITIVE:
        return _leaf_type(pa, typ, field, options)
    if field.kind == STRUCT and pa.types.is_struct(typ):
        return pa.struct([typ.field(i).with_type(read_type(typ.field(i).type, child, options))
                          for i, child in enumerate(field.children)])
    if field.kind == MAP and pa.types.is_map(typ):
        key = typ.key_field.with_type(read_type(typ.key_type, field.children[0], options))
        item = typ.item_field.with_type(read_type(typ.item_type, field.children[1], options))
        return pa.map_(key, item, keys_sorted=typ.keys_sorted)
    if field.kind in (LIST, MAP) and pa.types.is_list(typ):  # (a map without values reads as a list)
        value = typ.value_field.with_type(read_type(typ.value_type, field.children[0], options))
        large = options.list_type is not None and issubclass(options.list_type, pa.LargeListType)
        return pa.large_list(value) if large else pa.list_(value)
    return typ


def _leaf_type(pa: Any, typ: Any, field: Field, options: ArrowReadOptions) -> Any:
    geo = logical_info(field.node.element).geo if options.geo_metadata is not None and options.extensions else None
    if geo is not None:
        typ = _geoarrow_type(pa, typ, geo, dict(options.geo_metadata))
    json = isinstance(typ, pa.BaseExtensionType) and typ.extension_name == "arrow.json"
    if not options.extensions and isinstance(typ, pa.BaseExtensionType) and typ.extension_name in (
            "arrow.uuid", "arrow.json"):
        typ, json = typ.storage_type, False
    if options.binary_type is not None:
        if json:
            return pa.json_(_string_type(pa, options.binary_type))
        if pa.types.is_string(typ):
            typ = _string_type(pa, options.binary_type)
        elif pa.types.is_binary(typ):
            typ = options.binary_type
    if field.node.dotted_path in options.read_dictionary and _is_binary_like(pa, typ) \
            and options._dictionaries_allowed():
        typ = pa.dictionary(pa.int32(), typ)
    return typ


def _geoarrow_type(pa: Any, storage: Any, geo: Geospatial, key_value: dict[str, str]) -> Any:
    """The registered ``geoarrow.wkb`` type over ``storage`` for a column
    annotated ``geo`` (resolved from the extension name and metadata, as
    pyarrow resolves a stored schema), or ``storage`` when none is
    registered or the registered one refuses the metadata."""
    metadata = {b"ARROW:extension:name": GEOARROW_WKB.encode(),
                b"ARROW:extension:metadata": geoarrow_metadata(geo, key_value).encode()}
    try:
        typ = pa.ipc.read_schema(pa.schema([pa.field("", storage, metadata=metadata)]).serialize()).field(0).type
    except Exception:  # (the extension's own deserializer raised: e.g. a CRS it does not know)
        return storage
    return typ if isinstance(typ, pa.BaseExtensionType) else storage


def undictionaried(typ: Any, options: ArrowReadOptions) -> Any:
    """``typ`` (a column's type, its stored Arrow type applied) with its
    dictionaries of strings and binaries as ``options.dictionaries_as`` (its
    string type for strings), when the options have one."""
    binary_type = options.dictionaries_as
    if binary_type is None:
        return typ
    import pyarrow as pa

    from parquet_codec.arrow_adapter import map_leaves

    def plain(leaf: Any) -> Any:
        values = leaf.value_type if pa.types.is_dictionary(leaf) else None
        if values is not None and (pa.types.is_string(values) or pa.types.is_large_string(values)):
            return _string_type(pa, binary_type)
        return binary_type if values is not None and _is_binary_like(pa, values) else leaf

    return map_leaves(pa, typ, plain)


def _check_binary_type(binary_type: Any) -> None:
    """pyarrow takes the binary types only (it raises ArrowTypeError, a TypeError,
    for others; it crashes on what is not a DataType at all)."""
    import pyarrow as pa

    if not (isinstance(binary_type, pa.DataType) and (pa.types.is_binary(binary_type)
            or pa.types.is_large_binary(binary_type) or pa.types.is_binary_view(binary_type))):
        raise TypeError(f"binary_type must be pyarrow.binary(), large_binary() or binary_view(), not {binary_type!r}")


def _string_type(pa: Any, binary_type: Any) -> Any:
    if pa.types.is_large_binary(binary_type):
        return pa.large_string()
    if pa.types.is_binary_view(binary_type):
        return pa.string_view()
    return pa.string()


def _is_binary_like(pa: Any, typ: Any) -> bool:
    t = pa.types
    return t.is_string(typ) or t.is_binary(typ) or t.is_large_string(typ) or t.is_large_binary(typ) \
        or t.is_string_view(typ) or t.is_binary_view(typ)


__all__ = ["DEFAULT", "INT96_UNITS", "ArrowReadOptions", "geo_metadata", "read_type", "undictionaried"]
