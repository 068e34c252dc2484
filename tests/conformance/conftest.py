"""One SparkSession for the whole test session (local[2], no UI, UTC), shared
by every test marked ``spark``; those tests are skipped when PySpark or a
Java runtime is missing (docs/spark-interop.md: start-up costs 10-50 s)."""

from __future__ import annotations

import pytest

from tests.conformance.support import generator, spark_available


@pytest.fixture(scope="session")
def spark():
    reason = spark_available()
    if reason is not None:
        pytest.skip(reason)
    session = generator().start_session("parquet-codec-conformance")
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def spark_frames(spark):
    """The generator's DataFrames, built once."""
    return generator().frames(spark)
