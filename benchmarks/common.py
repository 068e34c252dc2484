"""Shared pieces of the benchmarks: datasets, timing, and a table printer.

The datasets are those of ../shared/docs/performance.md: numeric, nullable,
strings, nested and a wide footer. They are built with pyarrow (a benchmark
extra) and cached in a temporary folder between runs.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

DATA = Path(os.environ.get("PARQUET_CODEC_BENCH_DATA", Path(tempfile.gettempdir()) / "parquet-codec-bench"))


def alternating_medians(fns: list[Callable[[], object]], repeat: int = 5) -> tuple[list[float], list[object]]:
    """Median seconds of each function, and what each returned last. After one
    warm-up run each, they take turns within every repetition, so a ratio
    between them compares runs made under the same load of a shared, noisy
    machine."""
    timings = alternating_timings(fns, repeat)
    return timings.wall, timings.results


class Timings(NamedTuple):
    """Medians of the wall-clock and of the process CPU seconds of each
    function, and what each returned last."""

    wall: list[float]
    cpu: list[float]
    results: list[object]


def alternating_timings(fns: list[Callable[[], object]], repeat: int = 5) -> Timings:
    """:func:`alternating_medians` with the CPU time (all threads) of each run
    too: their ratio tells how many cores a library kept busy."""
    results = [fn() for fn in fns]  # warm the page cache and any lazy imports
    wall: list[list[float]] = [[] for _ in fns]
    cpu: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start, start_cpu = time.perf_counter(), time.process_time()
            results[i] = fn()
            cpu[i].append(time.process_time() - start_cpu)
            wall[i].append(time.perf_counter() - start)
    return Timings([statistics.median(t) for t in wall], [statistics.median(t) for t in cpu], results)


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    fn()  # warm the page cache and any lazy imports
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def datasets(scale: float = 1.0) -> dict[str, object]:
    """name -> pyarrow Table, sizes scaled by ``scale`` (1.0 = the documented sizes)."""
    import pyarrow as pa

    rng = np.random.default_rng(42)
    n = int(5_000_000 * scale)
    numeric = pa.table({
        "i64": rng.integers(-(2**62), 2**62, n), "i32": rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32),
        "f64": rng.standard_normal(n), "b": rng.random(n) < 0.5,
    }, schema=pa.schema([pa.field("i64", pa.int64(), False), pa.field("i32", pa.int32(), False),
                         pa.field("f64", pa.float64(), False), pa.field("b", pa.bool_(), False)]))
    m = int(2_000_000 * scale)
    mask = rng.random(m) < 0.1
    nullable = pa.table({
        "i64": pa.array(rng.integers(-(2**62), 2**62, m), mask=mask),
        "i32": pa.array(rng.integers(-(2**31), 2**31 - 1, m, dtype=np.int32), mask=mask),
        "f64": pa.array(rng.standard_normal(m), mask=mask), "b": pa.array(rng.random(m) < 0.5, mask=mask),
    })
    k = int(1_000_000 * scale)
    words = np.array([f"word-{i:06d}-{i * 7919 % 1000:03d}" for i in range(1000)], dtype=object)
    unique = rng.integers(0, 2**63, k).astype("U20")
    strings = pa.table({"low": pa.array(words[rng.integers(0, 1000, k)].tolist()),
                        "high": pa.array(unique.astype(object).tolist())})
    r = int(500_000 * scale)
    lengths = rng.integers(0, 11, r)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = pa.array(rng.integers(-(2**40), 2**40, int(offsets[-1])))
    struct = pa.StructArray.from_arrays(
        [pa.array(rng.integers(0, 2**31 - 1, r, dtype=np.int32)), pa.array(words[rng.integers(0, 1000, r)].tolist())],
        names=["x", "s"])
    nested = pa.table({"lst": pa.ListArray.from_arrays(pa.array(offsets), values), "st": struct})
    return {"numeric": numeric, "nullable": nullable, "strings": strings, "nested": nested}


def wide_table(columns: int = 1000, rows: int = 20) -> object:
    import pyarrow as pa

    return pa.table({f"c{i}": np.arange(rows, dtype=np.int32) for i in range(columns)})


def write_cached(name: str, table: object, **options: object) -> Path:
    import pyarrow.parquet as pq

    DATA.mkdir(parents=True, exist_ok=True)
    tag = "-".join(f"{k}={v}" for k, v in sorted(options.items()))
    path = DATA / f"{name}-{table.num_rows}-{tag}.parquet"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        pq.write_table(table, tmp, **options)
        tmp.rename(path)
    return path


def print_table(header: list[str], rows: list[list[object]]) -> None:
    cells = [[str(c) for c in header]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for j, row in enumerate(cells):
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))
        if j == 0:
            print("  ".join("-" * w for w in widths))
