"""Writing a table as a folder of Parquet files, as ``pyarrow.parquet.write_to_dataset``.

With ``partition_cols`` the rows are split by the values of those columns into
hive folders ``key=value/...`` (or, with ``partitioning``, folders of the bare
values); each folder gets one file of its rows (or several, of
``max_rows_per_file`` rows), without the partition columns.
Folder names are pyarrow's: values formatted as Arrow casts them to text,
then percent-encoded except ``A-Z a-z 0-9 - _ . ~`` (Arrow's "uri" segment
encoding), null as ``__HIVE_DEFAULT_PARTITION__``.
Arrow cuts a byte string at its first NUL and routes rows by folder, so rows
whose values format alike share a folder and a file.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import numpy as np

from parquet_codec.arrays import (
    BinaryArray,
    take_rows,
)
from parquet_codec.convert import to_table
from parquet_codec.dataset import HIVE_NULL, partitioning_object
from parquet_codec.errors import UnsupportedError
from parquet_codec.filesystems import Filesystem, local_path
from parquet_codec.nested import PRIMITIVE
from parquet_codec.table import Column, Table, array_to_pylist
from parquet_codec.temporal import ARROW_UNITS_PER_SECOND
from parquet_codec.types import byte_values, logical_info, to_logical
from parquet_codec.writer import ParquetWriter
from parquet_codec.written_names import arrow_element_names

BEHAVIORS = ("overwrite_or_ignore", "error", "delete_matching")


class DatasetExistsError(FileExistsError, ValueError):
    """``existing_data_behavior="error"`` and the root folder is not empty
    (a ValueError too, as pyarrow's ArrowInvalid for the same case)."""


@dataclass(frozen=True)
class WrittenFile:
    """What ``file_visitor`` is given for each file, as pyarrow's WrittenFile:
    its path, its footer (file_path relative to the root) and its size."""

    path: str
    metadata: Any
    size: int


def write_to_dataset(table: Any, root_path: str | os.PathLike, partition_cols: Sequence[str] | None = None, *,
                     basename_template: str | None = None, existing_data_behavior: str = "overwrite_or_ignore",
                     filesystem: Any = None, max_partitions: int = 1024, max_rows_per_file: int = 0,
                     max_rows_per_group: int | None = None, file_visitor: Callable[[WrittenFile], None] | None = None,
                     metadata_collector: list | None = None, partitioning: Any = None,
                     partitioning_flavor: str | None = None, **options: Any) -> list[str]:
    """Write ``table`` (anything :func:`convert.to_table` takes) under ``root_path``; the paths written.

    ``basename_template`` holds ``{i}``, numbered per folder as pyarrow does (default
    ``<uuid4 hex>-{i}.parquet``). ``existing_data_behavior``: "overwrite_or_ignore" (replace
    files of the same name, keep others), "error" (refuse a non-empty root) or
    "delete_matching" (empty each folder that gets data first). ``filesystem``: a pyarrow or
    fsspec filesystem for paths. As pyarrow's: more than ``max_partitions`` folders is an
    error; ``max_rows_per_file`` (0: no limit) splits a folder's rows over files
    ``{i}`` = 0, 1, ...; ``max_rows_per_group`` is the files' row group size;
    ``file_visitor`` is called with a :class:`WrittenFile` for each file, and
    ``metadata_collector`` gets each file's FileMetaData (for :func:`writer.write_metadata`).
    ``partitioning`` (in place of ``partition_cols``): column names, folders of
    their bare values unless ``partitioning_flavor`` is "hive", or a pyarrow
    HivePartitioning or DirectoryPartitioning (see :func:`_partition_keys`).
    ``options`` go to the writer (compression, ...); pyarrow's ``use_threads``,
    ``max_open_files`` and ``min_rows_per_group`` are accepted and change nothing."""
    for unused in ("use_threads", "max_open_files", "min_rows_per_group", "create_dir"):
        options.pop(unused, None)
    if max_rows_per_group is not None and _whole(max_rows_per_group, "max_rows_per_group") > 0:
        options.setdefault("row_group_size", max_rows_per_group)  # 0 or less: no limit, as pyarrow's
    if existing_data_behavior not in BEHAVIORS:
        raise ValueError(f"existing_data_behavior must be one of {BEHAVIORS}, not {existing_data_behavior!r}")
    template = f"{uuid.uuid4().hex}-{{i}}.parquet" if basename_template is None else basename_template
    if not isinstance(template, str):
        raise TypeError(f"basename_template must be a string, not {type(template).__name__}")
    if template.count("{i}") != 1 or "/" in template:
        raise ValueError(f"basename_template must hold '{{i}}' exactly once and no '/': {template!r}")
    if _whole(max_rows_per_file, "max_rows_per_file") < 0:
        raise ValueError(f"max_rows_per_file must be 0 (no limit) or positive, not {max_rows_per_file}")
    if _whole(max_partitions, "max_partitions") <= 0:
        raise ValueError(f"max_partitions must be positive, not {max_partitions}")
    keys, hive = _partition_keys(partition_cols, partitioning, partitioning_flavor)
    if not all(isinstance(key, str) for key in keys):
        raise TypeError(f"partition columns are named by strings, not {keys!r}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"partition_cols names a column twice: {keys}")
    if any("/" in k for k in keys):  # pyarrow would nest folders that no reader parses back
        raise ValueError(f"partition column names cannot hold '/': {keys}")
    names = None if options.get("use_compliant_nested_type", True) else arrow_element_names(table)
    data = to_table(table)
    key_columns = [data.column(k) for k in keys]  # KeyError for a missing one, as pyarrow
    root, fs = local_path(root_path, filesystem), Filesystem(filesystem)
    if existing_data_behavior == "error" and fs.has_entries(root):
        raise DatasetExistsError(f"could not write to {root}: the folder is not empty "
                                 "and existing_data_behavior is 'error'")
    rest = data.select([c for c in data.column_names if c not in keys])
    if not keys:
        fs.make_dir(root)  # pyarrow creates the root even when there are no rows to write
        parts = [((), rest)] if rest.num_rows else []
    else:
        # A Table read from a file prints as pyarrow reads the file; Arrow data, in its own units.
        parts = _partitions(rest, key_columns, arrow_units=not isinstance(table, Table), hive=hive)
    if len(parts) > max_partitions:
        raise ValueError(f"Fragment would be written into {len(parts)} partitions. "
                         f"This exceeds the maximum of {max_partitions}")
    written = []
    for segments, part in parts:
        folder = fs.join(root, *segments)
        if existing_data_behavior == "delete_matching":
            fs.clear(folder)
        fs.make_dir(folder)
        pieces = [part.slice(start, max_rows_per_file) for start in range(0, part.num_rows, max_rows_per_file)] \
            if max_rows_per_file else [part]
        for i, piece in enumerate(pieces):  # {i} counts per folder, as pyarrow
            basename = template.replace("{i}", str(i))
            path = fs.join(folder, basename)
            collected: list | None = [] if metadata_collector is not None or file_visitor is not None else None
            with ParquetWriter(path, piece.schema, element_names=names, filesystem=filesystem,
                               metadata_collector=collected, **options) as writer:
                writer.write_table(piece)
            if collected:  # the footer, only when asked for
                footer = collected[0]
                footer.set_file_path("/".join((*segments, basename)))  # relative to the root, as pyarrow
                if metadata_collector is not None:
                    metadata_collector.append(footer)
                if file_visitor is not None:
                    file_visitor(WrittenFile(path, footer, fs.size(path)))
            written.append(path)
    return written


def _whole(value: Any, name: str) -> int:
    """An integer option (TypeError naming it for anything else, as pyarrow's)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    return value.__index__()


def _partition_keys(partition_cols: Sequence[str] | None, partitioning: Any, flavor: str | None
                    ) -> tuple[list[str], bool]:
    """The partition columns, and whether their folders are hive's ``key=value``
    (else directory partitioning's bare values), from pyarrow's two ways to name them."""
    if partitioning is None:
        return list(partition_cols or []), True
    if partition_cols:
        raise ValueError("The 'partition_cols' argument is not supported. Use only 'partitioning' instead.")
    given = partitioning_object(partitioning)
    if given is not None:
        return given
    if isinstance(partitioning, str) or not all(isinstance(name, str) for name in partitioning):
        raise UnsupportedError(f"partitioning {partitioning!r}: give a list of column names, or a pyarrow "
                               "HivePartitioning or DirectoryPartitioning")
    if flavor not in (None, "hive"):
        raise ValueError(f"partitioning_flavor must be None or 'hive', not {flavor!r}")
    return list(partitioning), flavor == "hive"


# ---------------------------------------------------------------- grouping


def _partitions(rest: Table, key_columns: list[Column], arrow_units: bool, hive: bool = True
                ) -> list[tuple[tuple[str, ...], Table]]:
    """The rows of ``rest`` per partition folder, as (folder segments, rows):
    ``key=value`` (``hive``), or the values alone, down to the first null."""
    if not rest.num_rows:
        return []
    codes, texts = [], []
    for column in key_columns:
        column_codes, reps = _dense(*_keys(column))
        codes.append(column_codes)
        texts.append(_segment_texts(column, reps, arrow_units))
    group_codes, group_reps = _dense(*codes)
    # Arrow routes rows by folder text: groups formatting alike (NaN payloads, cut NULs) share one.
    folders: dict[tuple[str, ...], int] = {}
    group_folder = np.empty(len(group_reps), dtype=np.int64)
    for g, row in enumerate(group_reps.tolist()):
        segments = _segments([col.name for col in key_columns], [text[c[row]] for text, c in zip(texts, codes,
                                                                                                  strict=True)], hive)
        group_folder[g] = folders.setdefault(segments, len(folders))
    row_folder = group_folder[group_codes]
    if len(folders) == 1:
        return [(next(iter(folders)), rest)]
    order = np.argsort(row_folder, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(row_folder, minlength=len(folders)))]).tolist()
    # Every folder's file holds a dictionary column's whole dictionary (a categorical's
    # categories, in order), as pyarrow writes it, not only the entries its rows use.
    gathered = Table(rest.schema, {c.name: take_rows(c.array, order) for c in rest.columns}, rest.num_rows,
                     metadata=rest.metadata, origin=rest.origin, read_options=rest.read_options,
                     dictionaries=rest.dictionaries)
    return [(segments, gathered.slice(bounds[i], bounds[i + 1] - bounds[i])) for segments, i in folders.items()]


def _segments(names: list[str], values: list[str | None], hive: bool) -> tuple[str, ...]:
    """A folder's path segments for one tuple of partition values (None: null)."""
    if hive:
        return tuple(f"{name}={HIVE_NULL if value is None else value}" for name, value in zip(names, values, strict=True))
    depth = values.index(None) if None in values else len(values)
    after = [name for name, value in zip(names[depth:], values[depth:], strict=True) if value is not None]
    if after:  # a bare path cannot skip a level
        raise ValueError(f"No partition key for {names[depth]} but a key was provided subsequently for {after[0]}.")
    return tuple(values[:depth])


def _dense(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..k-1 per row for the distinct tuples of ``keys``, and one row holding each code."""
    order = np.lexsort(keys[::-1])
    change = np.zeros(len(order), dtype=bool)
    for key in keys:
        ordered = key[order]
        change[1:] |= ordered[1:] != ordered[:-1]
    codes = np.empty(len(order), dtype=np.int64)
    codes[order] = np.cumsum(change)
    change[:1] = True
    return codes, order[change]


def _keys(column: Column) -> list[np.ndarray]:
    """Sortable arrays whose tuples are equal exactly where the column's values are."""
    array = column.array
    if column.field.kind != PRIMITIVE:
        raise UnsupportedError(f"cannot partition on column {column.name!r} of nested type {column.field.type_string()}")
    valid = [array.is_valid()] if array.validity is not None else []
    if isinstance(array, BinaryArray):
        return _byte_keys(np.asarray(array.offsets, dtype=np.int64), array.data) + valid
    values = np.asarray(array.values)
    if values.ndim == 2:  # FIXED_LEN_BYTE_ARRAY, INT96: rows of bytes
        width = values.shape[1]
        offsets = np.arange(len(values) + 1, dtype=np.int64) * width
        return _byte_keys(offsets, np.ascontiguousarray(values).reshape(-1)) + valid
    # Bit patterns, not numbers: -0.0 and 0.0 are different folders.
    return [np.ascontiguousarray(values).view(f"u{values.dtype.itemsize}")] + valid


def _byte_keys(offsets: np.ndarray, data: np.ndarray) -> list[np.ndarray]:
    """Codes telling byte strings apart: refined by length, then 8 bytes at a time
    (memory stays O(rows) however long one value is)."""
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    codes, _ = _dense(lengths)
    columns = np.arange(8)
    for at in range(0, int(lengths.max(initial=0)), 8):
        rows = np.flatnonzero(lengths > at)
        chunk = np.zeros((len(rows), 8), dtype=np.uint8)
        present = columns < np.minimum(lengths[rows] - at, 8)[:, None]
        chunk[present] = data[((starts[rows] + at)[:, None] + columns)[present]]
        word = np.zeros(len(lengths), dtype=np.uint64)
        word[rows] = chunk.view(np.uint64).reshape(-1)
        codes, _ = _dense(codes, word)
    return [codes]


# ---------------------------------------------------------------- folder names


def _segment_texts(column: Column, rows: np.ndarray, arrow_units: bool) -> list[str | None]:
    """The folder text of the values at ``rows`` (None for a null), as pyarrow writes them; ``arrow_units``:
    times in the unit of the column's Arrow type (stored as ms, seconds print as seconds)."""
    texts: list[str] | list[bytes]
    sub = take_rows(column.array, rows)
    info = logical_info(column.field.node.element)
    kind, arrow = info.kind, None if column.origin is None else column.origin.type
    stored = "ns" if kind == "int96" else info.unit
    unit = arrow.unit if arrow_units and arrow is not None and arrow.id in ("timestamp", "time") \
        and arrow.unit in ARROW_UNITS_PER_SECOND and stored in ARROW_UNITS_PER_SECOND else stored
    if kind in ("string", "binary", "enum", "json", "bson", "uuid", "fixed_binary"):
        texts = [b.split(b"\0", 1)[0] for b in byte_values(sub)]  # quoted below, byte by byte
    elif kind == "boolean":
        texts = ["true" if v else "false" for v in sub.values.tolist()]
    elif kind == "int":
        texts = [str(v) for v in to_logical(sub, info).values.tolist()]
    elif kind in ("float", "float16"):
        values = to_logical(sub, info).values
        texts = [_float_text(v, values.dtype == np.float32) for v in values]
    elif kind == "date":
        texts = list(np.datetime_as_string(sub.values.astype(np.int64).astype("M8[D]")))
    elif kind in ("timestamp", "int96"):
        ticks = _in_unit(to_logical(sub, info).values, stored, unit)
        zone = "Z" if info.utc else ""  # instants print in UTC
        texts = [t.replace("T", " ") + zone for t in np.datetime_as_string(ticks.astype(f"M8[{unit}]"), unit=unit)]
    elif kind == "time":
        texts = [_time_text(t, unit) for t in _in_unit(sub.values, stored, unit).tolist()]
    elif kind == "decimal":
        texts = ["" if d is None else format(d, "f") for d in array_to_pylist(column.field, sub, column.origin)]
    elif kind == "null":
        texts = [""] * len(rows)
    else:
        raise UnsupportedError(f"cannot partition on column {column.name!r} of type {column.field.type_string()}")
    valid = sub.is_valid().tolist()
    return [quote(t, safe="") if ok else None for t, ok in zip(texts, valid, strict=True)]


def _float_text(value: np.floating, single: bool) -> str:
    """Arrow's float to text: shortest round-trip digits, fixed notation for
    decimal exponents -6..9, else ``d.ddde+N`` (no exponent padding)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    mantissa, exponent_text = np.format_float_scientific(value if single else np.float64(value), unique=True,
                                                         trim="-").split("e")
    sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
    digits, exponent = digits.replace(".", ""), int(exponent_text)
    if not -6 <= exponent < 10:
        point = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{point}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _in_unit(ticks: np.ndarray, unit: str, target: str) -> np.ndarray:
    have, want = ARROW_UNITS_PER_SECOND[unit], ARROW_UNITS_PER_SECOND[target]
    return ticks.astype(np.int64) * (want // have) if want >= have else ticks.astype(np.int64) // (have // want)


def _time_text(ticks: int, unit: str) -> str:
    per = ARROW_UNITS_PER_SECOND[unit]
    seconds, fraction = divmod(ticks, per)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return text + (f".{fraction:0{len(str(per)) - 1}d}" if per > 1 else "")


__all__ = ["DatasetExistsError", "write_to_dataset"]
