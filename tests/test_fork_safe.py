"""A lock held at a fork is free in the child."""

from __future__ import annotations

import os
import signal

import pytest

from parquet_codec.fork_safe import ForkSafeLock


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_lock_held_when_the_process_forks_is_free_in_the_child():
    lock = ForkSafeLock()
    with lock:  # as another thread holding it at the moment of the fork
        pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(10)  # a child that waits on the inherited lock dies of it
                with lock:
                    pass
            finally:
                os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    with lock:  # the parent's is its own, released as usual
        pass
