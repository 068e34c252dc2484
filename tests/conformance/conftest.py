"""One SparkSession for the whole test session (local[2], no UI, UTC), shared
by every test marked ``spark``; those tests are skipped when PySpark or a
Java runtime is missing (docs/spark-interop.md: start-up costs 10-50 s).

The session starts with the project's test KMS client jar on its class path
when a JDK can build it (java_kms.py); the encryption tests skip without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.java_kms import build_jar
from tests.conformance.support import generator, spark_available


@pytest.fixture(scope="session")
def kms_jar(tmp_path_factory) -> Path | str:
    """The test KMS client jar, or why it could not be built."""
    if spark_available() is not None:
        return "no Spark"
    return build_jar(tmp_path_factory.mktemp("kms-jar"))


@pytest.fixture(scope="session")
def spark(kms_jar):
    reason = spark_available()
    if reason is not None:
        pytest.skip(reason)
    extra = {"spark.jars": str(kms_jar)} if isinstance(kms_jar, Path) else {}
    session = generator().start_session("parquet-codec-conformance", extra)
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def spark_kms(spark, kms_jar):
    """The shared session, when it holds the test KMS client (else the test is skipped)."""
    if not isinstance(kms_jar, Path):
        pytest.skip(kms_jar)
    return spark


@pytest.fixture(scope="session")
def spark_frames(spark):
    """The generator's DataFrames, built once."""
    return generator().frames(spark)
