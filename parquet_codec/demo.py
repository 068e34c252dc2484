"""The README's first command: write a small file, read it back, say what is in it."""

from __future__ import annotations

import datetime
import decimal
import os
import tempfile

import parquet_codec as pc
from parquet_codec.format.ttypes import Encoding


def sample_table() -> pc.Table:
    """A few rows of the shapes Parquet is used for: numbers, text, time, nesting."""
    return pc.Table.from_pylist([
        {"id": 1, "name": "Ada", "joined": datetime.date(1843, 12, 10), "balance": decimal.Decimal("12.50"),
         "tags": ["math", "engines"], "address": {"city": "London", "zip": None}},
        {"id": 2, "name": "Grace", "joined": datetime.date(1944, 8, 7), "balance": decimal.Decimal("-3.75"),
         "tags": [], "address": {"city": "Arlington", "zip": "22201"}},
        {"id": 3, "name": None, "joined": None, "balance": None, "tags": None, "address": None},
    ])


def run(out=print) -> int:
    table = sample_table()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "demo.parquet")
        pc.write_table(table, path, compression="zstd")
        size = os.path.getsize(path)
        with pc.ParquetFile(path) as pf:
            out(f"wrote {path} ({size} bytes), read it back:")
            out(f"  created by   {pf.metadata.created_by}")
            out(f"  rows         {pf.num_rows} in {pf.num_row_groups} row group(s)")
            out("  schema")
            for line in str(pf.schema).splitlines():
                out(f"    {line}")
            group = pf.metadata.row_group(0)
            out("  column chunks")
            for chunk in group.columns:
                meta = chunk.meta_data
                encodings = ", ".join(Encoding._VALUES_TO_NAMES[e] for e in meta.encodings)
                out(f"    {'.'.join(meta.path_in_schema):20s} {encodings}; "
                    f"{meta.total_compressed_size} bytes compressed")
            rows = pf.read().to_pylist()
        out("  rows")
        for row in rows:
            out(f"    {row}")
    if rows != table.to_pylist():
        out("the rows read back differ from the rows written")
        return 1
    out("the rows read back equal the rows written")
    return 0
