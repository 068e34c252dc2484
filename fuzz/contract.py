"""The contract every target checks: rows, or a ParquetError that says what and where.

A target function takes bytes and either returns or raises. :func:`run`
turns a :class:`ParquetError` into an ordinary outcome (after checking its
message) and lets anything else propagate: for atheris that is a finding,
for the tests a failure.
"""

from __future__ import annotations

from collections.abc import Callable

from parquet_codec.errors import ParquetError

# Address space beyond what the interpreter has mapped when the limit is set:
# an allocation past it raises MemoryError, recorded as a finding with the
# input that caused it (libFuzzer's own RSS limit kills the process without
# saying which input).
HEADROOM = 1024 * 2**20


def limit_address_space(headroom: int = HEADROOM) -> None:
    """Cap this process's address space at what it maps now plus ``headroom``."""
    import resource

    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    limit = mapped + headroom
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


class ContractViolation(AssertionError):
    """A ParquetError whose message does not say what went wrong or where."""


def check_error(exc: ParquetError, *, where: bool) -> None:
    """The message names what went wrong; with ``where``, also where (context or an offset)."""
    if not exc.message or not exc.message.strip():
        raise ContractViolation(f"{type(exc).__name__} without a message") from exc
    if where and not _says_where(exc):
        raise ContractViolation(f"{type(exc).__name__} does not say where: {exc}") from exc


_PLACES = ("row_group", "column", "page", "file_offset")
_PLACE_WORDS = ("schema", "footer", "element", "offset", "column", "row group", "page", "byte")


def _says_where(exc: ParquetError) -> bool:
    """A place beyond the file's name: a context key, or a place named in the message."""
    if any(key in exc.context for key in _PLACES):
        return True
    message = exc.message.lower()
    return any(word in message for word in _PLACE_WORDS)


def run(target: Callable[[bytes], object], data: bytes, *, where: bool = True) -> ParquetError | None:
    """Call ``target(data)``; return the ParquetError it raised (checked), or None."""
    try:
        target(data)
    except ParquetError as exc:
        check_error(exc, where=where)
        return exc
    return None


__all__ = ["HEADROOM", "ContractViolation", "check_error", "limit_address_space", "run"]
