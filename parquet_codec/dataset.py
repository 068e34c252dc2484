"""Folders of Parquet files, as Spark and Hive lay them out.

A folder written by Spark holds ``part-*`` files, possibly under hive-style
``key=value`` partition folders, next to bookkeeping files (``_SUCCESS``,
``.part-*.crc``, ``_common_metadata``) that readers skip: every name starting
with ``_`` or ``.``. Partition values come back as typed columns after the
file columns, inferred the way Spark infers them (integer, long, double,
date, timestamp, else string; ``__HIVE_DEFAULT_PARTITION__`` is null).
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.errors import SchemaError, UnsupportedError
from parquet_codec.filesystems import Filesystem, filesystem_of_uri
from parquet_codec.format.ttypes import LogicalType, MicroSeconds, SchemaElement, TimestampType, TimeUnit
from parquet_codec.io import Source
from parquet_codec.predicate import Filter, Predicate, parse_filters
from parquet_codec.reader import ParquetFile
from parquet_codec.reader import read_table as read_file
from parquet_codec.schema import Schema, primitive
from parquet_codec.table import Table

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_INT32 = (-(2**31), 2**31 - 1)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?\Z")


@dataclass(frozen=True)
class DataFile:
    """One Parquet file of a folder and the raw partition values of its path."""

    path: str
    partition: tuple[tuple[str, str | None], ...]


def discover(folder: str, filesystem: object = None) -> list[DataFile]:
    """The data files under ``folder`` (on ``filesystem``, a pyarrow or fsspec
    one, or the local disk) in path order, with their partition values."""
    fs = Filesystem(filesystem)
    sep = os.sep if filesystem is None else "/"
    root = folder.rstrip(sep) or sep
    found = []
    for path in fs.files_under(root):
        parts = _relative(path, root, sep).split(sep)
        if any(part.startswith(("_", ".")) for part in parts):
            continue  # bookkeeping, or under a bookkeeping folder
        folders = parts[:-1]
        found.append(DataFile(path, tuple(_partition(p, fs.join(root, *folders)) for p in folders)))
    if not found:
        raise SchemaError(f"no Parquet files in folder {folder}")
    _check_keys(found, f"files of {folder}")
    return found


def _relative(path: str, root: str, sep: str) -> str:
    """``path`` below ``root`` (filesystems differ on a leading separator)."""
    for p, r in ((path, root), (path.lstrip(sep), root.lstrip(sep))):
        if (r and p.startswith(r + sep)) or r == sep:
            return p[len(r):].lstrip(sep)
    return path.rsplit(sep, 1)[-1]


def _check_keys(found: list[DataFile], what: str) -> None:
    keys = {tuple(k for k, _ in f.partition) for f in found}
    if len(keys) > 1:
        raise SchemaError(f"{what} lie under different partition keys: {sorted(keys)}")


def _partition_kinds(files: list[DataFile]) -> dict[str, str]:
    """Each partition key's type (:func:`infer_type`), in the files' key order."""
    return {k: infer_type([dict(f.partition)[k] for f in files]) for k, _ in files[0].partition}


def _partition(segment: str, root: str) -> tuple[str, str | None]:
    key, sep, value = segment.partition("=")
    if not sep or not key:
        raise SchemaError(f"folder {segment!r} under {root} is not a key=value partition")
    value = unquote(value)
    return unquote(key), None if value == HIVE_NULL else value


# ---------------------------------------------------------------- partition types


def infer_type(values: list[str | None]) -> str:
    """Spark's partition type inference over every value of one key."""
    present = [v for v in values if v is not None]
    for kind, test in (("int", _is_int32), ("long", _is_int), ("double", _is_float),
                       ("date", _DATE.match), ("timestamp", _TIMESTAMP.match)):
        if all(test(v) for v in present):
            return kind
    return "string"


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None and -(2**63) <= int(text) < 2**63


def _is_int32(text: str) -> bool:
    return _is_int(text) and _INT32[0] <= int(text) <= _INT32[1]


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _typed(text: str | None, kind: str) -> object:
    if text is None:
        return None
    if kind in ("int", "long"):
        return int(text)
    if kind == "double":
        return float(text)
    if kind == "date":
        return datetime.date.fromisoformat(text)
    if kind == "timestamp":  # an instant, read in UTC like a session whose time zone is UTC
        return datetime.datetime.fromisoformat(text.replace(" ", "T")).replace(tzinfo=datetime.timezone.utc)
    return text


_ELEMENTS = {
    "int": lambda name: primitive(name, "INT32"),
    "long": lambda name: primitive(name, "INT64"),
    "double": lambda name: primitive(name, "DOUBLE"),
    "date": lambda name: primitive(name, "INT32", logical_type="DATE"),
    "string": lambda name: primitive(name, "BYTE_ARRAY", logical_type="STRING"),
}


def _element(name: str, kind: str) -> list[SchemaElement]:
    if kind == "timestamp":
        unit = TimeUnit(MICROS=MicroSeconds())
        return primitive(name, "INT64", logical_type=LogicalType(TIMESTAMP=TimestampType(True, unit)))
    return _ELEMENTS[kind](name)


def _constant(value: object, kind: str, rows: int) -> Array:
    """``rows`` copies of one partition value in the column's physical layout."""
    validity = None if value is not None else np.zeros(rows, dtype=bool)
    if kind == "string":
        raw = np.frombuffer(b"" if value is None else value.encode(), dtype=np.uint8)
        offsets = np.arange(rows + 1, dtype=np.int64) * len(raw)
        return BinaryArray.of(offsets, np.tile(raw, rows), validity)
    physical = {"int": np.int32, "long": np.int64, "double": np.float64, "date": np.int32, "timestamp": np.int64}
    number = 0 if value is None else _physical_number(value, kind)
    return PrimitiveArray.of(np.full(rows, number, dtype=physical[kind]), validity)


def _physical_number(value: object, kind: str) -> int | float:
    if kind == "date":
        return (value - datetime.date(1970, 1, 1)).days
    if kind == "timestamp":
        delta = value - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return (delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds
    return value


# ---------------------------------------------------------------- filters on partitions


def _matches(predicate: Predicate, value: object) -> bool:
    op, operand = predicate.op, predicate.value
    if op == "is null":
        return value is None
    if op == "is not null":
        return value is not None
    if op in ("in", "not in"):
        return (value in operand) == (op == "in")
    if value is None:
        return False
    return {"==": value == operand, "!=": value != operand, "<": value < operand, "<=": value <= operand,
            ">": value > operand, ">=": value >= operand}[op]


def _file_filter(filt: Filter | None, values: dict[str, object]) -> tuple[bool, Filter | None]:
    """Decide the partition predicates for one file: (read it?, the filter left for its rows)."""
    if filt is None:
        return True, None
    clauses = []
    for clause in filt.clauses:
        if all(_matches(p, values[p.column]) for p in clause if p.column in values):
            rest = tuple(p for p in clause if p.column not in values)
            if not rest:
                return True, None  # this clause holds for every row of the file
            clauses.append(rest)
    return (True, Filter(tuple(clauses))) if clauses else (False, None)


# ---------------------------------------------------------------- reading


def read_dataset(folder: str, columns: Sequence[str] | None = None, filters: object = None,
                 **options: object) -> Table:
    """Every data file of ``folder`` as one Table, partition columns last
    (``filesystem``, among the options, holds the folder)."""
    return _read_data_files(discover(folder, options.get("filesystem")), columns, filters, **options)


def _read_data_files(files: list[DataFile], columns: Sequence[str] | None, filters: object,
                     **options: object) -> Table:
    """The files as one Table, each with its partition values as columns (last)."""
    kinds = _partition_kinds(files)
    wanted_keys = list(kinds) if columns is None else [c for c in columns if c in kinds]
    file_columns = None if columns is None else [c for c in columns if c not in kinds]
    filt = parse_filters(filters)
    tables = []
    for data_file in files:
        values = {k: _typed(v, kinds[k]) for k, v in data_file.partition}
        keep, rows_filter = _file_filter(filt, values)
        if not keep:
            continue
        table = read_file(data_file.path, file_columns, rows_filter, **options)
        tables.append(_with_partitions(table, [(k, kinds[k], values[k]) for k in wanted_keys]))
    if not tables:  # every file pruned: an empty table of the first file's shape
        table = read_file(files[0].path, file_columns, **options).slice(0, 0)
        tables.append(_with_partitions(table, [(k, kinds[k], None) for k in wanted_keys]))
    result = Table.concat(tables)
    return result if columns is None else result.select(list(columns))


def _with_partitions(table: Table, partitions: list[tuple[str, str, object]]) -> Table:
    if not partitions:
        return table
    clash = [k for k, _, _ in partitions if k in table.column_names]
    if clash:
        raise SchemaError(f"partition keys {clash} are also columns of the files")
    elements = list(table.schema.to_elements())
    for name, kind, _ in partitions:
        elements += _element(name, kind)
    root = elements[0]
    elements[0] = SchemaElement(**{k: getattr(root, k) for k in SchemaElement.__slots__})
    elements[0].num_children = (root.num_children or 0) + len(partitions)
    arrays = {c.name: c.array for c in table.columns}
    arrays.update({name: _constant(value, kind, table.num_rows) for name, kind, value in partitions})
    return Table(Schema.from_elements(elements), arrays, table.num_rows, metadata=table.metadata, origin=table.origin)


def read_table(source: Source, columns: Sequence[str] | None = None, filters: object = None,
               **options: object) -> Table:
    """Read a file, or a folder of files (see :func:`read_dataset`), into a Table.

    The options are those of :func:`parquet_codec.reader.read_table`; a
    folder may lie on their ``filesystem`` or be a URI ("s3://bucket/folder")."""
    folder = _folder(source, options)
    if folder is not None:
        return read_dataset(folder, columns, filters, **options)
    return read_file(source, columns, filters, **options)


def _folder(source: object, options: dict) -> str | None:
    """The folder ``source`` names (a URI's filesystem then set in ``options``), or None."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    path, filesystem = os.fspath(source), options.get("filesystem")
    uri = filesystem is None and "://" in path
    if uri:
        filesystem, path = filesystem_of_uri(path)
    if not Filesystem(filesystem).is_dir(path):
        return None  # a file (a URI of one, the reader resolves itself)
    if uri:
        options["filesystem"] = filesystem
    return path


def read_pandas(source: Source, columns: Sequence[str] | None = None, **options: object) -> Table:
    """:func:`read_table` with ``use_pandas_metadata=True``, as pyarrow's: the
    index columns pandas stored are read too, so ``to_pandas`` restores the index."""
    return read_table(source, columns, use_pandas_metadata=True, **options)


class ParquetDataset:
    """``pyarrow.parquet.ParquetDataset``: a folder of Parquet files (hive
    partitions, as :func:`read_dataset` reads them), one file or a list of
    files, read as one table, on the local disk or a ``filesystem`` (pyarrow's
    or fsspec's; or a URI). ``filters`` apply to every read; ``options`` are
    :func:`read_table`'s. The files' own schema only."""

    def __init__(self, path_or_paths: Source | Sequence[Source], filesystem: object = None, schema: object = None,
                 *, filters: object = None, partitioning: str | None = "hive", **options: object) -> None:
        if schema is not None:
            raise UnsupportedError("ParquetDataset reads the files' own schema (schema= is not supported)")
        if partitioning not in ("hive", None):
            raise UnsupportedError(f"partitioning {partitioning!r}: only 'hive' (or None) is supported")
        options["filesystem"] = filesystem
        folder = _folder(path_or_paths, options)
        if folder is not None:
            found = discover(folder, options["filesystem"])
        elif isinstance(path_or_paths, (str, os.PathLike)):
            found = [DataFile(os.fspath(path_or_paths), ())]  # one file: no partition values, as pyarrow
        else:
            # As pyarrow: the key=value folders in each listed file's path are its partition values.
            found = [DataFile(os.fspath(p), _path_partition(os.fspath(p))) for p in path_or_paths]
        if not found:
            raise SchemaError("ParquetDataset needs at least one file")
        if partitioning is None:
            found = [DataFile(f.path, ()) for f in found]
        _check_keys(found, "the files")
        self._found = found
        self._filters = filters
        self._options = options

    @property
    def files(self) -> list[str]:
        """The data files read, in the order read."""
        return [f.path for f in self._found]

    @property
    def schema(self) -> Schema:
        """The schema of the table :meth:`read` gives (partition columns last);
        no row group is read."""
        found = self._found
        with ParquetFile(found[0].path, **self._options) as pf:
            table = pf.read_row_groups([])
        return _with_partitions(table, [(k, kind, None) for k, kind in _partition_kinds(found).items()]).schema

    def read(self, columns: Sequence[str] | None = None, use_threads: bool = True,
             use_pandas_metadata: bool = False) -> Table:
        options = dict(self._options, use_threads=use_threads, use_pandas_metadata=use_pandas_metadata)
        return _read_data_files(self._found, columns, self._filters, **options)

    def read_pandas(self, **kwargs: object) -> Table:
        """:meth:`read` with ``use_pandas_metadata=True``, as pyarrow's."""
        return self.read(use_pandas_metadata=True, **kwargs)


def _path_partition(path: str) -> tuple[tuple[str, str | None], ...]:
    """The partition values of the ``key=value`` folders in ``path``."""
    folders = os.path.dirname(path).replace(os.sep, "/").split("/")
    return tuple(_partition(f, os.path.dirname(path)) for f in folders if "=" in f)


__all__ = ["DataFile", "ParquetDataset", "discover", "infer_type", "read_dataset", "read_pandas", "read_table"]
