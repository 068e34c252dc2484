"""The ``parquet-codec`` command: inspect, show, verify and rewrite Parquet files.

Each subcommand family lives in its own module (:mod:`.inspect`,
:mod:`.show`, :mod:`.verify`, :mod:`.rewrite`); this module builds the
argument parser and turns failures into one line on stderr and a non-zero
exit status (a traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from parquet_codec._version import __version__
from parquet_codec.cli.common import add_decryption_options, non_negative_int
from parquet_codec.errors import ParquetError

PROG = "parquet-codec"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line naming the subcommand, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _demo(args: argparse.Namespace) -> int:
    from parquet_codec.demo import run

    return run()


def _command(name: str, attribute: str) -> Callable[[argparse.Namespace], int]:
    """A subcommand runner imported on first use, so ``--help`` stays fast."""
    def run(args: argparse.Namespace) -> int:
        import importlib

        module = importlib.import_module(f"parquet_codec.cli.{name}")
        return getattr(module, attribute)(args)

    return run


def _add(commands: argparse._SubParsersAction, name: str, help_text: str, runner: Callable, *,
         decryption: bool = True, progress: bool = False, description: str | None = None) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=help_text, description=description or help_text)
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    if progress:
        parser.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    if decryption:
        add_decryption_options(parser)
    parser.set_defaults(run=runner)
    return parser


def _inspect_commands(commands: argparse._SubParsersAction) -> None:
    p = _add(commands, "meta", "file metadata: writer, rows, row groups, column chunks, statistics",
             _command("inspect", "run_meta"))
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="the metadata as one JSON document")
    p.add_argument("--full", action="store_true", help="do not shorten long key-value metadata")

    p = _add(commands, "schema", "the Parquet message type, and the Spark schema if present",
             _command("inspect", "run_schema"))
    p.add_argument("file")
    p.add_argument("--spark-json", action="store_true", help="the Spark schema as JSON instead of a tree")

    p = _add(commands, "pages", "every page header: type, encoding, counts, sizes, first row, CRC, statistics",
             _command("inspect", "run_pages"))
    p.add_argument("file")
    p.add_argument("--column", metavar="COL", help="only this column (dotted path; a group selects its leaves)")
    p.add_argument("--json", action="store_true", help="one JSON object per page")

    p = _add(commands, "index", "the column index and offset index of a column, page by page",
             _command("inspect", "run_index"))
    p.add_argument("file")
    p.add_argument("--column", metavar="COL", help="the column (dotted path); every column when left out")
    p.add_argument("--json", action="store_true", help="one JSON object per page")

    p = _add(commands, "bloom", "whether values might be present, per row group, by the bloom filters",
             _command("inspect", "run_bloom"))
    p.add_argument("file")
    p.add_argument("--column", metavar="COL", required=True, help="the leaf column (dotted path)")
    p.add_argument("values", nargs="+", metavar="VALUE",
                   help="values in the column's type (ISO dates and times; 0x... for binary)")
    p.add_argument("--json", action="store_true", help="one JSON object per row group and value")


def _show_commands(commands: argparse._SubParsersAction) -> None:
    from parquet_codec.cli.show import add_show_options

    p = _add(commands, "head", "the first rows", _command("show", "run_head"))
    p.add_argument("file")
    p.add_argument("-n", type=non_negative_int, default=10, metavar="N", help="how many rows (default 10)")
    add_show_options(p)

    p = _add(commands, "cat", "every row", _command("show", "run_cat"), progress=True)
    p.add_argument("file")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="stop after N rows")
    add_show_options(p)


def _verify_command(commands: argparse._SubParsersAction) -> None:
    p = _add(commands, "verify", "full integrity check; exit status 1 on any finding", _command("verify", "run_verify"),
             progress=True, description="Decode every page, check CRCs, statistics against the data, the page index "
             "against the pages, bloom filters against the values, the footer signature and the row counts. "
             "Prints one line per finding and exits with status 1 if there is any.")
    p.add_argument("files", nargs="+", metavar="FILE", help="files, or folders of Parquet files")
    p.add_argument("-q", "--quiet", action="store_true", help="print findings only, no per-file summary")


def _rewrite_command(commands: argparse._SubParsersAction) -> None:
    from parquet_codec.cli.rewrite import add_rewrite_options

    p = _add(commands, "rewrite", "re-encode a file with other options, row group by row group",
             _command("rewrite", "run_rewrite"), progress=True)
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    add_rewrite_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Inspect, verify and rewrite Parquet files.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    _inspect_commands(commands)
    _show_commands(commands)
    _verify_command(commands)
    _rewrite_command(commands)
    _add(commands, "demo", "write a small file, read it back and print what was found", _demo, decryption=False)
    return parser


def _fail(message: str) -> int:
    sys.stdout.flush()
    print(f"{PROG}: {message}", file=sys.stderr)
    return EXIT_FAILURE


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly, with
        # the status of a process ended by SIGPIPE, as shell tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        if debug:
            raise
        return _fail("interrupted") and EXIT_INTERRUPTED
    except ParquetError as exc:
        if debug:
            raise
        return _fail(_one_line(str(exc)))
    except OSError as exc:
        if debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(_one_line(f"{where}{exc.strerror or exc}"))
    except Exception as exc:  # noqa: BLE001 - a bug must still end in one line
        if debug:
            raise
        return _fail(_one_line(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)"))


__all__ = ["build_parser", "main"]
