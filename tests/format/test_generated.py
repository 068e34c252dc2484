"""parquet_codec/format/ is exactly what thrift/generate makes of the IDL."""

from __future__ import annotations

import filecmp
import shutil
import subprocess

import pytest

from tests.conftest import ROOT


@pytest.mark.skipif(shutil.which("thrift") is None, reason="Debian's thrift-compiler is not installed")
def test_generated_code_matches_idl(tmp_path):
    subprocess.run([str(ROOT / "thrift" / "generate"), str(tmp_path)], check=True)
    committed = ROOT / "parquet_codec" / "format"
    fresh = tmp_path / "format"
    names = sorted(p.name for p in fresh.iterdir() if p.suffix == ".py")
    assert names == sorted(p.name for p in committed.iterdir() if p.suffix == ".py")
    match, mismatch, errors = filecmp.cmpfiles(fresh, committed, names, shallow=False)
    assert not mismatch and not errors


def test_no_package_shadows_thrift():
    assert not (ROOT / "thrift" / "__init__.py").exists()
