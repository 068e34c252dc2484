"""The pool reads allocate their large arrays from (parquet_codec.memory)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

import parquet_codec as pc
from parquet_codec.memory import MIN_POOLED_BYTES, BufferPool, default_pool

N = MIN_POOLED_BYTES // 8 * 2  # int64 items: large enough to be pooled


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def test_an_array_is_reused_only_once_nothing_refers_to_it():
    pool = BufferPool()
    first = pool.empty(N, np.int64)
    where = _address(first)
    assert _address(pool.empty(N, np.int64)) != where  # still held by `first`
    view, exported = first[10:], memoryview(first)
    del first
    for holder in ("view", "export"):  # either keeps the memory in use
        pool.release_unused()  # drops the free arrays, keeps the one in use
        assert pool.bytes_held() >= N * 8
        assert _address(pool.empty(N, np.int64)) != where
        if holder == "view":
            del view
    pool.release_unused()
    del exported
    again = pool.empty(N, np.float64)  # the pool's only array, free at last
    assert _address(again) == where and again.dtype == np.float64 and len(again) == N


@pytest.mark.parametrize("hold", [
    lambda view: view,
    lambda view: view[10:20],
    lambda view: np.frombuffer(view, dtype=np.uint8)[5:],
    lambda view: np.frombuffer(view[104:], dtype=np.int64),
], ids=["view", "slice", "numpy-array", "numpy-of-slice"])
def test_bytes_in_use_are_not_handed_out_again(hold):
    pool = BufferPool(min_bytes=4096)
    size = 200_000
    view = pool.bytes(size)
    view[:] = b"\x07" * size
    kept = hold(view)
    del view
    other = pool.bytes(size)
    other[:] = b"\x00" * size
    assert bytes(memoryview(kept).cast("B"))[:8] == b"\x07" * min(8, memoryview(kept).nbytes)
    del kept, other
    assert len({_address(np.frombuffer(pool.bytes(size), dtype=np.uint8)) for _ in range(3)}) == 1


def test_sizes_capacity_and_release():
    pool = BufferPool(capacity=3 * N * 8)
    small = pool.empty(10, np.int64)
    assert pool.bytes_held() == 0 and len(small) == 10  # left to malloc
    a = pool.empty(N, np.int64)
    where = _address(a)
    del a
    assert _address(pool.empty(N // 2, np.int64)) != where  # far smaller: not served by a large array
    assert _address(pool.empty(N - N // 8, np.int64)) == where  # a little smaller: served
    held = [pool.empty(N, np.int64) for _ in range(3)]
    assert pool.bytes_held() <= pool.capacity  # the fourth array is not kept
    del held
    pool.release_unused()
    assert pool.bytes_held() == 0
    assert BufferPool(capacity=0).empty(N, np.int64).base is None  # pooling off: plain numpy arrays


@pytest.mark.parametrize("mapped", [False, True], ids=["numpy", "mapped"])
def test_empty_requests_with_no_minimum_size(mapped):
    pool = BufferPool(min_bytes=0, mapped=mapped)
    assert len(pool.bytes(0)) == 0 and len(pool.empty(0, np.int64)) == 0
    assert pool.empty(1, np.int64).shape == (1,) and pool.bytes_held() > 0


def test_arrow_zero_copy_keeps_the_memory(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pool = BufferPool()
    values = pool.empty(N, np.int64)
    values[:] = np.arange(N)
    arrow = pa.array(values)  # zero-copy
    del values
    pool.empty(N, np.int64)[:] = -1
    assert arrow.to_numpy()[:5].tolist() == [0, 1, 2, 3, 4]


def test_tables_read_earlier_keep_their_values(tmp_path):
    rng = np.random.default_rng(0)
    first = {"a": rng.integers(0, 1 << 40, 1 << 18), "s": [f"v{i}" for i in range(1 << 16)] * 4}
    second = {"a": rng.integers(0, 1 << 40, 1 << 18), "s": [f"w{i}" for i in range(1 << 16)] * 4}
    paths = []
    for i, data in enumerate((first, second)):
        paths.append(tmp_path / f"{i}.parquet")
        pc.write_table(pc.Table.from_pydict(data), paths[-1], use_dictionary=False)
    kept = pc.read_table(paths[0])
    for _ in range(3):
        pc.read_table(paths[1])  # reuses what it freed, never what `kept` holds
    np.testing.assert_array_equal(kept.column("a").array.values, first["a"])
    assert kept.column("s").to_pylist()[-3:] == first["s"][-3:]
    assert default_pool().bytes_held() > 0


def test_threads_never_share_an_array():
    pool = BufferPool()
    seen: list[int] = []
    errors: list[str] = []

    def work(tag: int) -> None:
        for _ in range(50):
            array = pool.empty(N, np.int64)
            array.fill(tag)
            if not (array == tag).all():
                errors.append("shared")
            seen.append(_address(array))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(seen)) <= 8


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_never_writes_into_the_parents_mapped_buffers():
    pool = BufferPool(min_bytes=4096, mapped=True)
    size = 200_000
    kept = pool.bytes(size)
    kept[:] = b"\x01" * size
    pid = os.fork()
    if pid == 0:  # the child drops its copy and takes the buffer for itself
        try:
            del kept
            pool.bytes(size)[:] = b"\x02" * size
        finally:
            os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert bytes(kept) == b"\x01" * size


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_a_thread_holds_the_pool_takes_from_it():
    pool = BufferPool()
    with pool._lock:  # as a thread inside empty() at the moment another forks
        pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(10)  # a child that blocks on the inherited lock dies of it
                pool.empty(N, np.int64).fill(1)
            finally:
                os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def _glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):
        return False


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc thresholds")
def test_importing_the_package_raises_glibc_malloc_thresholds():
    # A block of 24 MiB comes from the heap (below the program break),
    # not from a mapping of its own: freed, it stays for the next one.
    code = ("import ctypes, numpy as np, parquet_codec\n"
            "libc = ctypes.CDLL(None); libc.sbrk.restype = ctypes.c_void_p\n"
            "block = np.empty(24 << 20, dtype=np.uint8)\n"
            "print(int(block.__array_interface__['data'][0] < libc.sbrk(0)))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "1"


def test_a_process_without_room_for_the_threshold_block_keeps_malloc_defaults(monkeypatch):
    import parquet_codec.memory as memory

    def refuse(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(memory.np, "empty", refuse)
    memory._raise_malloc_thresholds()  # no error: the block is simply not freed
