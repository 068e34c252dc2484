"""Looking inside a file: ``meta``, ``schema``, ``pages``, ``index`` and ``bloom``."""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import os
import re
import sys
import uuid
from typing import Any

import numpy as np

from parquet_codec.arrow_schema import ARROW_SCHEMA_KEY, field_text, schema_from_metadata
from parquet_codec.cli.common import (
    Chunk,
    UsageError,
    chunk_of,
    chunk_padding,
    iter_chunks,
    memory_limit,
    one_leaf,
    open_file,
    select_leaves,
    source_of,
)
from parquet_codec.cli.render import (
    clip,
    codec_name,
    encoding_name,
    page_type_name,
    print_records,
    show_bound,
    show_size,
    text_cell,
    to_json,
    type_name,
)
from parquet_codec.errors import MetadataError, ParquetError, SchemaError
from parquet_codec.format.ttypes import PageType
from parquet_codec.limits import memory_budget
from parquet_codec.page import RawPage, iter_pages, read_data_page, read_page_header, verify_crc
from parquet_codec.reader import ParquetFile
from parquet_codec.schema import SchemaNode, annotation_text
from parquet_codec.statistics import bound_value, writes_legacy_bounds
from parquet_codec.types import LogicalInfo, logical_info

SPARK_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.metadata"
_DATA_PAGES = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)
_NANOS = re.compile(r"(\.\d{6})(\d{1,3})(?!\d)")


# ---------------------------------------------------------------- meta


def run_meta(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        info = file_summary(pf, args.file)
        out = sys.stdout
        if args.json:
            out.write(json.dumps(info, ensure_ascii=False, indent=2, default=str) + "\n")
            return 0
        _print_meta(out, info, args.full)
    return 0


def file_summary(pf: ParquetFile, path: str) -> dict[str, Any]:
    meta = pf.metadata
    return {
        "file": path,
        "size": os.path.getsize(path),
        "created_by": meta.created_by,
        "format_version": meta.version,
        "rows": meta.num_rows,
        "row_groups": meta.num_row_groups,
        "columns": len(pf.schema.leaves),
        "encryption": encryption_text(pf, path),
        "key_value_metadata": meta.key_value_metadata,
        "row_group_details": [_row_group_summary(pf, i) for i in range(meta.num_row_groups)],
    }


def encryption_text(pf: ParquetFile, path: str) -> str:
    """How the file is encrypted, as far as its footer says."""
    meta = pf.metadata
    with open(path, "rb") as handle:
        handle.seek(-4, os.SEEK_END)
        magic = handle.read(4)
    algorithm = _algorithm_name(meta.encryption_algorithm)
    decryptor = getattr(meta, "decryptor", None)
    if algorithm is None and isinstance(getattr(decryptor, "algorithm", None), str):
        algorithm = decryptor.algorithm
    if magic == b"PARE":
        return "encrypted footer" + (f" ({algorithm})" if algorithm else "")
    if algorithm:
        signed = "signature verified" if decryptor is not None else "signature not checked"
        return f"plaintext footer, {algorithm}, {signed}"
    return "none"


def _algorithm_name(algorithm: Any) -> str | None:
    if algorithm is None:
        return None
    for name in ("AES_GCM_V1", "AES_GCM_CTR_V1"):
        if getattr(algorithm, name, None) is not None:
            return name
    return "unknown algorithm"


def _row_group_summary(pf: ParquetFile, index: int) -> dict[str, Any]:
    group = pf.metadata.row_group(index)
    columns = []
    for leaf in pf.schema.leaves:
        try:
            columns.append(_chunk_summary(chunk_of(pf, index, leaf)))
        except ParquetError as exc:
            columns.append({"column": leaf.dotted_path, "error": exc.message})
    return {
        "index": index, "rows": group.num_rows, "offset": group.file_offset,
        "compressed": group.total_compressed_size, "uncompressed": group.total_byte_size, "columns": columns,
    }


def _chunk_summary(chunk: Chunk) -> dict[str, Any]:
    leaf, meta = chunk.leaf, chunk.meta
    summary: dict[str, Any] = {"column": leaf.dotted_path, "type": _type_text(leaf)}
    if chunk.encrypted:
        crypto = chunk.chunk.crypto_metadata
        summary["encrypted"] = "footer key" if crypto.ENCRYPTION_WITH_FOOTER_KEY is not None else "column key"
    if meta is None:
        summary["error"] = "metadata encrypted: give the column's key"
        return summary
    comp, uncomp = meta.total_compressed_size, meta.total_uncompressed_size
    summary.update({
        "codec": codec_name(meta.codec), "encodings": [encoding_name(e) for e in meta.encodings or ()],
        "values": meta.num_values, "compressed": comp, "uncompressed": uncomp,
        "ratio": round(uncomp / comp, 2) if comp else None,
    })
    summary.update(_stats_summary(meta.statistics, logical_info(leaf.element)))
    summary["bloom_filter"] = meta.bloom_filter_offset is not None
    summary["column_index"] = chunk.chunk.column_index_offset is not None
    summary["offset_index"] = chunk.chunk.offset_index_offset is not None
    return summary


def _type_text(leaf: SchemaNode) -> str:
    text = type_name(leaf.physical_type)
    if leaf.physical_type is not None and leaf.type_length and text == "FIXED_LEN_BYTE_ARRAY":
        text += f"({leaf.type_length})"
    note = annotation_text(leaf)
    return f"{text} {note}" if note else text


def stat_bounds(stats: Any, info: LogicalInfo) -> tuple[bytes | None, bytes | None]:
    """The (min, max) bounds a reader should trust: min_value/max_value, else the
    deprecated min/max where their order is the column's."""
    if stats is None:
        return None, None
    if stats.min_value is not None or stats.max_value is not None:
        return stats.min_value, stats.max_value
    if writes_legacy_bounds(info):
        return stats.min, stats.max
    return None, None


def _stats_summary(stats: Any, info: LogicalInfo) -> dict[str, Any]:
    if stats is None:
        return {"nulls": None, "min": None, "max": None}
    lo, hi = stat_bounds(stats, info)
    return {"nulls": stats.null_count, "min": _plain_bound(lo, info), "max": _plain_bound(hi, info)}


def _plain_bound(raw: bytes | None, info: LogicalInfo) -> Any:
    if raw is None:
        return None
    try:
        value = bound_value(raw, info)
    except Exception:  # noqa: BLE001 - undecodable bounds are shown as hex
        return "0x" + bytes(raw).hex()
    return value if isinstance(value, (int, float, str, bool)) else text_cell(value)


def _print_meta(out: Any, info: dict[str, Any], full: bool) -> None:
    width = 10**9 if full else 100
    out.write(f"file:            {info['file']} ({show_size(info['size'])})\n")
    out.write(f"created by:      {info['created_by']}\n")
    out.write(f"format version:  {info['format_version']}\n")
    out.write(f"rows:            {info['rows']}\n")
    out.write(f"row groups:      {info['row_groups']}\n")
    out.write(f"columns:         {info['columns']}\n")
    out.write(f"encryption:      {info['encryption']}\n")
    kv = info["key_value_metadata"]
    out.write(f"key-value metadata: {len(kv) if kv else 'none'}\n")
    for key, value in (kv or {}).items():
        out.write(f"  {key}: {clip(str(value), width)}\n")
    for group in info["row_group_details"]:
        out.write(f"\nrow group {group['index']}: {_group_sizes(group)}\n")
        print_records(out, [_chunk_row(c) for c in group["columns"]], False,
                      right=("values", "nulls", "compressed", "uncompressed", "ratio"), indent="  ")


def _group_sizes(group: dict[str, Any]) -> str:
    """Rows, sizes and offset of a row group; the optional ones (older writers
    leave total_compressed_size and file_offset out) only when present."""
    parts = [f"{group['rows']} rows"]
    compressed, uncompressed = group["compressed"], group["uncompressed"]
    if compressed is not None:
        parts.append(f"{show_size(compressed)} compressed")
    text = f"{show_size(uncompressed)} uncompressed"
    if compressed and uncompressed is not None:
        text += f" (x{uncompressed / compressed:.2f})"
    parts.append(text)
    if group["offset"] is not None:
        parts.append(f"offset {group['offset']}")
    return ", ".join(parts)


def _chunk_row(c: dict[str, Any]) -> dict[str, Any]:
    if "codec" not in c:
        return {"column": c["column"], "type": c.get("type", ""), "codec": c.get("error", "")}
    flags = [name for name, key in (("bloom", "bloom_filter"), ("colidx", "column_index"), ("offidx", "offset_index"))
             if c.get(key)]
    if c.get("encrypted"):
        flags.append(f"encrypted ({c['encrypted']})")
    return {
        "column": c["column"], "type": c["type"], "codec": c["codec"], "encodings": ",".join(c["encodings"]),
        "values": c["values"], "nulls": "" if c["nulls"] is None else c["nulls"],
        "compressed": c["compressed"], "uncompressed": c["uncompressed"],
        "ratio": "" if c["ratio"] is None else f"{c['ratio']:.2f}",
        "min": "" if c["min"] is None else clip(str(c["min"]), 24),
        "max": "" if c["max"] is None else clip(str(c["max"]), 24), "has": " ".join(flags),
    }


# ---------------------------------------------------------------- schema


def run_schema(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        out = sys.stdout
        out.write(str(pf.schema))
        arrow = arrow_schema_lines(pf)
        if arrow:
            out.write("\nArrow schema (ARROW:schema):\n" + "\n".join(arrow) + "\n")
        spark = spark_schema_json(pf)
        if spark is None:
            return 0
        if args.spark_json or not isinstance(spark, dict):
            text = spark if isinstance(spark, str) else json.dumps(spark, indent=2)
            out.write("\nSpark schema (JSON):\n" + text.rstrip("\n") + "\n")
        else:
            out.write("\nSpark schema:\n" + "\n".join(spark_tree(spark)) + "\n")
    return 0


def arrow_schema_lines(pf: ParquetFile) -> list[str]:
    """The Arrow schema the file stores, a field per line as pyarrow prints them;
    a line saying so when it does not decode; nothing when there is none."""
    stored = pf.metadata.key_value_metadata.get(ARROW_SCHEMA_KEY)
    if stored is None:
        return []
    try:
        schema = schema_from_metadata(stored)
    except MetadataError as exc:
        return [f"  (not decodable: {exc.message})"]
    return [f"  {field_text(f)}" for f in schema.fields]


def spark_schema_json(pf: ParquetFile) -> Any:
    """The Spark schema as Spark's StructType JSON, from ``ParquetFile.spark_schema``;
    the stored text as it is when that cannot parse it (only a schema it parsed
    is drawn as a tree); None when the file has none."""
    try:
        schema = pf.spark_schema
    except ParquetError:
        return pf.metadata.key_value_metadata.get(SPARK_SCHEMA_KEY)
    return None if schema is None else schema.to_json()


def spark_tree(schema: dict[str, Any]) -> list[str]:
    """A Spark struct type (JSON form) drawn as Spark's ``printSchema`` draws it."""
    lines = ["root"]
    _spark_fields(schema.get("fields", []), " |", lines)
    return lines


def _spark_fields(fields: list[dict[str, Any]], prefix: str, lines: list[str]) -> None:
    for item in fields:
        nullable = str(item.get("nullable", True)).lower()
        _spark_type(item.get("name"), item.get("type"), f"(nullable = {nullable})", prefix, lines)


def _spark_type(name: Any, kind: Any, note: str, prefix: str, lines: list[str]) -> None:
    inner = prefix + "    |"
    if not isinstance(kind, dict):
        lines.append(f"{prefix}-- {name}: {kind} {note}".rstrip())
        return
    tag = kind.get("type")
    lines.append(f"{prefix}-- {name}: {tag} {note}".rstrip())
    if tag == "struct":
        _spark_fields(kind.get("fields", []), inner, lines)
    elif tag == "array":
        contains = str(kind.get("containsNull", True)).lower()
        _spark_type("element", kind.get("elementType"), f"(containsNull = {contains})", inner, lines)
    elif tag == "map":
        contains = str(kind.get("valueContainsNull", True)).lower()
        _spark_type("key", kind.get("keyType"), "", inner, lines)
        _spark_type("value", kind.get("valueType"), f"(valueContainsNull = {contains})", inner, lines)
    elif tag == "udt" and "sqlType" in kind:
        _spark_type("sqlType", kind["sqlType"], "", inner, lines)


# ---------------------------------------------------------------- pages


def run_pages(args: argparse.Namespace) -> int:
    with open_file(args, args.file, verify_checksums=False) as pf, source_of(args.file) as source:
        leaves = select_leaves(pf, args.column)
        records: list[dict[str, Any]] = []
        padding = chunk_padding(pf)
        for chunk in iter_chunks(pf, leaves):
            records.extend(page_records(chunk, source, padding))
        print_records(sys.stdout, records, args.json,
                      right=("page", "offset", "header", "compressed", "uncompressed", "values", "nulls", "rows",
                             "first_row"))
    return 0


def page_records(chunk: Chunk, source: Any, padding: int = 0) -> list[dict[str, Any]]:
    """One record per page of ``chunk``."""
    meta = chunk.meta
    if meta is None:
        raise UsageError(f"column {chunk.leaf.dotted_path!r} is encrypted: give its key to list its pages")
    if not meta.num_values:
        return []
    data, start = chunk.read_bytes(source, padding)
    pages = list(iter_pages(data, start, meta.num_values, chunk.decryptor))
    info = logical_info(chunk.leaf.element)
    records, row = [], 0
    for i, page in enumerate(pages):
        record, rows = _page_record(chunk, page, info, header_size(chunk, data, start, pages, i), row)
        records.append(record)
        row += rows
    return records


def header_size(chunk: Chunk, data: memoryview, start: int, pages: list[RawPage], i: int) -> int | None:
    """Bytes of page ``i``'s header (None for the last page of an encrypted chunk)."""
    page = pages[i]
    if chunk.decryptor is None:
        return read_page_header(data, page.offset - start)[1]
    if i + 1 < len(pages):
        return pages[i + 1].offset - page.offset - len(page.body)
    return None


def _page_record(chunk: Chunk, page: RawPage, info: LogicalInfo, header_bytes: int | None, first_row: int
                 ) -> tuple[dict[str, Any], int]:
    header = page.header
    sub = header.data_page_header or header.data_page_header_v2 or header.dictionary_page_header
    record: dict[str, Any] = {
        "row_group": chunk.row_group, "column": chunk.leaf.dotted_path, "page": page.ordinal,
        "type": page_type_name(header.type).replace("_PAGE", ""), "offset": page.offset, "header": header_bytes,
        "compressed": header.compressed_page_size, "uncompressed": header.uncompressed_page_size,
        "encoding": encoding_name(getattr(sub, "encoding", None)) if sub is not None else "",
        "values": getattr(sub, "num_values", None), "nulls": None, "rows": None, "first_row": None,
        "crc": _crc_status(page), "min": "", "max": "",
    }
    if header.type not in _DATA_PAGES:
        return record, 0
    nulls, rows = _page_counts(chunk, page)
    stats = sub.statistics
    if stats is not None:
        lo, hi = stat_bounds(stats, info)
        record["min"], record["max"] = show_bound(lo, info, 24), show_bound(hi, info, 24)
        if nulls is None:
            nulls = stats.null_count
    record.update(nulls=nulls, rows=rows, first_row=first_row if rows is not None else None)
    return record, rows or 0


def _crc_status(page: RawPage) -> str:
    if page.header.crc is None:
        return "none"
    try:
        verify_crc(page)
    except ParquetError:
        return "BAD"
    return "ok"


def _page_counts(chunk: Chunk, page: RawPage) -> tuple[int | None, int | None]:
    """(nulls, rows) of a data page: from a v2 header, else from its levels."""
    leaf, header = chunk.leaf, page.header
    if header.type == PageType.DATA_PAGE_V2:
        v2 = header.data_page_header_v2
        return v2.num_nulls, v2.num_rows
    count = header.data_page_header.num_values
    if leaf.max_definition_level == 0 and leaf.max_repetition_level == 0:
        return 0, count
    try:
        plain = chunk.decryptor.decrypt_page(page) if chunk.decryptor is not None else page
        with memory_budget(memory_limit()):  # the levels a page declares, reserved first
            levels = read_data_page(plain, chunk.meta.codec, leaf.max_repetition_level, leaf.max_definition_level)
    except (ParquetError, MemoryError):
        return None, (count if leaf.max_repetition_level == 0 else None)
    nulls = 0 if levels.def_levels is None else int((levels.def_levels < leaf.max_definition_level).sum())
    rows = count if levels.rep_levels is None else int((levels.rep_levels == 0).sum())
    return nulls, rows


# ---------------------------------------------------------------- index


def run_index(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        leaves = select_leaves(pf, args.column)
        out = sys.stdout
        for index in range(pf.num_row_groups):
            for leaf in leaves:
                records, note = index_records(pf, index, leaf)
                if args.json:
                    print_records(out, records, True)
                    continue
                out.write(f"row group {index}, column {leaf.dotted_path!r}: {note}\n")
                print_records(out, records, False, indent="  ",
                              right=("page", "offset", "compressed", "first_row", "rows", "nulls"))
    return 0


def index_records(pf: ParquetFile, row_group: int, leaf: SchemaNode) -> tuple[list[dict[str, Any]], str]:
    """The page index of one chunk as records, and a one-line description; that of an
    encrypted column is decrypted with the command line's keys."""
    chunk = pf.metadata.row_group(row_group).columns[leaf.column_index]
    if chunk.crypto_metadata is not None and pf.metadata.decryptor is None:
        return [], "encrypted column: give its key (--footer-key, --column-key or a KMS) to read its page index"
    column_index = pf.column_index(row_group, leaf.dotted_path)
    offset_index = pf.offset_index(row_group, leaf.dotted_path)
    if column_index is None and offset_index is None:
        return [], "no page index"
    info = logical_info(leaf.element)
    num_rows = pf.metadata.row_group(row_group).num_rows
    locations = offset_index.page_locations if offset_index is not None else []
    count = len(locations) if offset_index is not None else len(column_index.null_pages)
    records = []
    for page in range(count):
        record: dict[str, Any] = {"row_group": row_group, "column": leaf.dotted_path, "page": page}
        if offset_index is not None:
            loc = locations[page]
            stop = locations[page + 1].first_row_index if page + 1 < count else num_rows
            record.update(offset=loc.offset, compressed=loc.compressed_page_size, first_row=loc.first_row_index,
                          rows=stop - loc.first_row_index)
        if column_index is not None:
            record.update(_column_index_entry(column_index, page, info))
        records.append(record)
    parts = []
    if column_index is not None:
        order = {0: "UNORDERED", 1: "ASCENDING", 2: "DESCENDING"}.get(column_index.boundary_order, "?")
        parts.append(f"column index (boundary order {order})")
    parts.append("offset index" if offset_index is not None else "no offset index")
    return records, f"{count} pages; " + ", ".join(parts)


def _column_index_entry(index: Any, page: int, info: LogicalInfo) -> dict[str, Any]:
    null_page = bool(index.null_pages[page])
    nulls = index.null_counts[page] if index.null_counts else None
    lo = None if null_page else index.min_values[page]
    hi = None if null_page else index.max_values[page]
    return {"null_page": null_page, "nulls": nulls, "min": show_bound(lo, info), "max": show_bound(hi, info)}


# ---------------------------------------------------------------- bloom


def run_bloom(args: argparse.Namespace) -> int:
    with open_file(args, args.file) as pf:
        leaf = one_leaf(pf, args.column)
        info = logical_info(leaf.element)
        values = [(text, parse_value(text, info)) for text in args.values]
        records = []
        for index in range(pf.num_row_groups):
            bloom = pf.bloom_filter(index, leaf.dotted_path)
            for text, value in values:
                if bloom is None:
                    answer = "no bloom filter"
                else:
                    answer = "maybe present" if bloom.might_contain(value) else "absent"
                records.append({"row_group": index, "value": text, "result": answer})
        if args.json:
            for record in records:
                sys.stdout.write(to_json(record) + "\n")
        else:
            print_records(sys.stdout, records, False, right=("row_group",))
    return 0


def parse_value(text: str, info: LogicalInfo) -> Any:
    """A command-line value as a Python value of the column's logical type."""
    kind = info.kind
    try:
        if kind == "int":
            return int(text, 0)
        if kind in ("float", "float16"):
            return float(text)
        if kind == "boolean":
            return {"true": True, "false": False, "1": True, "0": False}[text.lower()]
        if kind == "decimal":
            return decimal.Decimal(text)
        if kind == "date":
            return datetime.date.fromisoformat(text)
        if kind == "time":
            return _parse_time(text, info)
        if kind in ("timestamp", "int96"):
            return _parse_timestamp(text, kind == "int96" or info.utc)
        if kind == "uuid":
            return uuid.UUID(text)
        if kind in ("binary", "bson", "fixed_binary", "interval"):
            return bytes.fromhex(text[2:]) if text.startswith("0x") else text.encode("utf-8")
    except (ValueError, KeyError, decimal.InvalidOperation):
        raise SchemaError(f"{text!r} is not a {kind} value") from None
    return text


def _split_nanos(text: str) -> tuple[str, int]:
    """``text`` without the digits past the microsecond, and those as nanoseconds."""
    match = _NANOS.search(text)
    if match is None:
        return text, 0
    return text[:match.start(2)] + text[match.end(2):], int(match.group(2).ljust(3, "0"))


def _parse_time(text: str, info: LogicalInfo) -> Any:
    """An ISO time of day; on a NANOS column, one given past the microsecond is
    its count of nanoseconds after midnight (a ``time`` cannot hold them)."""
    text, nanos = _split_nanos(text)
    value = datetime.time.fromisoformat(text)
    if not nanos or info.unit != "ns":
        return value
    seconds = (value.hour * 60 + value.minute) * 60 + value.second
    return (seconds * 10**6 + value.microsecond) * 1000 + nanos


def _parse_timestamp(text: str, utc: bool) -> Any:
    """An ISO timestamp; digits past the microsecond (NANOS columns hold them) make
    it a ``datetime64[ns]``, as ``datetime`` would drop them and look up a
    different instant. A naive text on a UTC-adjusted column is taken as UTC."""
    text, nanos = _split_nanos(text)
    value = datetime.datetime.fromisoformat(text)
    if utc and value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    if not nanos:
        return value
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return np.datetime64(value, "us").astype("datetime64[ns]") + np.timedelta64(nanos, "ns")


__all__ = [
    "encryption_text", "file_summary", "header_size", "index_records", "page_records", "parse_value", "run_bloom", "run_index",
    "run_meta", "run_pages", "run_schema", "spark_schema_json", "spark_tree", "stat_bounds",
]
