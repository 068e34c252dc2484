"""The entry point itself: help for every subcommand, errors as one line, the progress bar."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import pytest

from tests.cli.support import SPARK_FILE, run
from tests.conftest import ROOT

SUBCOMMANDS = ["meta", "schema", "head", "cat", "pages", "index", "bloom", "verify", "rewrite", "demo"]


def test_top_level_help_lists_every_subcommand():
    result = run("--help")
    assert result.code == 0
    for name in SUBCOMMANDS:
        assert name in result.out


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_subcommand_help(name):
    result = run(name, "--help")
    assert result.code == 0, result.err
    assert result.out.startswith(f"usage: parquet-codec {name}")
    if name != "demo":
        assert "--footer-key" in result.out and "--column-key" in result.out and "--kms-keys" in result.out


def test_demo_still_runs():
    result = run("demo")
    assert result.code == 0, result.err
    assert result.out.strip()


@pytest.mark.parametrize("args, message", [
    (["meta", "no/such/file.parquet"], "no such file"),
    (["head", "README.md"], "Parquet magic"),
    (["pages", SPARK_FILE, "--column", "nope"], "no column 'nope'"),
    (["bloom", SPARK_FILE, "--column", "id", "not-a-number"], "is not a int value"),
    (["meta", SPARK_FILE, "--footer-key", "zz"], "neither hex nor base64"),
    (["meta", SPARK_FILE, "--footer-key", "00112233"], "AES keys have 16, 24 or 32"),
])
def test_errors_are_one_line_and_exit_1(args, message):
    result = run(*args)
    assert result.code == 1
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("parquet-codec: ") and message in lines[0]
    assert "Traceback" not in result.err


def test_usage_error_is_one_line_exit_2():
    result = run("head", SPARK_FILE, "-n", "many")
    assert result.code == 2
    assert len(result.err.splitlines()) == 1
    assert "invalid int value" in result.err


def test_debug_shows_the_traceback():
    result = run("meta", "README.md", "--debug")
    assert result.code != 0
    assert "Traceback" in result.err and "CorruptFileError" in result.err


def test_piped_output_has_no_progress_bar():
    result = run("verify", SPARK_FILE)
    assert result.code == 0
    assert result.err == ""


def test_progress_bar_on_a_terminal():
    """With stderr on a pseudo-terminal the bar is drawn there, and erased; stdout is untouched."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    spark = sorted(SPARK_FILE.parent.glob("*.parquet"))[:6]
    proc = subprocess.Popen([sys.executable, "-m", "parquet_codec", "verify", *map(str, spark)],
                            stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    drawn = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    assert proc.returncode == 0
    assert b"%" in drawn and b"\r" in drawn and b"[" in drawn
    assert b"\r" not in out and out.decode().count(": OK") == len(spark)


def test_commands_read_under_a_memory_limit():
    """A hostile file's declared sizes meet an error, not the out-of-memory killer."""
    import argparse

    from parquet_codec.cli import common

    limit = common.memory_limit()
    assert limit is not None and 0 < limit < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    with common.open_file(argparse.Namespace(), SPARK_FILE) as pf:
        assert pf.memory_limit == limit


@pytest.mark.parametrize("args", [("head", "-n", "-1"), ("cat", "--limit", "-2"), ("head", "--max-width", "-3"),
                                  ("cat", "--limit", "lots")])
def test_negative_or_non_numeric_counts_are_usage_errors(args):
    result = run(args[0], SPARK_FILE, *args[1:])
    assert result.code == 2 and result.out == ""
    assert len(result.err.splitlines()) == 1 and args[1] in result.err, result.err
    assert "internal error" not in result.err and "Traceback" not in result.err
