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

from dataclasses import dataclass, field

import numpy as np


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


__all__ = ["Array", "PrimitiveArray", "BinaryArray", "ListArray", "MapArray", "StructArray"]
