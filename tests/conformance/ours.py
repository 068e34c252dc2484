"""The files our writer produces for Spark to read: one schema with every
type Spark can read and the nested shapes (lists, maps, structs, nested
combinations), rows with nulls everywhere, and the option matrix (page
versions, encodings per physical type, codecs, statistics, checksums)."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from pathlib import Path

import parquet_codec as pc
from parquet_codec.format.ttypes import DecimalType, IntType, LogicalType, TimestampType, Type
from parquet_codec.schema import Schema, group, list_, map_, primitive
from parquet_codec.type_annotations import _time_unit

UTC = datetime.timezone.utc
D = decimal.Decimal


def _int(bits: int, signed: bool = True) -> LogicalType:
    return LogicalType(INTEGER=IntType(bits, signed))


def _ts(utc: bool, unit: str = "us") -> LogicalType:
    return LogicalType(TIMESTAMP=TimestampType(utc, _time_unit(unit)))


def _dec(precision: int, scale: int) -> LogicalType:
    return LogicalType(DECIMAL=DecimalType(scale=scale, precision=precision))


def _str(name: str, repetition: str = "optional") -> list:
    return primitive(name, "BYTE_ARRAY", repetition, logical_type="STRING")


def schema() -> Schema:
    return Schema.from_fields([
        primitive("id", "INT32", "required"),
        primitive("i8", "INT32", logical_type=_int(8)), primitive("i16", "INT32", logical_type=_int(16)),
        primitive("u8", "INT32", logical_type=_int(8, False)), primitive("u32", "INT32", logical_type=_int(32, False)),
        primitive("i32", "INT32"), primitive("i64", "INT64", "required"),
        primitive("f32", "FLOAT"), primitive("f64", "DOUBLE"),
        primitive("dec9", "INT32", logical_type=_dec(9, 2)), primitive("dec18", "INT64", logical_type=_dec(18, 3)),
        primitive("dec38", "FIXED_LEN_BYTE_ARRAY", type_length=16, logical_type=_dec(38, 10)),
        primitive("decba", "BYTE_ARRAY", logical_type=_dec(20, 2)),
        _str("s"), primitive("bin", "BYTE_ARRAY"), primitive("fixed", "FIXED_LEN_BYTE_ARRAY", type_length=4),
        primitive("flag", "BOOLEAN"), primitive("day", "INT32", logical_type="DATE"),
        primitive("ts_us", "INT64", logical_type=_ts(True)), primitive("ts_ms", "INT64", logical_type=_ts(True, "ms")),
        primitive("ntz", "INT64", logical_type=_ts(False)), primitive("i96", "INT96"),
        list_("arr", primitive("e", "INT64")),
        list_("arr_req", _str("e", "required"), "required"),
        map_("m", _str("key", "required"), primitive("value", "INT32")),
        group("st", [primitive("a", "INT32"), list_("b", _str("e")), primitive("c", "DOUBLE", "required")]),
        list_("los", group("e", [primitive("x", "DOUBLE"),
                                 map_("m", _str("key", "required"), primitive("value", "INT32", logical_type="DATE"))])),
        list_("lol", list_("e", primitive("e", "INT64"))),
        map_("mos", primitive("key", "INT32", "required"),
             group("value", [primitive("p", "FLOAT"), list_("q", primitive("e", "INT32"))])),
    ])


def _row(i: int) -> dict:
    floats = [float("nan"), -0.0, float("inf"), 1.5, -2.25, float("-inf"), 0.0, 3.0e38]
    strings = ["", "ascii", "naïve", "日本語", "emoji 🙂", "x" * 30, "\x00nul"]
    row = {
        "id": i, "i8": (i * 37) % 256 - 128, "i16": (i * 1031) % 65536 - 32768, "u8": (i * 7) % 256,
        "u32": (i * 2654435761) % 2**32, "i32": (i - 100) * 21_474_836, "i64": (i - 100) * 92_233_720_368_547,
        "f32": floats[i % 8], "f64": floats[(i + 3) % 8] * 1.0000001,
        "dec9": D(i * 1234567 - 99_999_999) / 100, "dec18": D(i * 10**14 - 10**16) / 1000,
        "dec38": D(10**27 * (i - 100) + i) / 10**10, "decba": D(i * 10**15 - 10**17) / 100,
        "s": strings[i % 7] + str(i % 5), "bin": bytes([i % 256, 0, 255]) * (i % 4), "fixed": i.to_bytes(4, "big"),
        "flag": i % 3 == 0, "day": datetime.date(1000 + i * 9, 1 + i % 12, 1 + i % 28),
        "ts_us": datetime.datetime(1600 + i * 2, 1 + i % 12, 1 + i % 28, i % 24, i % 60, i % 60, i * 997 % 10**6,
                                   tzinfo=UTC),
        "ts_ms": datetime.datetime(1970 + i % 80, 2, 3, 4, 5, 6, (i * 1000) % 10**6, tzinfo=UTC),
        "ntz": datetime.datetime(2000 + i % 50, 6, 1, 12, 0, i % 60, 999999),
        "i96": datetime.datetime(1900 + i, 12, 31, 23, 59, 59, i),
        "arr": None if i % 9 == 4 else [None if j == 1 else j * i for j in range(i % 5)],
        "arr_req": [f"r{j}" for j in range(i % 3)],
        "m": None if i % 8 == 5 else [(f"k{j}", None if j == 2 else i + j) for j in range(i % 4)],
        "st": None if i % 6 == 1 else {"a": None if i % 4 == 0 else i, "b": None if i % 5 == 0 else ["b", None],
                                       "c": i / 3},
        "los": None if i % 10 == 3 else [None if j == 1 else {"x": float(j), "m": [("d", datetime.date(2020, 1, 1 + j))]}
                                         for j in range(i % 3)],
        "lol": [[], None, [i, None]][: i % 4],
        "mos": [(j, None if j == i % 3 else {"p": float(j), "q": None if j == 2 else [j]}) for j in range(i % 4)],
    }
    nullable = [f.name for f in schema().fields if f.nullable]
    if i % 7 == 3:
        row.update(dict.fromkeys(nullable))
    elif i % 5 == 2:
        row[nullable[i % len(nullable)]] = None
    return row


def table(rows: int = 200) -> pc.Table:
    return pc.Table.from_pylist([_row(i) for i in range(rows)], schema())


# ---------------------------------------------------------------- the option matrix

PLAIN = {t: "PLAIN" for t in (Type.BOOLEAN, Type.INT32, Type.INT64, Type.INT96, Type.FLOAT, Type.DOUBLE,
                              Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY)}
DELTA = {Type.INT32: "DELTA_BINARY_PACKED", Type.INT64: "DELTA_BINARY_PACKED", Type.BYTE_ARRAY: "DELTA_BYTE_ARRAY",
         Type.FIXED_LEN_BYTE_ARRAY: "DELTA_BYTE_ARRAY", Type.BOOLEAN: "RLE"}
BSS = {t: "BYTE_STREAM_SPLIT" for t in (Type.FLOAT, Type.DOUBLE, Type.INT32, Type.INT64, Type.FIXED_LEN_BYTE_ARRAY)}
DLBA = {Type.BYTE_ARRAY: "DELTA_LENGTH_BYTE_ARRAY", Type.BOOLEAN: "RLE"}

# name -> (page version, codec, encodings by physical type or None for dictionary, extra options)
RUNS: dict[str, tuple[str, str, Mapping | None, dict]] = {
    "v1_snappy_dict": ("1.0", "snappy", None, {}),
    "v2_snappy_dict": ("2.0", "snappy", None, {}),
    "v1_none_plain": ("1.0", "none", PLAIN, {}),
    "v2_gzip_plain": ("2.0", "gzip", PLAIN, {}),
    "v1_zstd_delta": ("1.0", "zstd", DELTA, {}),
    "v2_zstd_delta": ("2.0", "zstd", DELTA, {"compression_level": 9}),
    "v1_lz4raw_bss": ("1.0", "lz4_raw", BSS, {}),
    "v2_lz4hadoop_bss": ("2.0", "lz4_hadoop", BSS, {}),
    "v2_none_dlba": ("2.0", "none", DLBA, {}),
    "v1_gzip_nostats_nocrc": ("1.0", "gzip", None, {"write_statistics": False, "write_page_checksum": False}),
}


#: Valid encodings Spark cannot read for one column: its vectorized reader has no
#: BYTE_STREAM_SPLIT path for INT32 read as unsigned (UINT_32 -> long):
#: "Cannot call the method readUnsignedIntegers of VectorizedReaderBase" (Spark 4.3).
SPARK_GAPS = {"BYTE_STREAM_SPLIT": {"u32"}}


def options(run: str) -> dict:
    version, codec, by_type, extra = RUNS[run]
    opts = {"data_page_version": version, "compression": codec, "row_group_size": 64, "data_page_size": 512,
            "dictionary_pagesize_limit": 256, "write_page_checksum": True}
    if by_type is not None:
        opts["use_dictionary"] = False
        opts["column_encoding"] = {
            leaf.dotted_path: by_type[leaf.physical_type] for leaf in schema().leaves
            if leaf.physical_type in by_type and leaf.dotted_path not in SPARK_GAPS.get(by_type[leaf.physical_type], ())
        }
    opts.update(extra)
    return opts


def write(run: str, folder: Path, data: pc.Table) -> Path:
    path = folder / f"{run}.parquet"
    pc.write_table(data, path, **options(run))
    return path
