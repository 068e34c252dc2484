"""Arrow-layout columns held in numpy arrays.

Decoders and level assembly produce these directly; ``Table.to_arrow`` wraps
their buffers without copying and ``to_pylist`` walks them. The layout is
Arrow's, except that validity is a ``bool`` array (one byte per slot, packed
into a bitmap only when handed to Arrow) because numpy works on it directly.

Conventions shared by every array:
- ``validity`` is ``None`` when every slot is valid, else a bool array of
  ``len(array)`` slots with ``True`` for a present value.
- Null slots still occupy a slot: zero in value buffers, an empty range in
  offsets.
- Offsets are ``int64`` and start at 0, so a column may exceed 2 GiB.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from parquet_codec.encodings.byte_arrays import gather_ranges, spans


@dataclass(eq=False)
class Array:
    """Base of the array kinds; ``length`` slots, some of them null."""

    length: int
    validity: np.ndarray | None = field(default=None, kw_only=True)

    def __len__(self) -> int:
        return self.length

    @property
    def null_count(self) -> int:
        return 0 if self.validity is None else int(self.length - np.count_nonzero(self.validity))

    def is_valid(self) -> np.ndarray:
        """The validity as a bool array, materialized when all slots are valid."""
        if self.validity is None:
            return np.ones(self.length, dtype=bool)
        return self.validity


@dataclass(eq=False)
class PrimitiveArray(Array):
    """Fixed-width values: 1-D for numbers and booleans, 2-D ``uint8``
    ``(n, width)`` for FIXED_LEN_BYTE_ARRAY and INT96."""

    values: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray, validity: np.ndarray | None = None) -> PrimitiveArray:
        return cls(len(values), values, validity=validity)


@dataclass(eq=False)
class BinaryArray(Array):
    """Variable-length byte strings: value i is ``data[offsets[i]:offsets[i+1]]``."""

    offsets: np.ndarray
    data: np.ndarray

    @classmethod
    def of(cls, offsets: np.ndarray, data: np.ndarray, validity: np.ndarray | None = None) -> BinaryArray:
        return cls(len(offsets) - 1, offsets, data, validity=validity)


@dataclass(eq=False)
class ListArray(Array):
    """Lists: list i holds ``values[offsets[i]:offsets[i+1]]``."""

    offsets: np.ndarray
    values: Array

    @classmethod
    def of(cls, offsets: np.ndarray, values: Array, validity: np.ndarray | None = None) -> ListArray:
        return cls(len(offsets) - 1, offsets, values, validity=validity)


@dataclass(eq=False)
class MapArray(Array):
    """Maps as a list of entries: entry keys and items are parallel arrays.
    ``items`` is ``None`` for a map whose schema has no value field."""

    offsets: np.ndarray
    keys: Array
    items: Array | None

    @classmethod
    def of(
        cls, offsets: np.ndarray, keys: Array, items: Array | None, validity: np.ndarray | None = None
    ) -> MapArray:
        return cls(len(offsets) - 1, offsets, keys, items, validity=validity)


@dataclass(eq=False)
class StructArray(Array):
    """Structs: one child array per field, each of ``length`` slots."""

    children: dict[str, Array]


def take_range(array: Array, start: int, stop: int) -> Array:
    """Slots ``start:stop`` of ``array`` as views of its buffers (children are
    cut to the range the kept offsets reference)."""
    validity = None if array.validity is None else array.validity[start:stop]
    length = stop - start
    if isinstance(array, PrimitiveArray):
        return PrimitiveArray(length, array.values[start:stop], validity=validity)
    if isinstance(array, StructArray):
        children = {k: take_range(v, start, stop) for k, v in array.children.items()}
        return StructArray(length, children, validity=validity)
    offsets = array.offsets[start : stop + 1]
    if isinstance(array, BinaryArray):
        return BinaryArray(length, offsets, array.data, validity=validity)
    if not isinstance(array, (ListArray, MapArray)):
        raise TypeError(f"cannot slice {type(array).__name__}")
    # Offsets from 0 over the entries kept: what reads the slice (to_pylist,
    # a batch of iter_batches) then costs the slice, not the whole array.
    first, last = int(offsets[0]), int(offsets[-1])
    offsets = offsets - first
    if isinstance(array, ListArray):
        return ListArray(length, offsets, take_range(array.values, first, last), validity=validity)
    items = None if array.items is None else take_range(array.items, first, last)
    return MapArray(length, offsets, take_range(array.keys, first, last), items, validity=validity)


def take(array: PrimitiveArray | BinaryArray, indices: np.ndarray) -> PrimitiveArray | BinaryArray:
    """The values at ``indices`` of a leaf array, without validity (callers
    gather only the slots they know to be present)."""
    if isinstance(array, PrimitiveArray):
        return PrimitiveArray.of(array.values[indices])
    offsets = np.asarray(array.offsets, dtype=np.int64)
    starts = offsets[indices]
    return BinaryArray.of(*gather_ranges(array.data, starts, offsets[indices + 1] - starts))


def take_rows(array: Array, indices: np.ndarray) -> Array:
    """The slots ``indices`` of ``array`` in that order, validity included; lists
    and maps take the ranges of their children those slots reference."""
    validity = None if array.validity is None else array.validity[indices]
    n = len(indices)
    if isinstance(array, (PrimitiveArray, BinaryArray)):
        return dataclasses.replace(take(array, indices), validity=validity)
    if isinstance(array, StructArray):
        return StructArray(n, {k: take_rows(v, indices) for k, v in array.children.items()}, validity=validity)
    offsets = np.asarray(array.offsets, dtype=np.int64)
    starts = offsets[indices]
    lengths = offsets[indices + 1] - starts
    new_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    inner = spans(starts, lengths)
    if isinstance(array, ListArray):
        return ListArray(n, new_offsets, take_rows(array.values, inner), validity=validity)
    if isinstance(array, MapArray):
        items = None if array.items is None else take_rows(array.items, inner)
        return MapArray(n, new_offsets, take_rows(array.keys, inner), items, validity=validity)
    raise TypeError(f"cannot gather rows of {type(array).__name__}")


def concat(arrays: list[Array]) -> Array:
    """One array holding the slots of ``arrays`` in order (all of one kind and shape)."""
    if not arrays:
        raise ValueError("concat needs at least one array")
    first = arrays[0]
    if len(arrays) == 1:
        return first
    kind = type(first)
    if any(type(a) is not kind for a in arrays):
        raise TypeError("cannot concatenate arrays of different kinds")
    length = sum(a.length for a in arrays)
    validity = _concat_validity(arrays)
    if kind is PrimitiveArray:
        return PrimitiveArray(length, np.concatenate([a.values for a in arrays]), validity=validity)
    if kind is StructArray:
        children = {name: concat([a.children[name] for a in arrays]) for name in first.children}
        return StructArray(length, children, validity=validity)
    offsets = _concat_offsets([a.offsets for a in arrays])
    if kind is BinaryArray:
        data = np.concatenate([a.data[a.offsets[0] : a.offsets[-1]] for a in arrays])
        return BinaryArray(length, offsets, data, validity=validity)
    if kind is ListArray:
        return ListArray(length, offsets, concat([_referenced(a, a.values) for a in arrays]), validity=validity)
    if kind is MapArray:
        keys = concat([_referenced(a, a.keys) for a in arrays])
        items = None if first.items is None else concat([_referenced(a, a.items) for a in arrays])
        return MapArray(length, offsets, keys, items, validity=validity)
    raise TypeError(f"cannot concatenate {kind.__name__}")


def _referenced(parent: ListArray | MapArray, child: Array) -> Array:
    """The part of ``child`` that ``parent``'s offsets reference."""
    return take_range(child, int(parent.offsets[0]), int(parent.offsets[-1]))


def _concat_validity(arrays: list[Array]) -> np.ndarray | None:
    if all(a.validity is None for a in arrays):
        return None
    return np.concatenate([a.is_valid() for a in arrays])


def _concat_offsets(parts: list[np.ndarray]) -> np.ndarray:
    """Join offset arrays whose referenced children are concatenated in order
    (one int64 array, each part shifted in a single pass)."""
    out = np.empty(sum(len(p) - 1 for p in parts) + 1, dtype=np.int64)
    out[0] = 0
    at = base = 0
    for offsets in parts:
        count, first = len(offsets) - 1, int(offsets[0])
        np.subtract(offsets[1:], first - base, out=out[at + 1 : at + 1 + count], dtype=np.int64)
        at += count
        base += int(offsets[-1]) - first
    return out


__all__ = ["Array", "PrimitiveArray", "BinaryArray", "ListArray", "MapArray", "StructArray", "concat", "take", "take_range",
           "take_rows"]
