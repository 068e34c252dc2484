"""Micro-benchmark of the encodings' decoders: values per second, best of a few runs.

Run ``python benchmarks/decoders.py`` (``--scale 0.1`` for a quick pass).
Payloads are built with this package's own encoders before timing starts.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# Run from a checkout without installing: make the repository root importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parquet_codec.encodings import (  # noqa: E402
    ByteArrays,
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    RleBitPackedHybrid,
    decode_indices,
    decode_plain,
    encode_indices,
    encode_plain,
    pack,
    unpack,
)
from parquet_codec.encodings.varint import encode_uleb128  # noqa: E402
from parquet_codec.format.ttypes import Type  # noqa: E402


def best_time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def report(name: str, count: int, seconds: float) -> None:
    print(f"{name:<44} {count:>11,} {seconds * 1e3:>10.1f} {count / seconds / 1e6:>10.1f}")


def arrow_style_indices(indices: np.ndarray, bit_width: int) -> bytes:
    """Indices as bit-packed runs of 504 values, the run size Arrow's writer uses."""
    pieces = [bytes([bit_width])]
    for start in range(0, len(indices), 504):
        chunk = indices[start : start + 504]
        groups = -(-len(chunk) // 8)
        pieces += (encode_uleb128(groups << 1 | 1), pack(chunk, bit_width).ljust(groups * bit_width, b"\0"))
    return b"".join(pieces)


def url_like(rng: np.random.Generator, n: int) -> list[bytes]:
    hosts = [f"https://www.example{i}.com/path/to/" for i in range(20)]
    return sorted(f"{hosts[h]}{k:08d}".encode() for h, k in zip(rng.integers(0, 20, n), rng.integers(0, 10**8, n), strict=True))


def bench_bitpacking(rng: np.random.Generator, n: int, repeat: int) -> None:
    for width in [*range(1, 33), 48, 64]:
        values = rng.integers(0, 1 << width, n, dtype=np.uint64) if width < 64 else rng.integers(0, 2**63, n, dtype=np.uint64)
        packed = pack(values, width)
        report(f"bit-unpack LSB width {width}", n, best_time(lambda p=packed, w=width: unpack(p, w, n), repeat))
    packed = pack(rng.integers(0, 8, n), 3, msb_first=True)
    report("bit-unpack MSB (BIT_PACKED) width 3", n, best_time(lambda: unpack(packed, 3, n, msb_first=True), repeat))


def bench_integers(rng: np.random.Generator, n: int, repeat: int) -> None:
    indices = rng.integers(0, 1000, n)
    one_run = encode_indices(indices, 1000)
    report("dictionary indices (width 10, one run)", n, best_time(lambda: decode_indices(one_run, n), repeat))
    arrowish = arrow_style_indices(indices, 10)
    report("dictionary indices (504-value runs)", n, best_time(lambda: decode_indices(arrowish, n), repeat))
    levels = np.repeat(rng.integers(0, 2, n // 20), 20)[:n]
    levels[::97] ^= 1  # some literal stretches between the runs
    encoded = RleBitPackedHybrid.encode(levels, 1)
    report("RLE hybrid levels (width 1, mixed runs)", n, best_time(lambda: RleBitPackedHybrid.decode(encoded, 1, n), repeat))
    walk = np.cumsum(rng.integers(-1000, 1000, n))
    encoded = DeltaBinaryPacked.encode(walk, Type.INT64)
    report("DELTA_BINARY_PACKED int64 (random walk)", n, best_time(lambda: DeltaBinaryPacked.decode(encoded, Type.INT64, n), repeat))
    wild = rng.integers(-(2**63), 2**63 - 1, n)
    encoded = DeltaBinaryPacked.encode(wild, Type.INT64)
    report("DELTA_BINARY_PACKED int64 (random 64-bit)", n, best_time(lambda: DeltaBinaryPacked.decode(encoded, Type.INT64, n), repeat))
    encoded = encode_plain(walk, Type.INT64)
    report("PLAIN int64", n, best_time(lambda: decode_plain(encoded, Type.INT64, n), repeat))
    doubles = rng.standard_normal(n)
    encoded = ByteStreamSplit.encode(doubles, Type.DOUBLE)
    report("BYTE_STREAM_SPLIT double", n, best_time(lambda: ByteStreamSplit.decode(encoded, Type.DOUBLE, n), repeat))


def bench_strings(rng: np.random.Generator, n: int, repeat: int) -> None:
    lengths = rng.integers(0, 20, n)
    varied = ByteArrays.from_lengths(lengths, rng.integers(97, 123, int(lengths.sum()), dtype=np.uint8))
    encoded = encode_plain(varied, Type.BYTE_ARRAY)
    report("PLAIN byte arrays (lengths 0..19)", n, best_time(lambda: decode_plain(encoded, Type.BYTE_ARRAY, n), repeat))
    fixed = ByteArrays.from_lengths(np.full(n, 16), rng.integers(0, 256, 16 * n, dtype=np.uint8))
    encoded = encode_plain(fixed, Type.BYTE_ARRAY)
    report("PLAIN byte arrays (all 16 bytes)", n, best_time(lambda: decode_plain(encoded, Type.BYTE_ARRAY, n), repeat))
    encoded = DeltaLengthByteArray.encode(varied)
    report("DELTA_LENGTH_BYTE_ARRAY (lengths 0..19)", n, best_time(lambda: DeltaLengthByteArray.decode(encoded, n), repeat))
    urls = ByteArrays.from_pylist(url_like(rng, n))
    encoded = DeltaByteArray.encode(urls)
    report("DELTA_BYTE_ARRAY (sorted URLs, ~45 bytes)", n, best_time(lambda: DeltaByteArray.decode(encoded, Type.BYTE_ARRAY, n), repeat))
    encoded = DeltaByteArray.encode(varied)
    report("DELTA_BYTE_ARRAY (random, lengths 0..19)", n, best_time(lambda: DeltaByteArray.decode(encoded, Type.BYTE_ARRAY, n), repeat))
    dictionary = ByteArrays.from_pylist(url_like(rng, 1000))
    encoded = encode_plain(dictionary, Type.BYTE_ARRAY)
    report("PLAIN dictionary page (1000 URLs)", 1000, best_time(lambda: decode_plain(encoded, Type.BYTE_ARRAY, 1000), repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the value counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case, best one reported")
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    big, strings = int(10_000_000 * args.scale), int(1_000_000 * args.scale)
    print(f"{'decoder':<44} {'values':>11} {'ms':>10} {'Mvalues/s':>10}")
    bench_bitpacking(rng, big, args.repeat)
    bench_integers(rng, big, args.repeat)
    bench_strings(rng, strings, args.repeat)


if __name__ == "__main__":
    main()
