"""Every input the fuzzer ever found (fuzz/regressions/<target>/) keeps behaving by the contract.

Each one once crashed, hung or allocated without bound; now it must return
or raise a ParquetError that says what and where, within seconds.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fuzz import contract, targets

REGRESSIONS = Path(__file__).resolve().parents[2] / "fuzz" / "regressions"
HANG_SECONDS = 5


def _cases() -> list[Path]:
    return sorted(p for p in REGRESSIONS.glob("*/*") if p.is_file() and p.parent.name in targets.TARGETS)


def test_there_are_regressions():
    assert _cases(), "fuzz/regressions/ holds no inputs"


@pytest.mark.parametrize("path", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_regression_keeps_the_contract(path: Path):
    target = path.parent.name
    start = time.monotonic()
    contract.run(targets.TARGETS[target], path.read_bytes(), where=targets.NEEDS_WHERE[target])
    assert time.monotonic() - start < HANG_SECONDS
