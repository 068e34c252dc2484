"""Filtered reads: a selective query against a full read and against pyarrow.

    python -m benchmarks.filtered_read [--rows 10000000] [--repeat 5]

The file (written by pyarrow, cached): ``key`` int64 sorted, ``value``
float64, ``name`` an unsorted high-cardinality string; 10 row groups, 8 KiB
pages, page index, bloom filters on ``key`` and ``name``, no dictionaries.
Bytes are counted by a ByteSource (ours) or file wrapper (pyarrow) that sums
every read. Rows:

- full read of key + value (ours, pyarrow);
- a point lookup ``key == k`` (ours, pyarrow): statistics keep one row group,
  the page index one page per column;
- a lookup of an absent ``name`` inside every row group's bounds: only the
  bloom filters can skip the row groups.
"""

from __future__ import annotations

import argparse
import io

import numpy as np

import parquet_codec as pc
from benchmarks.common import median_seconds, print_table, write_cached
from parquet_codec.io import ByteSource, open_source


class CountingSource(ByteSource):
    """A ByteSource that counts the bytes and requests served by another one."""

    def __init__(self, inner: ByteSource) -> None:
        self.inner = inner
        self.size = inner.size
        self.name = inner.name
        self.bytes = 0
        self.requests = 0

    def _read(self, offset: int, length: int) -> memoryview:
        self.bytes += length
        self.requests += 1
        return self.inner.read(offset, length)


class CountingFile(io.RawIOBase):
    """A file object that counts the bytes pyarrow reads through it."""

    def __init__(self, path: str) -> None:
        self._f = open(path, "rb")  # noqa: SIM115 - closed in close()
        self.bytes = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def tell(self) -> int:
        return self._f.tell()

    def readinto(self, buffer) -> int:  # noqa: ANN001 - io protocol
        n = self._f.readinto(buffer)
        self.bytes += n
        return n

    def close(self) -> None:
        self._f.close()
        super().close()


def make_table(rows: int) -> object:
    import pyarrow as pa

    rng = np.random.default_rng(5)
    names = rng.integers(0, 2**62, rows).astype("U19").astype(object)
    return pa.table({"key": np.arange(rows, dtype=np.int64), "value": rng.standard_normal(rows),
                     "name": pa.array(names.tolist(), pa.string())})


def ours(path: str, columns: list[str], filters: object) -> tuple[float, int, int]:
    """(seconds, bytes read, rows) of one read through a counting source."""
    def run() -> tuple[int, int]:
        source = CountingSource(open_source(path))
        try:
            table = pc.read_table(source, columns=columns, filters=filters)
        finally:
            source.inner.close()
        return source.bytes, table.num_rows

    seconds = median_seconds(run, REPEAT)
    return (seconds, *run())


def theirs(path: str, columns: list[str], filters: object) -> tuple[float, int, int]:
    import pyarrow.parquet as pq

    def run() -> tuple[int, int]:
        f = CountingFile(path)
        try:
            table = pq.read_table(f, columns=columns, filters=filters, use_threads=False, pre_buffer=False)
        finally:
            f.close()
        return f.bytes, table.num_rows

    seconds = median_seconds(run, REPEAT)
    return (seconds, *run())


REPEAT = 5


def main() -> None:
    global REPEAT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    REPEAT = args.repeat
    path = str(write_cached("filtered", make_table(args.rows), row_group_size=args.rows // 10,
                            data_page_size=8192, use_dictionary=False, write_page_index=True,
                            bloom_filter_options={"key": {"ndv": args.rows // 10, "fpp": 0.01},
                                                  "name": {"ndv": args.rows // 10, "fpp": 0.01}}))
    key = args.rows * 3 // 7
    point = [("key", "==", key)]
    absent = [("name", "==", "12345678901234567x")]  # inside every row group's bounds, never written
    cols = ["key", "value"]
    results = [
        ("full read key+value", ours(path, cols, None), theirs(path, cols, None)),
        ("point lookup key == k", ours(path, cols, point), theirs(path, cols, point)),
        ("absent name (bloom)", ours(path, ["key", "name"], absent), theirs(path, ["key", "name"], absent)),
    ]
    rows = [[name, o[0], o[1], o[2], t[0], t[1], o[0] / t[0]] for name, o, t in results]
    print_table(["query", "ours s", "ours bytes", "rows", "pyarrow s", "pyarrow bytes", "ratio"], rows)
    full, lookup = results[0][1][0], results[1][1][0]
    print(f"\npoint lookup is {full / lookup:.0f}x faster than the full read (target >= 50x)")
    with pc.ParquetFile(path) as pf:
        plan = pf.plan(point, columns=cols)
        pages = [c.pages_kept for g in plan.kept for c in g.columns]
        print(f"point lookup: {len(plan.kept)} row group(s) read, pages per column {pages}, "
              f"{plan.bytes_to_fetch:,} of {plan.bytes_total:,} page bytes")
        bloom = pf.plan(absent, columns=["key", "name"])
        print(f"absent name: {bloom.skipped_by('bloom filter')} of {len(bloom.row_groups)} row groups skipped "
              f"by bloom filters, {bloom.skipped_by('statistics')} by statistics")


if __name__ == "__main__":
    main()
