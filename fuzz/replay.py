"""Replay inputs through the targets without atheris: reproduce findings, measure coverage.

``python -m fuzz.replay TARGET [--limited] [FILE_OR_DIR ...]`` runs every input (by
default the target's seeds, grown corpus and regressions) through the
contract and prints violations, the slowest input and the largest traced
allocation peak relative to the input's size. Under ``coverage run
--source=parquet_codec -m fuzz.replay all`` it measures the coverage the
fuzzing corpus reaches.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

from fuzz import contract, targets
from fuzz.runner import FINDINGS, MAX_LEN
from fuzz.seeds import seed_files

REGRESSIONS = Path(__file__).resolve().parent / "regressions"


def inputs(target: str, paths: list[str]) -> list[Path]:
    if paths:
        found: list[Path] = []
        for p in map(Path, paths):
            found += sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
        return found
    grown = FINDINGS / target / "corpus"
    extra = sorted(grown.iterdir()) if grown.is_dir() else []
    return seed_files(target) + extra + sorted((REGRESSIONS / target).glob("*"))


def replay(target: str, files: list[Path]) -> int:
    tracemalloc.start()
    violations, slowest, heaviest = 0, (0.0, ""), (0, "")
    for path in files:
        try:
            data = path.read_bytes()[: MAX_LEN[target]]
        except FileNotFoundError:  # a running fuzzer replaced it
            continue
        tracemalloc.reset_peak()
        start = time.monotonic()
        try:
            contract.run(targets.TARGETS[target], data, where=targets.NEEDS_WHERE[target])
        except Exception as exc:  # noqa: BLE001 - reported, then the next input
            violations += 1
            print(f"VIOLATION {path}: {type(exc).__name__}: {exc}")
        slowest = max(slowest, (time.monotonic() - start, str(path)))
        heaviest = max(heaviest, (tracemalloc.get_traced_memory()[1] - len(data), str(path)))
    print(f"{target}: {len(files)} inputs, {violations} violations, slowest {slowest[0]:.2f} s ({slowest[1]}), "
          f"largest peak above the input {heaviest[0] / 2**20:.1f} MiB ({heaviest[1]})")
    return violations


def main(argv: list[str]) -> int:
    if "--limited" in argv:  # under the harness's memory cap, as the fuzzer ran the input
        argv = [a for a in argv if a != "--limited"]
        contract.limit_address_space()
    names = list(targets.TARGETS) if len(argv) < 2 or argv[1] == "all" else [argv[1]]
    return 1 if sum(replay(name, inputs(name, argv[2:])) for name in names) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
