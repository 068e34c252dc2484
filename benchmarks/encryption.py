"""Encryption overhead: writing and reading a ~100 MB file (numeric columns,
snappy) encrypted with AES_GCM_V1 (footer key, every column: uniform
encryption) against the same file unencrypted. Target: < 10% on both.

Encrypted and plaintext runs alternate, so drift on a busy machine hits
both alike; the figures are medians of ``--repeat`` runs after one warm-up.
Files go to a temporary folder (the page cache keeps reads off the disk).
The last line is the floor: AES-GCM alone over the file's bytes, in 1 MiB
pieces into preallocated buffers, as a share of the plaintext runs.
Usage: ``python benchmarks/encryption.py [--repeat N] [--rows N] [--profile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# Run from a checkout without installing: make the repository root importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import parquet_codec as pc  # noqa: E402
from parquet_codec.crypto import FileDecryptionProperties, FileEncryptionProperties  # noqa: E402

TARGET = 0.10
FOOTER_KEY = bytes(range(16))
ROWS = 5_000_000  # x (8 + 4 + 8) bytes of random values: ~100 MB


def numeric_table(rows: int) -> pc.Table:
    rng = np.random.default_rng(42)
    return pc.Table.from_pydict({
        "i64": rng.integers(-(2**62), 2**62, rows),
        "i32": rng.integers(-(2**31), 2**31 - 1, rows, dtype=np.int32),
        "f64": rng.standard_normal(rows),
    })


def write(table: pc.Table, path: Path, encrypted: bool) -> None:
    encryption = FileEncryptionProperties(FOOTER_KEY) if encrypted else None
    pc.write_table(table, path, compression="snappy", encryption=encryption)


def read(path: Path, encrypted: bool) -> pc.Table:
    return pc.read_table(path, decryption=FileDecryptionProperties(footer_key=FOOTER_KEY) if encrypted else None)


def alternating_medians(plain: Callable[[], object], encrypted: Callable[[], object],
                        repeat: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each ({"wall": (plain, encrypted), "cpu": ...}),
    run in turns after one warm-up run each. CPU time is the steadier figure on a busy machine."""
    plain(), encrypted()
    times: dict[tuple[str, bool], list[float]] = {(k, f): [] for k in ("wall", "cpu") for f in (False, True)}
    for _ in range(repeat):
        for flag, fn in ((False, plain), (True, encrypted)):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            times["cpu", flag].append(time.process_time() - cpu)
            times["wall", flag].append(time.perf_counter() - wall)
    return {k: (statistics.median(times[k, False]), statistics.median(times[k, True])) for k in ("wall", "cpu")}


def aes_seconds(nbytes: int, repeat: int) -> tuple[float, float]:
    """Median CPU seconds of AES-GCM encrypting and decrypting ``nbytes`` in 1 MiB
    pieces, from and into buffers as large as the file (so as cold in the caches as
    a read's or a write's), nothing else: the part of the overhead no implementation removes."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    gcm, nonce, piece = AESGCM(FOOTER_KEY), bytes(12), 2**20
    pieces = max(1, nbytes // piece)
    plain = np.random.default_rng(1).integers(0, 256, pieces * piece, dtype=np.uint8)
    sealed = np.empty(pieces * (piece + 16), dtype=np.uint8)

    def run(encrypt: bool) -> float:
        start = time.process_time()
        for i in range(pieces):
            text, box = plain[i * piece : (i + 1) * piece], sealed[i * (piece + 16) : (i + 1) * (piece + 16)]
            if encrypt:
                gcm.encrypt_into(nonce, text, b"", box)
            else:
                gcm.decrypt_into(nonce, box, b"", text)
        return time.process_time() - start

    run(True)
    encrypt = statistics.median(run(True) for _ in range(repeat))
    decrypt = statistics.median(run(False) for _ in range(repeat))
    return encrypt, decrypt


def profile(fn: Callable[[], object], title: str) -> None:
    print(f"\n--- profile: {title}")
    profiler = cProfile.Profile()
    profiler.runcall(fn)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--profile", action="store_true", help="profile one encrypted write and read")
    args = parser.parse_args()
    table = numeric_table(args.rows)
    with tempfile.TemporaryDirectory() as folder:
        paths = {flag: Path(folder) / f"{'encrypted' if flag else 'plain'}.parquet" for flag in (False, True)}
        writes = alternating_medians(lambda: write(table, paths[False], False),
                                     lambda: write(table, paths[True], True), args.repeat)
        sizes = {flag: os.path.getsize(path) for flag, path in paths.items()}
        reads = alternating_medians(lambda: read(paths[False], False), lambda: read(paths[True], True), args.repeat)
        assert read(paths[True], True).to_arrow().equals(table.to_arrow()), "encrypted round trip differs"
        print(f"{args.rows:,} rows (i64, i32, f64), snappy: plaintext {sizes[False] / 1e6:.1f} MB, "
              f"encrypted {sizes[True] / 1e6:.1f} MB; AES_GCM_V1, footer key, all columns; "
              f"median of {args.repeat}")
        print(f"{'':11} {'plain s':>8} {'encrypted s':>11} {'overhead':>9} {'target':>7}")
        for name, figures in (("write", writes), ("read", reads)):
            for clock, (plain, enc) in figures.items():
                overhead = enc / plain - 1
                verdict = "ok" if overhead < TARGET else "OVER"
                print(f"{name:5} {clock:5} {plain:8.3f} {enc:11.3f} {overhead:8.1%} {TARGET:7.0%}  {verdict}")
        encrypt, decrypt = aes_seconds(sizes[False], args.repeat)
        print(f"AES-GCM alone (cpu): encrypt {encrypt:.3f} s = {encrypt / writes['cpu'][0]:.1%} of the plain write, "
              f"decrypt {decrypt:.3f} s = {decrypt / reads['cpu'][0]:.1%} of the plain read")
        if args.profile:
            profile(lambda: write(table, paths[True], True), "encrypted write")
            profile(lambda: read(paths[True], True), "encrypted read")


if __name__ == "__main__":
    main()
