"""Reuse of the large arrays reads allocate, once nothing refers to them.

Fresh memory costs the kernel a page fault and a zeroed page per 4 KiB on
first touch: for a numeric column, about as much as decoding it. Arrow's
allocator keeps freed memory for the next allocation; numpy's (malloc)
hands large blocks back to the system as soon as they are freed. So reads
take their large arrays of fixed-width values from a :class:`BufferPool`,
which keeps up to ``capacity`` bytes of the arrays it handed out and hands
one out again once no Python object refers to it: every
view of an array, every buffer export (memoryview, Arrow's zero-copy
wrappers) holds a reference to the array that owns the memory, so its
reference count falling back to the pool's own means it is free.

A free array is kept until an allocation needs its room or
:meth:`BufferPool.release_unused` drops it, as Arrow's pool keeps freed
memory. ``default_pool().capacity = 0`` turns reuse off.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

#: Smaller arrays come from malloc, which keeps and reuses them itself.
MIN_POOLED_BYTES = 1 << 20

#: A free array serves a request of up to this fraction less than its size.
_SLACK = 4


class BufferPool:
    """Arrays handed out by :meth:`empty`, kept for reuse (see the module docstring)."""

    def __init__(self, capacity: int = 256 << 20) -> None:
        self.capacity = capacity
        self._arrays: list[np.ndarray] = []  # least recently handed out first
        self._lock = threading.Lock()

    def empty(self, count: int, dtype: np.dtype | type) -> np.ndarray:
        """An uninitialized 1-D array of ``count`` items of ``dtype``, like ``np.empty``."""
        dtype = np.dtype(dtype)
        nbytes = count * dtype.itemsize
        if nbytes < MIN_POOLED_BYTES or nbytes > self.capacity:
            return np.empty(count, dtype=dtype)
        with self._lock:  # the check that an array is free and its claim (the view returned) as one
            arrays = self._arrays
            for i in range(len(arrays)):
                if nbytes <= len(arrays[i]) <= nbytes + nbytes // _SLACK and _is_free(arrays, i):
                    array = arrays.pop(i)
                    arrays.append(array)
                    return array[:nbytes].view(dtype)
            if not self._make_room(nbytes):
                return np.empty(count, dtype=dtype)  # the pool's arrays are in use: not kept
            array = np.empty(nbytes, dtype=np.uint8)
            arrays.append(array)
            return array.view(dtype)

    def _make_room(self, nbytes: int) -> bool:
        """Drop free arrays, least recently used first, until ``nbytes`` more fit."""
        arrays = self._arrays
        held = sum(len(a) for a in arrays)
        i = 0
        while held + nbytes > self.capacity and i < len(arrays):
            if _is_free(arrays, i):
                held -= len(arrays.pop(i))
            else:
                i += 1
        return held + nbytes <= self.capacity

    def release_unused(self) -> None:
        """Drop every array no one refers to, returning its memory to the system."""
        with self._lock:
            arrays = self._arrays
            self._arrays = [arrays[i] for i in range(len(arrays)) if not _is_free(arrays, i)]

    def bytes_held(self) -> int:
        """Bytes of the arrays kept, in use or free."""
        with self._lock:
            return sum(len(a) for a in self._arrays)


def _references(arrays: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(arrays[i])


# What the count reads when the list is the only holder, measured rather than
# assumed: interpreters differ in the references a call itself adds.
_ONLY_THE_POOL = _references([np.empty(1)], 0)


def _is_free(arrays: list[np.ndarray], i: int) -> bool:
    return _references(arrays, i) <= _ONLY_THE_POOL


_DEFAULT = BufferPool()


def default_pool() -> BufferPool:
    """The pool reads allocate from."""
    return _DEFAULT


__all__ = ["BufferPool", "MIN_POOLED_BYTES", "default_pool"]
