"""Write speed and file size against pyarrow (and fastparquet where installed).

Datasets as in docs/performance.md: numeric (5M rows of required
int64/int32/float64/bool), nullable (2M rows, 10% nulls), strings (1M of
1,000 distinct values; 1M unique 20-byte values), nested (500k rows of
list<int64> with 0-10 items and struct<int32, string>). Each is written to
memory with snappy and zstd, default options on both sides (dictionary on,
data page v1). Prints median seconds of ``--repeat`` runs, the ratio to
pyarrow, and file sizes; ours and pyarrow's runs alternate, so both see the
same machine load. Usage: ``python benchmarks/write.py [--repeat N] [--quick]``.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

# Run from a checkout without installing: make the repository root importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import alternating_medians  # noqa: E402
from parquet_codec.table import Table  # noqa: E402
from parquet_codec.writer import write_table  # noqa: E402

TARGETS = {"numeric": 1.5, "nullable": 1.5, "strings-low": 2.0, "strings-high": 2.0, "nested": 2.0}


def datasets(scale: float) -> dict[str, pa.Table]:
    rng = np.random.default_rng(42)

    def n(rows: int) -> int:
        return max(1, int(rows * scale))

    rows = n(5_000_000)
    numeric = pa.table({
        "i64": rng.integers(-(2**62), 2**62, rows), "i32": rng.integers(-(2**31), 2**31 - 1, rows, dtype=np.int32),
        "f64": rng.random(rows), "b": rng.random(rows) < 0.5,
    }, schema=pa.schema([pa.field("i64", pa.int64(), False), pa.field("i32", pa.int32(), False),
                         pa.field("f64", pa.float64(), False), pa.field("b", pa.bool_(), False)]))
    rows = n(2_000_000)
    mask = rng.random(rows) < 0.1
    nullable = pa.table({"i64": pa.array(rng.integers(0, 2**40, rows), mask=mask),
                         "f64": pa.array(rng.random(rows), mask=mask)})
    rows = n(1_000_000)
    words = np.array([f"word-{i:05d}-{i * 7919 % 10007:05d}" for i in range(1000)], dtype=object)
    low = pa.table({"s": pa.array(words[rng.integers(0, 1000, rows)], pa.string())})
    high = pa.table({"s": pa.array(rng.integers(0, 2**62, rows).astype("U20").astype(object), pa.string())})
    rows = n(500_000)
    lengths = rng.integers(0, 11, rows)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    lists = pa.ListArray.from_arrays(offsets, pa.array(rng.integers(0, 10**6, int(offsets[-1]))))
    struct = pa.StructArray.from_arrays([pa.array(rng.integers(0, 1000, rows, dtype=np.int32)),
                                         pa.array(words[rng.integers(0, 1000, rows)], pa.string())], names=["a", "b"])
    nested = pa.table({"l": lists, "st": struct})
    return {"numeric": numeric, "nullable": nullable, "strings-low": low, "strings-high": high, "nested": nested}


def ours(table: Table, codec: str) -> bytes:
    sink = io.BytesIO()
    write_table(table, sink, compression=codec)
    return sink.getvalue()


def theirs(table: pa.Table, codec: str) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression=codec)
    return sink.getvalue()


def fastparquet_writer() -> Callable[[pa.Table, str], bytes] | None:
    try:
        import fastparquet
    except ImportError:
        return None

    def write(table: pa.Table, codec: str) -> bytes:
        sink = io.BytesIO()
        sink.close = lambda: None  # fastparquet closes what it writes to
        fastparquet.write(sink, table.to_pandas(), compression=codec.upper())
        return sink.getvalue()

    return write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a tenth of the rows")
    args = parser.parse_args()
    fp = fastparquet_writer()
    print(f"{'dataset':13} {'codec':6} {'ours s':>8} {'pyarrow s':>9} {'ratio':>6} {'target':>6} "
          f"{'ours MB':>8} {'pyarrow MB':>10} {'size':>6} {'fastparquet s':>13}")
    for name, arrow in datasets(0.1 if args.quick else 1.0).items():
        table = Table.from_arrow(arrow)
        for codec in ("snappy", "zstd"):
            (t_ours, t_pa), written = alternating_medians(
                [lambda: ours(table, codec), lambda: theirs(arrow, codec)], args.repeat)  # noqa: B023
            s_ours, s_pa = (len(data) for data in written)
            fp_time = "n/a"
            if fp is not None and name != "nested":
                fp_time = f"{alternating_medians([lambda: fp(arrow, codec)], max(1, args.repeat // 2))[0][0]:.3f}"  # noqa: B023
            print(f"{name:13} {codec:6} {t_ours:8.3f} {t_pa:9.3f} {t_ours / t_pa:6.2f} {TARGETS[name]:6.1f} "
                  f"{s_ours / 1e6:8.2f} {s_pa / 1e6:10.2f} {s_ours / s_pa:6.2f} {fp_time:>13}")


if __name__ == "__main__":
    main()
