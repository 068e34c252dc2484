"""``python -m parquet_codec``: the command-line tool."""

from parquet_codec.cli import main

raise SystemExit(main())
