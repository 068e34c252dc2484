"""Seed corpora: small files written by our writer, plus the shared corpus by path.

``python -m fuzz.seeds`` (re)writes ``fuzz/corpus/<target>/``: a few dozen
small files covering every physical type, nesting, both data page versions,
dictionary and each DELTA_* / BYTE_STREAM_SPLIT encoding and every codec;
footers cut out of them for the footer target; encoded payloads for the
decoder target; encrypted files for the decryption target. The shared
corpus (``../shared/parquet-testing``) and ``fixtures/spark`` are passed to
the fuzzer as extra seed directories, never copied (see :func:`seed_dirs`).
"""

from __future__ import annotations

import datetime
import decimal
import io
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import parquet_codec as pc
from fuzz.targets import DecodeParams, encode_params, level_streams_payload
from parquet_codec import compression
from parquet_codec.crypto import FileEncryptionProperties
from parquet_codec.encodings import (
    ByteStreamSplit,
    DeltaBinaryPacked,
    DeltaByteArray,
    DeltaLengthByteArray,
    RleBitPackedHybrid,
    encode_indices,
    encode_plain,
)
from parquet_codec.format.ttypes import CompressionCodec, Type

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent
CORPUS = FUZZ / "corpus"
SHARED = ROOT.parent / "shared" / "parquet-testing"
# Seeds above this size are left out of the fuzzer's seed directories (libFuzzer would cut them).
MAX_SEED = 128 * 1024


def seed_dirs(target: str) -> list[Path]:
    """Seed directories for ``target``: ours first, then the shared corpus and fixtures when present."""
    dirs = [CORPUS / target]
    if target == "read":
        dirs += [SHARED / "data", SHARED / "bad_data", ROOT / "fixtures" / "spark"]
    if target == "decrypt":
        dirs += [SHARED / "data", SHARED / "data" / "aes256"]
    return [d for d in dirs if d.is_dir()]


def seed_files(target: str) -> list[Path]:
    """Every seed file of ``target`` small enough to fuzz, sorted."""
    files: list[Path] = []
    for folder in seed_dirs(target):
        pattern = "*.parquet.encrypted" if target == "decrypt" and folder != CORPUS / target else "*"
        files += [p for p in folder.glob(pattern) if p.is_file() and p.stat().st_size <= MAX_SEED]
    return sorted(files)


def _tables() -> Iterator[tuple[str, object]]:
    rng = np.random.default_rng(1)
    n = 40
    ints = rng.integers(-1000, 1000, n)
    yield "flat", {
        "i32": [int(v) if v % 7 else None for v in ints],
        "i64": [int(v) * 2**33 for v in ints],
        "f64": [float(v) / 3 if v % 5 else None for v in ints],
        "s": [f"s{v % 9}" if v % 4 else None for v in ints],
        "b": [bool(v & 1) for v in ints],
    }
    import pyarrow as pa  # maps need an explicit type; seeds are generated where pyarrow is installed

    yield "nested", pa.table({
        "l": [[int(v), None, 3] if v % 3 else None for v in ints],
        "st": [{"a": int(v), "b": str(v)} if v % 2 else None for v in ints],
        "m": pa.array([[("k", int(v))] if v % 5 else [] for v in ints], pa.map_(pa.string(), pa.int64())),
        "ll": [[[1, 2], []] if v % 2 else [[None]] for v in ints],
    })
    yield "arrow", pa.table({  # a stored Arrow schema (ARROW:schema): types Parquet alone cannot say
        "dur": pa.array([int(v) for v in ints], pa.duration("ms")),
        "tz": pa.array([int(v) for v in ints], pa.timestamp("us", tz="Europe/Paris")),
        "dict": pa.array([f"d{v % 3}" for v in ints]).dictionary_encode(),
        "fsl": pa.array([[int(v), 1] for v in ints], pa.list_(pa.int32(), 2)),
    })
    yield "logical", {
        "d": [decimal.Decimal(int(v)) / 100 for v in ints],
        "date": [datetime.date(2020, 1, 1) + datetime.timedelta(days=int(v)) for v in ints],
        "ts": [datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc) for _ in ints],
        "bin": [bytes([int(v) & 0xFF]) * 3 for v in ints],
    }


def _write(table: object, **options: object) -> bytes:
    out = io.BytesIO()
    pc.write_table(table, out, **options)
    return out.getvalue()


def read_seeds() -> Iterator[tuple[str, bytes]]:
    for name, table in _tables():
        for codec in ("none", "snappy", "gzip", "zstd", "lz4", "brotli"):
            for version in ("1.0", "2.0"):
                yield f"{name}_{codec}_v{version[0]}", _write(table, compression=codec, data_page_version=version,
                                                              data_page_size=256)
        yield f"{name}_plain", _write(table, compression="none", use_dictionary=False)
    ints = {"a": list(range(0, 300, 3)), "b": [f"v{i // 3}" for i in range(100)]}
    for encoding, columns in (("DELTA_BINARY_PACKED", ["a"]), ("DELTA_LENGTH_BYTE_ARRAY", ["b"]),
                              ("DELTA_BYTE_ARRAY", ["b"]), ("BYTE_STREAM_SPLIT", ["a"])):
        yield f"enc_{encoding.lower()}", _write(ints, compression="none", use_dictionary=False,
                                                column_encoding=dict.fromkeys(columns, encoding))
    yield "checksums", _write(ints, compression="none", write_page_checksum=True)
    yield "row_groups", _write(ints, compression="none", row_group_size=30)


def footer_seeds(files: dict[str, bytes]) -> Iterator[tuple[str, bytes]]:
    for name, data in files.items():
        length = struct.unpack("<I", data[-8:-4])[0]
        yield name, data[len(data) - 8 - length : len(data) - 8]


def decode_seeds() -> Iterator[tuple[str, bytes]]:
    values = np.arange(100, dtype=np.int64) * 3 - 50
    words = [b"abc", b"abd", b"x", b"", b"abcdef"] * 4
    levels = np.array([0, 1, 1, 2, 2, 2, 0, 1] * 8, dtype=np.uint32)
    yield "plain_i64", encode_params(DecodeParams(0, 2, 100, 0, 0), encode_plain(values, Type.INT64))
    yield "plain_bytes", encode_params(DecodeParams(0, 6, len(words), 0, 0), encode_plain(words, Type.BYTE_ARRAY))
    yield "rle", encode_params(DecodeParams(1, 2, len(levels), 0, 0), RleBitPackedHybrid.encode(levels, 2))
    yield "rle_zero_width", encode_params(DecodeParams(1, 0, 2**31 - 1, 0, 0), b"\xfe\xff\xff\xff\x0f")
    yield "bit_packed", encode_params(DecodeParams(2, 2, len(levels), 0, 0), bytes(16))
    yield "indices", encode_params(DecodeParams(3, 0, len(levels), 0, 0), encode_indices(levels, 3))
    yield "delta_binary", encode_params(DecodeParams(4, 1, 100, 0, 0), DeltaBinaryPacked.encode(values, Type.INT64))
    yield "delta_length", encode_params(DecodeParams(5, 0, len(words), 0, 0), DeltaLengthByteArray.encode(words))
    yield "delta_byte_array", encode_params(DecodeParams(6, 6, len(words), 0, 0), DeltaByteArray.encode(words))
    yield "byte_stream_split", encode_params(DecodeParams(7, 5, 100, 0, 0),
                                             ByteStreamSplit.encode(values.astype(np.float64), Type.DOUBLE))
    raw = encode_plain(values, Type.INT64)
    for codec in (1, 2, 4, 5, 6, 7):
        yield f"decompress_{codec}", encode_params(DecodeParams(8, codec, 0, 0, len(raw)),
                                                   compression.compress(codec, raw))
    yield "decompress_0", encode_params(DecodeParams(8, CompressionCodec.UNCOMPRESSED, 0, 0, 10), bytes(10))
    rng = np.random.default_rng(0)
    for width in (1, 2, 3):  # pages' definition levels: nulls about one in ten
        pages = [np.minimum(rng.integers(0, 10, 200), (1 << width) - 1).astype(np.uint32) for _ in range(12)]
        streams = [(RleBitPackedHybrid.encode(page, width), len(page)) for page in pages]
        yield f"level_streams_{width}", encode_params(DecodeParams(9, width - 1, 0, 0, 0), level_streams_payload(streams))


def decrypt_seeds() -> Iterator[tuple[str, bytes]]:
    from fuzz.targets import KEY_COLUMNS, KEY_FOOTER

    table = {"double_field": [1.5, None, 3.0] * 5, "float_field": [1.0, 2.0, None] * 5, "s": ["a", "b", None] * 5}
    for algorithm in ("AES_GCM_V1", "AES_GCM_CTR_V1"):
        for plaintext in (False, True):
            keys = FileEncryptionProperties(KEY_FOOTER, column_keys=KEY_COLUMNS, algorithm=algorithm,
                                            plaintext_footer=plaintext)
            yield f"{algorithm.lower()}_{'plain' if plaintext else 'enc'}_footer", _write(table, encryption=keys)
    yield "uniform", _write(table, encryption=FileEncryptionProperties(KEY_FOOTER), data_page_version="2.0")


def write_corpus() -> dict[str, int]:
    """Rewrite fuzz/corpus/<target>/; returns the number of seeds per target."""
    files = dict(read_seeds())
    sets = {"read": files, "footer": dict(footer_seeds(files)), "decode": dict(decode_seeds()),
            "decrypt": dict(decrypt_seeds())}
    for target, seeds in sets.items():
        folder = CORPUS / target
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, data in seeds.items():
            (folder / name).write_bytes(data)
    return {target: len(seeds) for target, seeds in sets.items()}


if __name__ == "__main__":
    print(write_corpus())
