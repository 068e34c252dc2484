"""Folders of Parquet files, as Spark and Hive lay them out.

A folder written by Spark holds ``part-*`` files, possibly under hive-style
``key=value`` partition folders, next to bookkeeping files (``_SUCCESS``,
``.part-*.crc``, ``_common_metadata``) that readers skip: every name starting
with ``_`` or ``.``, and everything under such a folder. As in pyarrow, files
in other folders are read too (those folders are not partitions), and a
partition key some files' paths lack is null for them. Partition values come back as typed columns after the
file columns, inferred the way Spark infers them (integer, long, double,
date, timestamp, else string; ``__HIVE_DEFAULT_PARTITION__`` is null: see
:mod:`parquet_codec.dataset_partitions`, which also evaluates filters on them).
Files of different schemas read as one in the first file's schema, as
pyarrow reads them (:mod:`parquet_codec.dataset_schema`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from parquet_codec.dataset_partitions import (
    HIVE_NULL,
    check_partition_predicates,
    constant,
    data_predicates,
    element,
    file_filter,
    infer_type,
    partition_tests,
    schema_kind,
    typed,
)
from parquet_codec.dataset_schema import (
    check_predicates,
    conform,
    file_arrow_schema,
    first_file,
    head,
    nullable_where_null,
    schema_template,
    source_name,
    top_level_names,
    type_name,
)
from parquet_codec.dataset_schema import read_file as read_file_as
from parquet_codec.errors import SchemaError, UnsupportedError
from parquet_codec.filesystems import Filesystem, filesystem_of_uri, local_path
from parquet_codec.format.ttypes import SchemaElement
from parquet_codec.io import Source
from parquet_codec.predicate import Filter, parse_filters
from parquet_codec.read_arguments import column_names, with_pandas_index
from parquet_codec.reader import ParquetFile
from parquet_codec.reader import read_table as read_file
from parquet_codec.schema import Schema
from parquet_codec.table import Table


@dataclass(frozen=True)
class DataFile:
    """One Parquet file of a folder and the raw partition values of its path."""

    path: str
    partition: tuple[tuple[str, str | None], ...]


def discover(folder: str, filesystem: object = None, partitioning: str | Sequence[str] | None = "hive",
             ignore_prefixes: Sequence[str] | None = None) -> list[DataFile]:
    """The data files under ``folder`` (on ``filesystem``, a pyarrow or fsspec
    one, or the local disk) in path order, with their partition values (see
    :func:`_partition_values` for ``partitioning``). A file or folder whose
    name starts with one of ``ignore_prefixes`` is left out, as pyarrow
    leaves it out (by default "_" and ".": bookkeeping)."""
    prefixes = _IGNORED if ignore_prefixes is None else _prefixes(ignore_prefixes)
    fs = Filesystem(filesystem)
    sep = os.sep if filesystem is None else "/"
    root = folder.rstrip(sep) or sep
    found = []
    for path in fs.files_under(root):
        parts = _relative(path, root, sep).split(sep)
        if prefixes and any(part.startswith(prefixes) for part in parts):
            continue  # bookkeeping, or under a bookkeeping folder
        found.append(DataFile(path, _partition_values(parts[:-1], partitioning)))
    return found


_IGNORED = ("_", ".")


def _prefixes(given: object) -> tuple[str, ...]:
    if isinstance(given, str) or not all(isinstance(p, str) for p in given):
        raise TypeError(f"ignore_prefixes must be a list of strings, not {given!r}")
    return tuple(given)


def _relative(path: str, root: str, sep: str) -> str:
    """``path`` below ``root`` (filesystems differ on a leading separator)."""
    for p, r in ((path, root), (path.lstrip(sep), root.lstrip(sep))):
        if (r and p.startswith(r + sep)) or r == sep:
            return p[len(r):].lstrip(sep)
    return path.rsplit(sep, 1)[-1]


def _partition_kinds(files: list[DataFile]) -> dict[str, str]:
    """Each partition key's type (:func:`infer_type`), the keys in order of
    first appearance; a file without a key has a null value for it, as in pyarrow."""
    keys = dict.fromkeys(k for f in files for k, _ in f.partition)
    return {k: infer_type(_key_values(files, k)) for k in keys}


def _key_values(files: list[DataFile], key: str) -> list[str | None]:
    """Each file's value of a partition key (None: null, or no folder for it)."""
    return [dict(f.partition).get(key) for f in files]


def _partitioning(partitioning: object) -> str | tuple[str, ...] | None:
    """pyarrow's ``partitioning`` argument, checked: "hive", None or field
    names; or pyarrow's objects for those (HivePartitioning,
    DirectoryPartitioning, whose types :func:`_typed_keys` applies, and
    ``HivePartitioning.discover()``)."""
    given = partitioning_object(partitioning)
    if given is not None:
        names, hive = given
        return "hive" if hive else tuple(names)
    if type(partitioning).__name__ == "PartitioningFactory" and partitioning.type_name == "hive":
        return "hive"
    if partitioning is None or (isinstance(partitioning, str) and partitioning == "hive"):
        return partitioning
    if isinstance(partitioning, (list, tuple)) and partitioning and all(
            isinstance(name, str) and name for name in partitioning):
        return tuple(partitioning)
    raise UnsupportedError(f"partitioning {partitioning!r}: only 'hive', None or a list of field names "
                           "(one per folder level) is supported")


def partitioning_object(partitioning: object) -> tuple[list[str], bool] | None:
    """The field names of a pyarrow HivePartitioning or DirectoryPartitioning
    (``pyarrow.dataset.partitioning(schema, flavor=...)``) and whether it is
    hive's; None for any other value."""
    kind = type(partitioning).__name__
    if kind not in ("HivePartitioning", "DirectoryPartitioning"):
        return None
    return list(partitioning.schema.names), kind == "HivePartitioning"


def _partition_values(folders: Sequence[str], partitioning: str | Sequence[str] | None
                      ) -> tuple[tuple[str, str | None], ...]:
    """The partition values a file's ``folders`` give: with "hive" those of
    its key=value folders, with field names the first folders' names (one
    field each, as pyarrow's directory partitioning), with None none."""
    if partitioning is None:
        return ()
    if isinstance(partitioning, str):
        return _partitions(folders)
    return tuple(zip(partitioning, [unquote(folder) for folder in folders], strict=False))  # a shallow file: fewer


def _partitions(folders: Sequence[str]) -> tuple[tuple[str, str | None], ...]:
    """The partition values of the ``key=value`` ones among ``folders`` (a
    key's first folder gives its value, as in pyarrow); other folders are not
    partitions."""
    found: dict[str, str | None] = {}
    for folder in folders:
        key, sep, value = folder.partition("=")
        if sep and key and unquote(key) not in found:
            value = unquote(value)
            found[unquote(key)] = None if value == HIVE_NULL else value
    return tuple(found.items())


# ---------------------------------------------------------------- reading


def read_dataset(folder: str, columns: Sequence[str] | None = None, filters: object = None, *,
                 partitioning: str | Sequence[str] | None = "hive", **options: object) -> Table:
    """Every data file of ``folder`` as one Table, partition columns last
    (``filesystem``, among the options, holds the folder)."""
    files = _checked(discover(folder, options.get("filesystem"), _partitioning(partitioning),
                              options.pop("ignore_prefixes", None)), partitioning)
    return _read_data_files(files, columns, filters, schema=_typed_keys(None, partitioning, files, options), **options)


def _read_data_files(files: list[DataFile], columns: Sequence[str] | None, filters: object, *,
                     schema: object = None, **options: object) -> Table:
    """The files as one Table in the first file's schema (see
    :mod:`parquet_codec.dataset_schema`), each with its partition values as
    columns (last). A key the first file also holds as a column (polars and
    DuckDB's WRITE_PARTITION_COLUMNS write the keys into the files) is read
    from the files, in their place and type, as polars and DuckDB read it."""
    columns = column_names(columns)
    if schema is not None:
        return _read_in_schema(files, columns, filters, schema, options)
    if not files:
        return _no_files(columns, filters)
    kinds = _folder_keys(_partition_kinds(files), files, options)
    wanted_keys = list(kinds) if columns is None else [c for c in columns if c in kinds]
    file_columns = None if columns is None else [c for c in columns if c not in kinds]
    filt = parse_filters(filters)
    check_partition_predicates(filt, kinds)
    first = files[0].path
    template = first_file(first, file_columns, data_predicates(filt, kinds), options)
    reference = f"the first file's ({first})"
    tables = [table for _, table in _read_each(
        files, kinds, wanted_keys, filt,
        lambda path, rows_filter: read_file_as(path, template, file_columns, rows_filter, options, reference))]
    if not tables:  # every file pruned: an empty table of the first file's shape
        tables.append(_with_partitions(template, [(k, kinds[k], None) for k in wanted_keys]))
    result = Table.concat(nullable_where_null(tables))
    if columns is None:
        return result
    # A dotted name of a field inside structs ("s.a") was read as a column named after its last part.
    selected = [c if c in kinds or c in result.column_names else c.rsplit(".", 1)[-1] for c in columns]
    # With use_pandas_metadata the files' DataFrame index columns were read too: they follow, as in pyarrow.
    return result.select(selected + [n for n in result.column_names if n not in selected and n not in kinds])


def _read_in_schema(files: list[DataFile], columns: list[str] | None, filters: object, schema: object,
                    options: dict) -> Table:
    """The files as one Table in ``schema`` (a pyarrow Schema), as pyarrow reads
    a dataset given one: its fields (those of ``columns``) in its order, a
    field no file holds null, others cast as :mod:`.dataset_schema` casts,
    those of a dictionary type read as dictionaries; partition keys it does
    not name are left out, those it names take its type."""
    target = schema_template(schema)
    names = target.column_names
    encoded = [field.name for field in schema if hasattr(field.type, "index_type")]  # Arrow dictionary types
    if encoded:
        options = dict(options, read_dictionary=[*(options.get("read_dictionary") or ()), *encoded])
    filt = parse_filters(filters)
    for name in [*(columns or ()), *(filt.columns if filt else ())]:
        if (name if name in (columns or ()) else head(name, names)) not in names:
            raise SchemaError(f"column {name!r} is not a field of the schema given; its fields are {names}")
    # The keys the schema names, selected or not: a filter on one is decided by the folders.
    kinds = {k: kind for k, kind in _partition_kinds(files).items() if k in names}
    kinds = _folder_keys(kinds, files, options)
    for key in kinds:
        kinds[key] = schema_kind(key, type_name(target.column(key).field), _key_values(files, key)) or kinds[key]
    check_partition_predicates(filt, kinds)
    check_predicates(data_predicates(filt, kinds), target)
    if columns is not None:
        if options.get("use_pandas_metadata"):  # the schema's DataFrame index columns too, as pyarrow's
            columns = with_pandas_index(columns, target.metadata, names)
        target = target.select(columns)
    keys = [k for k in kinds if k in target.column_names]
    in_files = target.select([n for n in target.column_names if n not in kinds])
    read = _read_each(files, kinds, keys, filt,
                      lambda path, rows_filter: read_file_as(path, in_files, None, rows_filter, options, _GIVEN))
    tables = [conform(table, target, source_name(path), _GIVEN) for path, table in read]
    return Table.concat(nullable_where_null(tables or [target]))


_GIVEN = "the schema given"


def _read_each(files: list[DataFile], kinds: dict[str, str], keys: list[str], filt: Filter | None,
               read: Callable[[str, Filter | None], Table | None]) -> list[tuple[str, Table]]:
    """(path, rows) of each file whose partition values ``filt`` keeps, read
    by ``read(path, filter of its rows)`` (None: every row ruled out), with
    the values of the partition ``keys`` (of ``kinds``) as its last columns."""
    found = []
    for data_file in files:
        values = dict(data_file.partition)
        keep, rows_filter = file_filter(filt, partition_tests({k: (kinds[k], values.get(k)) for k in kinds}))
        table = read(data_file.path, rows_filter) if keep else None
        if table is not None:
            partitions = [(k, kinds[k], typed(values.get(k), kinds[k])) for k in keys]
            found.append((data_file.path, _with_partitions(table, partitions)))
    return found


def _typed_keys(schema: object, partitioning: object, files: list[DataFile], options: dict) -> object:
    """The schema to read in: ``schema`` when given; for a pyarrow
    partitioning object of typed keys, the first file's Arrow schema and
    those keys, as pyarrow types them; else None (the first file's)."""
    if schema is not None or not hasattr(partitioning, "schema") or not files:
        return schema
    import pyarrow as pa

    base = file_arrow_schema(files[0].path, options)
    keys = [field for field in partitioning.schema if field.name not in base.names]
    return pa.schema([*base, *keys], metadata=base.metadata)


def _folder_keys(kinds: dict[str, str], files: list[DataFile], options: dict) -> dict[str, str]:
    """The partition keys read from the folders: those the first file does not
    also hold as a column (such a column is read from the files)."""
    if not kinds:
        return kinds
    stored = set(top_level_names(files[0].path, options))
    return {k: kind for k, kind in kinds.items() if k not in stored}


def _no_files(columns: Sequence[str] | None, filters: object) -> Table:
    """A dataset of no files (an empty folder or list): a table of no
    columns and no rows, as pyarrow reads it; no column can be named."""
    filt = parse_filters(filters)
    named = list(columns or ()) + (filt.columns if filt else [])
    if named:
        raise SchemaError(f"no column {named[0]!r}: the dataset holds no Parquet files")
    return Table(Schema.from_elements([SchemaElement(name="schema", num_children=0)]), {}, 0)


def _with_partitions(table: Table, partitions: list[tuple[str, str, object]]) -> Table:
    if not partitions:
        return table
    clash = [k for k, _, _ in partitions if k in table.column_names]
    if clash:
        raise SchemaError(f"partition keys {clash} are also columns of the files")
    elements = list(table.schema.to_elements())
    for name, kind, _ in partitions:
        elements += element(name, kind)
    root = elements[0]
    elements[0] = SchemaElement(**{k: getattr(root, k) for k in SchemaElement.__slots__})
    elements[0].num_children = (root.num_children or 0) + len(partitions)
    arrays = {c.name: c.array for c in table.columns}
    arrays.update({name: constant(value, kind, table.num_rows) for name, kind, value in partitions})
    return Table(Schema.from_elements(elements), arrays, table.num_rows, metadata=table.metadata, origin=table.origin,
                 read_options=table.read_options, dictionaries=table.dictionaries)


def read_table(source: Source | Sequence[str | os.PathLike], columns: Sequence[str] | None = None,
               filters: object = None, *, partitioning: str | Sequence[str] | None = "hive",
               schema: object = None, **options: object) -> Table:
    """Read a file, a folder of files (see :func:`read_dataset`) or a list of
    files (one dataset, in the order listed) into a Table.

    ``partitioning``, as pyarrow's: "hive" (key=value folders), None (no
    partition columns) or a list of field names, one per folder level; a
    single file has no partition columns. ``schema`` (a pyarrow Schema): the
    table's columns and types, as pyarrow reads in one (see
    :func:`_read_in_schema`). The options are those of
    :func:`parquet_codec.reader.read_table`; a folder may lie on their
    ``filesystem`` or be a URI ("s3://bucket/folder")."""
    files = _dataset_files(source, partitioning, options)
    if files is None and schema is None:
        return read_file(source, columns, filters, **options)
    files = [DataFile(source, ())] if files is None else files
    schema = _typed_keys(schema, partitioning, files, options)
    return _read_data_files(files, columns, filters, schema=schema, **options)


def _dataset_files(source: object, partitioning: object, options: dict) -> list[DataFile] | None:
    """The files a folder or a list of paths holds, with their partition
    values; None for one file (or a file object). ``ignore_prefixes``, among
    the options (taken out of them), applies to a folder's files only, as in pyarrow."""
    mode = _partitioning(partitioning)
    ignore_prefixes = options.pop("ignore_prefixes", None)
    folder = _folder(source, options)
    if folder is not None:
        return _checked(discover(folder, options.get("filesystem"), mode, ignore_prefixes), mode)
    if not isinstance(source, (list, tuple)) or not all(isinstance(p, (str, os.PathLike)) for p in source):
        return None
    # As pyarrow: the folders of each listed path give its partition values.
    paths = [os.fspath(p) for p in source]
    folders = [[f for f in os.path.dirname(p).replace(os.sep, "/").split("/") if f] for p in paths]
    return _checked([DataFile(p, _partition_values(f, mode)) for p, f in zip(paths, folders, strict=True)], mode)


def _checked(files: list[DataFile], partitioning: object) -> list[DataFile]:
    """``files``, each partition field given a value by some file's folders."""
    if isinstance(partitioning, (list, tuple)):
        given = {key for f in files for key, _ in f.partition}
        missing = [name for name in partitioning if name not in given]
        if missing:
            raise SchemaError(f"partition fields {missing} have no folder level in any file's path")
    return files


def _folder(source: object, options: dict) -> str | None:
    """The folder ``source`` names (a URI's filesystem then set in ``options``), or None."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    path, filesystem = os.fspath(source), options.get("filesystem")
    uri = filesystem is None and "://" in path
    if not uri:
        path = local_path(path, filesystem)
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
    """``pyarrow.parquet.ParquetDataset``: a folder of Parquet files (its
    partitions as :func:`read_table` reads them), one file or a list of
    files, read as one table, on the local disk or a ``filesystem`` (pyarrow's
    or fsspec's; or a URI). ``filters`` apply to every read; ``options`` are
    :func:`read_table`'s; ``schema`` (a pyarrow Schema) is read in as there."""

    def __init__(self, path_or_paths: Source | Sequence[Source], filesystem: object = None, schema: object = None,
                 *, filters: object = None, partitioning: str | Sequence[str] | None = "hive",
                 **options: object) -> None:
        if schema is not None:
            schema_template(schema)  # (a schema of the wrong kind is refused here, not at the first read)
        options["filesystem"] = filesystem
        found = _dataset_files(path_or_paths, partitioning, options)
        if found is None:  # one file: no partition values, as pyarrow
            found = [DataFile(os.fspath(path_or_paths), ())]
        self._found = found
        self._filters = filters
        self._options = options
        self._schema = _typed_keys(schema, partitioning, found, options)

    @property
    def files(self) -> list[str]:
        """The data files read, in the order read."""
        return [f.path for f in self._found]

    @property
    def schema(self) -> Schema:
        """The schema of the table :meth:`read` gives (partition columns last);
        no row group is read."""
        found = self._found
        if self._schema is not None:
            return schema_template(self._schema).schema
        if not found:
            return _no_files(None, None).schema
        with ParquetFile(found[0].path, **self._options) as pf:
            table = pf.read_row_groups([])
        # (a key the first file holds is read from the files, as _read_data_files reads it)
        kinds = {k: kind for k, kind in _partition_kinds(found).items() if k not in table.column_names}
        return _with_partitions(table, [(k, kind, None) for k, kind in kinds.items()]).schema

    def read(self, columns: Sequence[str] | None = None, use_threads: bool = True,
             use_pandas_metadata: bool = False) -> Table:
        options = dict(self._options, use_threads=use_threads, use_pandas_metadata=use_pandas_metadata)
        return _read_data_files(self._found, columns, self._filters, schema=self._schema, **options)

    def read_pandas(self, **kwargs: object) -> Table:
        """:meth:`read` with ``use_pandas_metadata=True``, as pyarrow's."""
        return self.read(use_pandas_metadata=True, **kwargs)


__all__ = ["HIVE_NULL", "DataFile", "ParquetDataset", "discover", "infer_type", "partitioning_object", "read_dataset",
           "read_pandas", "read_table"]
