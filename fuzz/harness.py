"""The atheris entry point: ``python -m fuzz.harness TARGET [libFuzzer options] [corpus dirs]``.

Imports parquet_codec instrumented for coverage, runs TARGET (see
fuzz.targets) on every input and lets anything but a ParquetError with a
proper message escape, which libFuzzer records as a crash. File targets use
the structure-aware mutator (fuzz.mutator.custom_mutator).
"""

from __future__ import annotations

import sys

import atheris

# Dependencies first, so only our package is instrumented.
import numpy  # noqa: F401
import thrift.protocol.TCompactProtocol  # noqa: F401

try:
    import pyarrow

    # jemalloc keeps freed pages mapped: use malloc so RSS reflects what reads hold.
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
except ImportError:  # pragma: no cover
    pass

with atheris.instrument_imports(include=["parquet_codec", "fuzz"]):
    from fuzz import contract, targets
    from fuzz.mutator import custom_mutator

FILE_TARGETS = ("read", "decrypt")
def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in targets.TARGETS:
        sys.exit(f"usage: python -m fuzz.harness {{{','.join(targets.TARGETS)}}} [libFuzzer options]")
    name = argv[1]
    target = targets.TARGETS[name]
    where = targets.NEEDS_WHERE[name]

    def one_input(data: bytes) -> None:
        contract.run(target, data, where=where)

    mutator = custom_mutator if name in FILE_TARGETS else None
    atheris.Setup([argv[0], *argv[2:]], one_input, custom_mutator=mutator)
    contract.limit_address_space()
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
