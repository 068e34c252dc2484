"""Read speed against pyarrow (single-threaded) and fastparquet, as ratios.

    python -m benchmarks.read [--scale 1.0] [--repeat 5]

Each row reads the file pyarrow wrote with that codec into each library's
native columnar output: our Table (numpy buffers), pyarrow's Table, and
fastparquet's pandas DataFrame. Lower ratios are better. Targets (ratio to
pyarrow): numeric <= 1.2, nullable <= 1.5, strings <= 2.0, nested <= 2.0,
wide footer <= 3.0, and never slower than fastparquet.

"pyarrow cores" is pyarrow's CPU time over its wall time: read_table with
use_threads=False still decodes on Arrow's CPU thread pool (through the
dataset scanner), so it may keep more than one core busy. Ours and
fastparquet's run on one thread.
"""

from __future__ import annotations

import argparse

import parquet_codec as pc
from benchmarks.common import alternating_timings, datasets, print_table, wide_table, write_cached


def fastparquet_read(path: str) -> object | None:
    try:
        import fastparquet
    except ImportError:
        return None

    def run() -> object:
        return fastparquet.ParquetFile(path).to_pandas()

    try:
        run()
    except Exception:  # fastparquet cannot read some shapes (e.g. nested lists)
        return None
    return run


def _row(label: str, runs: list, repeat: int) -> list[object]:
    """Ours, pyarrow's and (when it reads the file) fastparquet's medians, timed in turns."""
    timings = alternating_timings(runs, repeat)
    ours, theirs = timings.wall[:2]
    fp = timings.wall[2] if len(runs) > 2 else None
    cores = f"{timings.cpu[1] / theirs:.1f}"
    return [label, ours, theirs, ours / theirs, cores, "-" if fp is None else fp,
            "-" if fp is None else f"{ours / fp:.2f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import pyarrow.parquet as pq

    rows = []
    cases = []
    tables = datasets(args.scale)
    for codec in ("none", "snappy", "zstd"):
        cases.append((f"numeric {codec}", write_cached("numeric", tables["numeric"], compression=codec)))
    cases.append(("nullable snappy", write_cached("nullable", tables["nullable"], compression="snappy")))
    cases.append(("strings snappy", write_cached("strings", tables["strings"], compression="snappy")))
    cases.append(("nested snappy", write_cached("nested", tables["nested"], compression="snappy")))
    for label, path in cases:
        runs = [lambda p=path: pc.read_table(p), lambda p=path: pq.read_table(p, use_threads=False)]
        fp = fastparquet_read(str(path))
        rows.append(_row(label, runs + ([fp] if fp else []), args.repeat))
    wide = write_cached("wide", wide_table(), row_group_size=1)
    runs = [lambda: pc.ParquetFile(wide), lambda: pq.ParquetFile(wide)]
    try:
        import fastparquet

        runs.append(lambda: fastparquet.ParquetFile(str(wide)))
    except ImportError:
        pass
    rows.append(_row("open wide footer", runs, args.repeat))
    print_table(["workload", "ours s", "pyarrow s", "ratio", "pyarrow cores", "fastparquet s", "ours/fp"], rows)


if __name__ == "__main__":
    main()
