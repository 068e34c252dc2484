"""The ``parquet-codec`` command."""

from __future__ import annotations

import argparse
import sys

from parquet_codec.errors import ParquetError


def _demo(args: argparse.Namespace) -> int:
    from parquet_codec.demo import run

    return run()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parquet-codec", description="Inspect, verify and rewrite Parquet files.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="write a small file, read it back and print what was found")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ParquetError as exc:
        if args.debug:
            raise
        print(f"parquet-codec: {exc}", file=sys.stderr)
        return 1
