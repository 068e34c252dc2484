"""The arguments of a read, taken as ``pyarrow.parquet`` takes them and checked
before anything is read: ``columns`` (any iterable of names, read once), the
DataFrame index columns ``use_pandas_metadata`` adds (those the ``pandas``
metadata entry lists), ``memory_limit`` (see :mod:`parquet_codec.limits`) and
``batch_size``. A wrong one is a TypeError or ValueError naming the argument.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import numpy as np


def column_names(columns: Iterable[str] | None) -> list[str] | None:
    """A ``columns`` argument as a list of names (an iterator is consumed once;
    None selects every column). TypeError for a string or a name that is not one."""
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)):
        raise TypeError("columns must be a list of names, not a string")
    try:
        names = list(columns)
    except TypeError:
        raise TypeError(f"columns must be a list of names, not {type(columns).__name__}") from None
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"column names must be strings, got {name!r}")
    return names


def row_group_indices(row_groups: Iterable[int]) -> list[int]:
    """A ``row_groups`` argument as a list (an iterator is consumed once); each
    index is checked where it is used. TypeError for None, a string or a non-iterable."""
    if row_groups is None or isinstance(row_groups, (str, bytes)):
        raise TypeError(f"row_groups must be a list of row group indices, not {row_groups!r}")
    try:
        return list(row_groups)
    except TypeError:
        raise TypeError(f"row_groups must be a list of row group indices, not {type(row_groups).__name__}") from None


def with_pandas_index(columns: Sequence[str], metadata: dict[str, str], names: Sequence[str]) -> list[str]:
    """``columns`` and, after them, the DataFrame index columns among ``names``
    that the ``pandas`` entry of ``metadata`` lists (a RangeIndex is not stored)."""
    try:
        index = json.loads(metadata.get("pandas", "{}")).get("index_columns", [])
    except (ValueError, AttributeError):
        return list(columns)
    return list(columns) + [n for n in index if isinstance(n, str) and n in names and n not in columns]


def memory_limit_bytes(limit: object) -> int | None:
    """``memory_limit`` as whole bytes: None, or a number that is neither negative nor NaN."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float, np.integer, np.floating)):
        raise TypeError(f"memory_limit is a number of bytes, not {limit!r}")
    if not limit >= 0 or limit == float("inf"):
        raise ValueError(f"memory_limit must be a finite number of bytes >= 0, not {limit!r}")
    return int(limit)


def check_buffer_size(buffer_size: object) -> None:
    """pyarrow's ``buffer_size`` (an I/O hint here): None or a number of bytes, not below zero."""
    if buffer_size is None:
        return
    if not isinstance(buffer_size, (int, float, np.integer, np.floating)):
        raise TypeError(f"buffer_size must be a number of bytes, not {buffer_size!r}")
    if not buffer_size >= 0:
        raise ValueError(f"buffer_size must be 0 (unbuffered) or a positive number of bytes, not {buffer_size!r}")


def check_batch_size(batch_size: object) -> None:
    """Refuse a ``batch_size`` that is not a positive integer."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(f"batch_size must be an integer, not {batch_size!r}")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")


__all__ = ["check_batch_size", "check_buffer_size", "column_names", "memory_limit_bytes", "row_group_indices", "with_pandas_index"]
