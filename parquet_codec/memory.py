"""Reuse of the large buffers reads and ciphers allocate, once nothing refers to them.

Fresh memory costs the kernel a page fault and a zeroed page per 4 KiB on
first touch: for a numeric column, about as much as decoding it; for a page
decrypted into a fresh buffer, more than AES. Arrow's allocator keeps freed
memory for the next allocation; numpy's (malloc) hands large blocks back to
the system as soon as they are freed. So reads take their large arrays
(values, byte-array data), and the ciphers their page-sized modules, from a
:class:`BufferPool`, which keeps up to ``capacity`` bytes of the buffers it
handed out and hands one out again once no Python object refers to it: every
view of a buffer, every buffer export (memoryview, Arrow's zero-copy
wrappers) holds a reference to the array at the root of its views, so that
array's reference count falling back to the pool's own means it is free.

A pool of small buffers (page-sized cipher modules) maps them apart from the
allocator's heap, where long-lived ones kept the heap from shrinking and the
memory around them was given back to the kernel and faulted in again on every
later allocation. Large arrays come from numpy, which maps them apart anyway
and asks the kernel for huge pages.

A free buffer is kept until an allocation needs its room or
:meth:`BufferPool.release_unused` drops it, as Arrow's pool keeps freed
memory. ``default_pool().capacity = 0`` turns reuse off.

Decoding also makes many short-lived arrays of a few megabytes, which no
pool can serve (numpy allocates them inside its functions). glibc's malloc
maps such blocks apart, or takes them from the top of its heap and hands
that back to the kernel as soon as they are freed, unless it has seen a
large block freed: then it raises its thresholds for both to that block's
size, up to 32 MiB (mallopt(3), M_MMAP_THRESHOLD, "dynamic"). Until then,
every read faults its scratch memory in afresh: about a third of the time of
reading a nullable numeric column. So importing this module frees one block
of that size, which puts malloc into the state a program that has freed one
such array is in anyway. Setting ``MALLOC_MMAP_THRESHOLD_`` in the
environment fixes the thresholds instead (and this has no effect).
"""

from __future__ import annotations

import mmap
import sys

import numpy as np

from parquet_codec.fork_safe import ForkSafeLock

#: Smaller arrays come from malloc, which keeps and reuses them itself.
MIN_POOLED_BYTES = 1 << 20

#: A free buffer serves a request of up to this fraction less than its size.
_SLACK = 4

#: Sizes are rounded up to this, so that the slightly different pages of a chunk share buffers.
_GRANULE = 64 * 1024


class BufferPool:
    """Buffers handed out by :meth:`empty` and :meth:`bytes`, kept for reuse
    (see the module docstring). Requests under ``min_bytes``, or larger than
    ``capacity``, get plain numpy memory; ``mapped`` pools map their own."""

    def __init__(self, capacity: int = 256 << 20, min_bytes: int = MIN_POOLED_BYTES, mapped: bool = False) -> None:
        self.capacity = capacity
        self.min_bytes = min_bytes
        self._allocate = _mapped if mapped else _numpy_bytes
        self._buffers: list[np.ndarray] = []  # least recently handed out first
        self._lock = ForkSafeLock()

    def empty(self, count: int, dtype: np.dtype | type) -> np.ndarray:
        """An uninitialized 1-D array of ``count`` items of ``dtype``, like ``np.empty``."""
        dtype = np.dtype(dtype)
        nbytes = count * dtype.itemsize
        buffer = self._take(nbytes)
        return np.empty(count, dtype=dtype) if buffer is None else buffer[:nbytes].view(dtype)

    def bytes(self, size: int) -> memoryview:
        """``size`` writable bytes, uninitialized."""
        buffer = self._take(size)
        return memoryview(np.empty(size, dtype=np.uint8) if buffer is None else buffer)[:size]

    def _take(self, nbytes: int) -> np.ndarray | None:
        """A free pooled buffer of at least ``nbytes`` (a new one if none), or None
        when the request is not pooled or the pool's buffers are all in use."""
        if nbytes < self.min_bytes or nbytes > self.capacity or nbytes <= 0:
            return None  # (an empty buffer: nothing to keep, and no mapping is empty)
        with self._lock:  # the check that a buffer is free and its claim (the view returned) as one
            buffers = self._buffers
            for i in reversed(range(len(buffers))):  # the most recently used first: warm in the caches
                if nbytes <= len(buffers[i]) <= nbytes + nbytes // _SLACK + _GRANULE and _is_free(buffers, i):
                    buffer = buffers.pop(i)
                    buffers.append(buffer)
                    return buffer
            size = -(-nbytes // _GRANULE) * _GRANULE
            if not self._make_room(size):
                return None  # not kept: left to its users
            buffer = self._allocate(size)
            buffers.append(buffer)
            return buffer

    def _make_room(self, nbytes: int) -> bool:
        """Drop free buffers, least recently used first, until ``nbytes`` more fit."""
        buffers = self._buffers
        held = sum(len(b) for b in buffers)
        i = 0
        while held + nbytes > self.capacity and i < len(buffers):
            if _is_free(buffers, i):
                held -= len(buffers.pop(i))
            else:
                i += 1
        return held + nbytes <= self.capacity

    def release_unused(self) -> None:
        """Drop every buffer no one refers to, returning its memory to the system."""
        with self._lock:
            buffers = self._buffers
            self._buffers = [buffers[i] for i in range(len(buffers)) if not _is_free(buffers, i)]

    def bytes_held(self) -> int:
        """Bytes of the buffers kept, in use or free."""
        with self._lock:
            return sum(len(b) for b in self._buffers)


# Private, where mmap's default is a shared mapping: a forked child would
# share the pool's buffers with its parent, and each would write into the
# memory the other still reads (copy-on-write keeps them apart).
_PRIVATE = {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_PRIVATE") else {}


def _mapped(size: int) -> np.ndarray:
    """``size`` bytes of anonymous memory mapped on their own, private to the process."""
    return np.frombuffer(mmap.mmap(-1, size, **_PRIVATE), dtype=np.uint8)


def _numpy_bytes(size: int) -> np.ndarray:
    return np.empty(size, dtype=np.uint8)


def _references(buffers: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(buffers[i])


# What the count reads when the list is the only holder, measured rather than
# assumed: interpreters differ in the references a call itself adds.
_ONLY_THE_POOL = _references([np.empty(1)], 0)


def _is_free(buffers: list[np.ndarray], i: int) -> bool:
    return _references(buffers, i) <= _ONLY_THE_POOL


#: The largest block whose release raises glibc's thresholds is 32 MiB
#: (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems), malloc's own header included.
_THRESHOLD_BLOCK = 31 << 20


def _raise_malloc_thresholds() -> None:
    """Free one block of about the size that raises malloc's thresholds the
    most (see the module docstring); it is never touched, so it costs a map
    and an unmap, not memory. Other allocators take it as any other block."""
    try:
        block = np.empty(_THRESHOLD_BLOCK, dtype=np.uint8)
    except MemoryError:  # (a process whose address space is limited that tightly keeps malloc's defaults)
        return
    del block


_raise_malloc_thresholds()
_DEFAULT = BufferPool()


def default_pool() -> BufferPool:
    """The pool reads take their large arrays from."""
    return _DEFAULT


__all__ = ["BufferPool", "MIN_POOLED_BYTES", "default_pool"]
