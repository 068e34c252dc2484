"""Decompression speed of each codec on int64 column-like data cut into 1 MiB pages.

Run from the repository root: python -m benchmarks.compression [--mb 40] [--repeat 3]

For each codec the pages are compressed once (default levels), then
decompressed (a) page by page into fresh buffers and (b) into one
preallocated column buffer with ``out=``, as the reader does. Figures are
uncompressed MB/s, best of ``--repeat`` runs; pyarrow's codec on the same
pages is printed alongside when pyarrow is installed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from parquet_codec.compression import codec_name, compress, decompress
from parquet_codec.format.ttypes import CompressionCodec as CC

PAGE = 1 << 20
CODECS = [CC.UNCOMPRESSED, CC.SNAPPY, CC.GZIP, CC.BROTLI, CC.LZ4, CC.ZSTD, CC.LZ4_RAW]
ARROW_NAMES = {
    CC.SNAPPY: "snappy",
    CC.GZIP: "gzip",
    CC.BROTLI: "brotli",
    CC.ZSTD: "zstd",
    CC.LZ4_RAW: "lz4_raw",
}


def column_data(n_bytes: int) -> bytes:
    """Timestamps-like int64s: increasing, with small random steps and some repeats."""
    rng = np.random.default_rng(42)
    steps = rng.integers(0, 1000, n_bytes // 8)
    steps[rng.random(steps.size) < 0.2] = 0
    return (1_700_000_000_000 + np.cumsum(steps)).astype(np.int64).tobytes()


def best_of(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def bench_codec(codec: int, data: bytes, repeat: int) -> tuple[float, float, float, float | None]:
    pages = [data[i : i + PAGE] for i in range(0, len(data), PAGE)]
    packed = [compress(codec, page) for page in pages]
    sizes = [len(page) for page in pages]
    column = bytearray(len(data))
    view = memoryview(column)

    def fresh() -> None:
        for blob, size in zip(packed, sizes, strict=True):
            decompress(codec, blob, size)

    def into() -> None:
        pos = 0
        for blob, size in zip(packed, sizes, strict=True):
            decompress(codec, blob, size, out=view[pos : pos + size])
            pos += size

    into()
    assert column == data
    mb = len(data) / 1e6
    ratio = len(data) / sum(len(blob) for blob in packed)
    arrow = arrow_speed(codec, packed, sizes, repeat)
    return ratio, mb / best_of(repeat, fresh), mb / best_of(repeat, into), arrow and mb / arrow


def arrow_speed(codec: int, packed: list[bytes], sizes: list[int], repeat: int) -> float | None:
    try:
        import pyarrow as pa
    except ImportError:
        return None
    if codec not in ARROW_NAMES:
        return None
    arrow_codec = pa.Codec(ARROW_NAMES[codec])

    def run() -> None:
        for blob, size in zip(packed, sizes, strict=True):
            arrow_codec.decompress(blob, decompressed_size=size)

    return best_of(repeat, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=40, help="MiB of column data (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    args = parser.parse_args()
    data = column_data(args.mb * PAGE)
    print(f"{args.mb} MiB of int64 column data in {PAGE >> 10} KiB pages; decompression, uncompressed MB/s")
    print(f"{'codec':<14}{'ratio':>7}{'fresh':>10}{'out=':>10}{'pyarrow':>10}")
    for codec in CODECS:
        ratio, fresh, into, arrow = bench_codec(codec, data, args.repeat)
        arrow_text = f"{arrow:10.0f}" if arrow else f"{'-':>10}"
        print(f"{codec_name(codec):<14}{ratio:7.2f}{fresh:10.0f}{into:10.0f}{arrow_text}")


if __name__ == "__main__":
    main()
