"""Shared test fixtures: where the cross-implementation corpus lives."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "parquet-testing"
CORPUS_DATA = CORPUS / "data"
CORPUS_BAD = CORPUS / "bad_data"
FIXTURES = ROOT / "fixtures"


def corpus_files(folder: Path = CORPUS_DATA, pattern: str = "*.parquet") -> list[Path]:
    """Corpus files, or an empty list when the corpus is not checked out beside us."""
    return sorted(folder.rglob(pattern)) if folder.is_dir() else []


def requires_corpus() -> pytest.MarkDecorator:
    return pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="parquet-testing corpus not present")
