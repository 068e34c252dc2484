"""pyarrow.parquet.SortingColumn: the sort order a writer declares for a row
group's rows (spec, "RowGroup.sorting_columns"), by leaf column index, and its
conversion from and to sort keys named by column path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from parquet_codec.format.ttypes import SortingColumn as ThriftSortingColumn

_ORDERS = ("ascending", "descending")
_PLACEMENTS = ("at_start", "at_end")


@dataclass(frozen=True)
class SortingColumn:
    """One sort key of a row group: a leaf column index, its direction and
    where its nulls go."""

    column_index: int
    descending: bool = False
    nulls_first: bool = False

    @classmethod
    def from_ordering(cls, schema: Any, sort_keys: str | Sequence[tuple[str, str]],
                      null_placement: str = "at_end") -> tuple[SortingColumn, ...]:
        """Sort keys ``(column path, "ascending" | "descending")`` (or one
        column name, ascending) over ``schema`` (a pyarrow schema, or this
        package's) as SortingColumns."""
        if null_placement not in _PLACEMENTS:
            raise ValueError(f"null_placement must be one of {_PLACEMENTS}, not {null_placement!r}")
        keys = [(sort_keys, "ascending")] if isinstance(sort_keys, str) else list(sort_keys)
        paths = leaf_paths(schema)
        out = []
        for name, order in keys:
            if order not in _ORDERS:
                raise ValueError(f"sort order must be one of {_ORDERS}, not {order!r}")
            if name not in paths:
                raise ValueError(f"Sort key name {name!r} not found in schema: leaf columns are {paths}")
            out.append(cls(paths.index(name), order == "descending", null_placement == "at_start"))
        return tuple(out)

    @staticmethod
    def to_ordering(schema: Any, sorting_columns: Sequence[SortingColumn]) -> tuple[tuple[tuple[str, str], ...], str]:
        """The sort keys and null placement ``sorting_columns`` stand for."""
        paths = leaf_paths(schema)
        placements = {bool(c.nulls_first) for c in sorting_columns}
        if len(placements) > 1:
            raise ValueError("Sorting columns have inconsistent null placement")
        keys = tuple((paths[c.column_index], _ORDERS[bool(c.descending)]) for c in sorting_columns)
        return keys, "at_start" if placements == {True} else "at_end"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_thrift(self) -> ThriftSortingColumn:
        return ThriftSortingColumn(column_idx=self.column_index, descending=self.descending,
                                   nulls_first=self.nulls_first)

    @classmethod
    def of(cls, key: Any) -> SortingColumn:
        """A SortingColumn from this class, pyarrow's, or the Thrift struct."""
        if isinstance(key, ThriftSortingColumn):
            return cls(key.column_idx, bool(key.descending), bool(key.nulls_first))
        try:
            return cls(int(key.column_index), bool(key.descending), bool(key.nulls_first))
        except (AttributeError, TypeError, ValueError):
            raise TypeError(f"a sorting column has column_index, descending and nulls_first: not {key!r}") from None


def leaf_paths(schema: Any) -> list[str]:
    """The dotted paths of the leaf columns of ``schema``, in column order:
    this package's Schema (or schema view), or a pyarrow schema as pyarrow
    lays it out in Parquet (lists as ``list.element``, maps as ``key_value``)."""
    leaves = getattr(schema, "leaves", None)
    if leaves is not None:
        return [leaf.dotted_path for leaf in leaves]
    return [path for field in schema for path in _arrow_leaves(field.name, field.type)]


def _arrow_leaves(path: str, typ: Any) -> list[str]:
    import pyarrow as pa  # a pyarrow schema was given
    import pyarrow.types as types

    if isinstance(typ, pa.BaseExtensionType):
        return _arrow_leaves(path, typ.storage_type)
    if types.is_map(typ):
        return _arrow_leaves(f"{path}.key_value.key", typ.key_type) + \
            _arrow_leaves(f"{path}.key_value.value", typ.item_type)
    if types.is_list(typ) or types.is_large_list(typ) or types.is_fixed_size_list(typ) or \
            types.is_list_view(typ) or types.is_large_list_view(typ):
        return _arrow_leaves(f"{path}.list.element", typ.value_type)
    if types.is_struct(typ):
        return [leaf for i in range(typ.num_fields) for leaf in _arrow_leaves(f"{path}.{typ.field(i).name}",
                                                                                typ.field(i).type)]
    return [path]


__all__ = ["SortingColumn", "leaf_paths"]
