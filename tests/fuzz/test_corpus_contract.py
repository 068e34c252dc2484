"""bad_data/ and 1,000 mutated variants of every corpus file behave by the contract.

The contract (README, "Hostile input"): reading returns rows or raises a
ParquetError subclass whose message says what went wrong and where. Variants
come from the structure-aware mutator (fuzz.mutator) with a fixed seed per
file, so a failure names a reproducible (file, variant) pair. The files are
checked by two worker processes, once per session; each test reports one file.
"""

from __future__ import annotations

import os
import time
import traceback
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from fuzz import contract, targets
from fuzz.seeds import CORPUS as SEEDS
from fuzz.variants import check_variant, variants
from tests.conftest import CORPUS_BAD, CORPUS_DATA, FIXTURES, corpus_files

VARIANTS = int(os.environ.get("FUZZ_VARIANTS", 1000))
HANG_SECONDS = 5
# Files whose every read is slow for reasons unrelated to hostile input get fewer variants.
FEWER = {"overflow_i16_page_cnt.parquet": (3, "over 32,767 pages in one chunk: each scoped read takes ~7 s")}
# Spark fixtures and our own seeds are small and many: fewer variants each.
OTHER_VARIANTS = 100


def _corpus() -> list[Path]:
    return corpus_files(CORPUS_DATA)


def _others() -> list[Path]:
    return corpus_files(FIXTURES / "spark") + sorted(SEEDS.joinpath("read").glob("*"))


def check_file(path: Path, count: int) -> str | None:
    """Run ``count`` variants of ``path``; the first violation as text, or None."""
    data = path.read_bytes()
    for index, (variant, scope) in enumerate(variants(data, zlib.crc32(path.name.encode()), count)):
        start = time.monotonic()
        try:
            check_variant(variant, scope, index)
        except Exception:  # noqa: BLE001 - reported with its variant number
            return f"{path.name} variant {index}: {traceback.format_exc(limit=-6)}"
        if time.monotonic() - start > HANG_SECONDS:
            return f"{path.name} variant {index} took {time.monotonic() - start:.1f} s"
    return None


@pytest.fixture(scope="module")
def outcomes() -> dict[Path, str | None]:
    jobs = [(p, FEWER.get(p.name, (VARIANTS, ""))[0]) for p in _corpus()] + [(p, OTHER_VARIANTS) for p in _others()]
    jobs.sort(key=lambda job: -job[0].stat().st_size * job[1])  # big jobs first: the pool ends together
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = pool.map(check_file, [p for p, _ in jobs], [n for _, n in jobs])
        return dict(zip([p for p, _ in jobs], results, strict=True))


@pytest.mark.parametrize("path", corpus_files(CORPUS_BAD, "*"), ids=lambda p: p.name)
def test_bad_data_keeps_the_contract(path: Path):
    contract.run(targets.read, path.read_bytes())


@pytest.mark.parametrize("path", _corpus() + _others(), ids=lambda p: p.name)
def test_mutated_variants_keep_the_contract(path: Path, outcomes):
    assert outcomes[path] is None, outcomes[path]
