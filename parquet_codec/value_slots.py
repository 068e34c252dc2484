"""Where a column chunk's values of a 1-D fixed-width type are decoded to.

A :class:`ValueBuffer` takes the non-null values page after page, in one
array preallocated from the chunk's declared count (or the caller's). A
flat optional leaf's values can instead go straight to their rows,
:class:`Spread` over the slots of the array the column is assembled into.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.arrays import Array, PrimitiveArray
from parquet_codec.encodings.plain import plain_dtype
from parquet_codec.errors import CorruptFileError
from parquet_codec.format.ttypes import Type
from parquet_codec.limits import reserve_items
from parquet_codec.memory import default_pool
from parquet_codec.schema import SchemaNode

# A preallocated value buffer is only sized from a chunk's declared value count
# when that count is plausible for its bytes; beyond this expansion (possible
# with RLE, rare in practice) pages are decoded one by one and joined.
_MAX_EXPANSION = 64


class ValueBuffer:
    """The non-null values of a chunk of a 1-D fixed-width type, decoded in
    place into one preallocated array, page after page."""

    def __init__(self, array: np.ndarray, declared: str = "values the column chunk declares") -> None:
        self.array = array
        self.declared = declared  # what sized the array, for the error when the pages overrun it
        self.filled = 0
        self.itemsize = array.itemsize
        # The array's bytes, for codecs and copies to write into (None when strided or read-only).
        self.raw = memoryview(array).cast("B") if array.flags.c_contiguous and array.flags.writeable else None

    def _claim(self, count: int) -> int:
        """Reserve the next ``count`` slots; returns the first one's index."""
        start = self.filled
        if count > len(self.array) - start:
            raise CorruptFileError(f"pages hold more than the {len(self.array)} {self.declared}")
        self.filled = start + count
        return start

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` slots, to be filled by the caller."""
        start = self._claim(count)
        return self.array[start : self.filled]

    def take_bytes(self, count: int) -> memoryview:
        """The bytes of the next ``count`` slots (``raw`` must exist), to be filled by the caller."""
        start = self._claim(count)
        return self.raw[start * self.itemsize : self.filled * self.itemsize]

    def result(self) -> Array:
        return PrimitiveArray.of(self.array[: self.filled])


class Spread:
    """The slots of a flat optional leaf, one per level, into which the
    non-null values are decoded a batch of pages at a time: no array of the
    chunk's values is made to be spread out afterwards, and each batch's
    slots are zeroed while in the cache, not all at once."""

    def __init__(self, slots: np.ndarray, leaf: SchemaNode) -> None:
        _check_array(slots, plain_dtype(leaf.physical_type), f"slots of {leaf.dotted_path!r}")
        self.slots = slots
        self.claimed = 0

    def claim(self, present: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The next ``len(present)`` slots, zeroed where no value is present,
        and the positions among them of the values present: None when all are
        (the values then fill the slots in order)."""
        first, self.claimed = self.claimed, self.claimed + len(present)
        if self.claimed > len(self.slots):
            raise CorruptFileError(f"pages hold more than the {len(self.slots)} level slots the row group declares")
        slots = self.slots[first : self.claimed]
        if present.all():  # (a column without nulls whose chunk does not say so)
            return slots, None
        slots.fill(0)
        return slots, np.flatnonzero(present)

    def result(self) -> PrimitiveArray:
        return PrimitiveArray.of(self.slots[: self.claimed])


def value_buffer(leaf: SchemaNode, capacity: int, chunk_bytes: int, out: np.ndarray | None = None
                 ) -> ValueBuffer | None:
    """A buffer for the chunk's values (``out`` when given), or None for a
    type it does not serve or an implausible declared ``capacity``."""
    dtype = plain_dtype(leaf.physical_type)
    if dtype is None:
        return None
    if out is not None:
        _check_array(out, dtype, "out")
        return ValueBuffer(out, "values the row group has rows for")  # (``out``: one slot per row of the group)
    if not plausible_items(capacity, dtype.itemsize, chunk_bytes):
        return None
    reserve_items(capacity, dtype.itemsize, f"{capacity} {Type._VALUES_TO_NAMES.get(leaf.physical_type)} values")
    return ValueBuffer(default_pool().empty(capacity, dtype))


def _check_array(array: np.ndarray, dtype: np.dtype, name: str) -> None:
    """Refuse (TypeError) an array given for values of ``dtype`` that is not 1-D of it."""
    if array.dtype != dtype or array.ndim != 1:
        raise TypeError(f"{name} must be a 1-D {dtype} array, not {array.ndim}-D {array.dtype}")


def plausible_items(count: int, itemsize: int, chunk_bytes: int) -> bool:
    """Whether ``count`` items of ``itemsize`` bytes may be allocated ahead for
    values stored in ``chunk_bytes`` (see _MAX_EXPANSION)."""
    return count * itemsize <= _MAX_EXPANSION * chunk_bytes + 2**20


__all__ = ["Spread", "ValueBuffer", "plausible_items", "value_buffer"]
