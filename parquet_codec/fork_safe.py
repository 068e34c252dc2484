"""A lock that a forked child gets back free.

A lock another thread holds when the process forks stays held in the child,
where no thread is left to release it: the child's first use would wait
forever. The state such locks guard here (pooled buffers, cached keys) stays
consistent across a fork, so the child simply gets a fresh lock.
"""

from __future__ import annotations

import os
import threading
import weakref
from types import TracebackType


class ForkSafeLock:
    """A ``threading.Lock`` (as a context manager) replaced by a free one in a forked child."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        _LOCKS.add(self)

    def __enter__(self) -> bool:
        return self._lock.__enter__()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._lock.__exit__(kind, value, traceback)


_LOCKS: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()


def _free_in_child() -> None:
    for lock in list(_LOCKS):
        lock._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_free_in_child)


__all__ = ["ForkSafeLock"]
