"""The project's own Java KmsClient for Spark (tests/conformance/java), built
into a jar for ``spark.jars`` (docs/spark-interop.md "Encryption from Spark").

The shared SparkSession is started once with the jar on its class path; the
crypto settings themselves travel per write and per read as options (they
reach parquet-java's Hadoop configuration), so files of the other live tests
are never touched by them.
"""

from __future__ import annotations

import base64
import glob
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

JAVA_SOURCES = Path(__file__).parent / "java"
PACKAGE = "parquetcodec.testkms"
KMS_CLIENT = f"{PACKAGE}.InMemoryKmsClient"
#: A decryption-properties factory returning None: parquet-java then reads as a reader without keys.
NO_DECRYPTION = f"{PACKAGE}.NoDecryptionFactory"
CRYPTO_FACTORY = "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory"

#: Master keys shared by Spark's KMS client and our InMemoryKms (kc2 is a 256-bit master key).
MASTER_KEYS: dict[str, bytes] = {
    "kf": bytes(range(16)),
    "kc1": bytes(range(16, 32)),
    "kc2": bytes(range(32, 64)),
}


def key_list(keys: dict[str, bytes] = MASTER_KEYS) -> str:
    """parquet.encryption.key.list: "kf:<base64>, kc1:<base64>, ..."."""
    return ", ".join(f"{key_id}:{base64.b64encode(key).decode('ascii')}" for key_id, key in keys.items())


def crypto_options() -> dict[str, str]:
    """Hadoop settings that make parquet-java encrypt / decrypt through our KMS client."""
    return {
        "parquet.crypto.factory.class": CRYPTO_FACTORY,
        "parquet.encryption.kms.client.class": KMS_CLIENT,
        "parquet.encryption.key.list": key_list(),
    }


def _pyspark_jars() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    jars = Path(spec.origin).parent / "jars"
    return jars if jars.is_dir() else None


def _javac() -> str | None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "javac").exists():
        return str(Path(java_home) / "bin" / "javac")
    return shutil.which("javac")


def _class_path(jars: Path) -> str:
    """Only the jars the sources import from (javac is several seconds faster than with jars/*)."""
    wanted = ["parquet-hadoop-*.jar", "parquet-common-*.jar", "parquet-column-*.jar", "hadoop-client-api-*.jar"]
    found = [path for pattern in wanted for path in sorted(glob.glob(str(jars / pattern)))]
    return os.pathsep.join(found) if len(found) >= len(wanted) else str(jars / "*")


def build_jar(workdir: Path) -> Path | str:
    """Compile the KMS client into ``workdir/parquet-codec-test-kms.jar``; a reason string when it cannot."""
    javac, jars = _javac(), _pyspark_jars()
    if javac is None:
        return "no javac (a JDK is needed to build the test KMS client)"
    if jars is None:
        return "pyspark's jars folder not found"
    classes = workdir / "classes"
    sources = sorted(str(p) for p in JAVA_SOURCES.rglob("*.java"))
    command = [javac, "--release", "17", "-nowarn", "-cp", _class_path(jars), "-d", str(classes), *sources]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return f"javac failed: {result.stderr.strip()[:2000]}"
    jar = workdir / "parquet-codec-test-kms.jar"
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for path in sorted(classes.rglob("*.class")):
            archive.write(path, path.relative_to(classes).as_posix())
    return jar
