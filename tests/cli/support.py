"""Running the real ``parquet-codec`` entry point (``python -m parquet_codec``) in a subprocess,
and making files with known defects."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import parquet_codec as pc
from parquet_codec.format.ttypes import FileMetaData
from parquet_codec.thrift_io import deserialize, serialize
from tests.conftest import CORPUS_DATA, FIXTURES, ROOT

SPARK = FIXTURES / "spark"
SPARK_FILE = SPARK / "snappy_v1_dict.parquet"
ENCRYPTED_KEYS = ["--footer-key", "text:0123456789012345",
                  "--column-key", "double_field:text:1234567890123450",
                  "--column-key", "float_field:text:1234567890123451"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def json_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.lines]


def run(*args: object, cwd: Path = ROOT, stdin: str | None = None, env: dict | None = None) -> Result:
    """``python -m parquet_codec ARGS`` from the source checkout; output captured (so piped)."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    done = subprocess.run([sys.executable, "-m", "parquet_codec", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=environ, input=stdin, timeout=120)
    return Result(done.returncode, done.stdout, done.stderr)


def corpus(name: str) -> Path:
    return CORPUS_DATA / name


def write_sample(path: Path, **options: object) -> pc.Table:
    """A small file of our own: ints, doubles, strings with nulls, a list; 3 row groups."""
    n = 300
    table = pc.Table.from_pydict({
        "id": list(range(n)),
        "x": [None if i % 7 == 0 else i * 0.5 for i in range(n)],
        "name": [None if i % 5 == 0 else f"name{i % 37:03d}" for i in range(n)],
        "tags": [[f"t{i % 3}", f"u{i % 4}"] if i % 6 else None for i in range(n)],
    })
    options = {"row_group_size": 100, **options}
    pc.write_table(table, path, **options)
    return table


def rewrite_footer(path: Path, change) -> None:
    """Parse the footer of ``path``, let ``change(FileMetaData)`` edit it, write it back."""
    data = path.read_bytes()
    length = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - length
    meta, _ = deserialize(FileMetaData, data, start, end=len(data) - 8)
    change(meta)
    footer = serialize(meta)
    path.write_bytes(data[:start] + footer + struct.pack("<I", len(footer)) + b"PAR1")


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
