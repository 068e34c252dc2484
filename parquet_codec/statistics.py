"""Column statistics: min/max by sort order, null counts, size statistics.

The rules come from the format's ``Statistics`` struct and LogicalTypes.md
("Sort Order"):

- signed integers, dates, times, timestamps, floats and BOOLEAN
  (false < true) compare as signed numbers; INTEGER(unsigned) / UINT_*
  compare unsigned;
- STRING, ENUM, JSON, BSON, BYTE_ARRAY, UUID and other FIXED_LEN_BYTE_ARRAY
  values compare as unsigned bytes, lexicographically;
- DECIMAL compares as a signed number whatever its physical type (a
  big-endian two's complement in BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY);
- FLOAT16 compares as a float;
- INTERVAL and INT96 have no defined order: only ``null_count`` is written.

Floats: NaN is never a bound (a chunk of only NaN gets no min/max), a zero
minimum is written as -0.0 and a zero maximum as +0.0, so readers that
compare with either zero stay correct.

Bounds are PLAIN-encoded (byte arrays without their length prefix). Long
byte-array bounds are truncated: the minimum to a prefix, the maximum to a
prefix whose last byte (for STRING, its last character) is incremented, and
``is_min_value_exact`` / ``is_max_value_exact`` say so. The deprecated
``min``/``max`` fields (1, 2) are written as parquet-java writes them: only
for BOOLEAN, INT32, INT64, FLOAT and DOUBLE columns whose order is signed.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.encodings.byte_arrays import TAIL_MASKS, words_at
from parquet_codec.encodings.plain import decode_plain, type_name
from parquet_codec.format.ttypes import SizeStatistics, Statistics, Type
from parquet_codec.types import LogicalInfo, has_sort_order, to_pylist

SIGNED, UNSIGNED, UNDEFINED = "signed", "unsigned", "undefined"

#: Default byte limit of a byte-array bound before it is truncated.
DEFAULT_TRUNCATE_LENGTH = 4096

# Candidates left after narrowing on 8-byte prefixes are compared in Python.
_PYTHON_CANDIDATES = 64

_BYTE_KINDS = ("string", "binary", "enum", "json", "bson", "uuid", "fixed_binary")


def sort_order(info: LogicalInfo) -> str:
    """The column's sort order (LogicalTypes.md "Sort Order")."""
    if not has_sort_order(info):
        return UNDEFINED
    if info.kind in _BYTE_KINDS:
        return UNSIGNED
    if info.kind == "int" and not info.signed:
        return UNSIGNED
    return SIGNED


def writes_legacy_bounds(info: LogicalInfo) -> bool:
    """Whether the deprecated min/max fields are written (as parquet-java does)."""
    simple = (Type.BOOLEAN, Type.INT32, Type.INT64, Type.FLOAT, Type.DOUBLE)
    return info.physical_type in simple and sort_order(info) == SIGNED and info.kind != "decimal"


@dataclass
class Bounds:
    """Min and max of some values as comparable Python keys (see :func:`value_bounds`)."""

    min: object
    max: object

    def merge(self, other: Bounds | None) -> Bounds:
        if other is None:
            return self
        return Bounds(min(self.min, other.min), max(self.max, other.max))


# ---------------------------------------------------------------- min / max of values


def value_bounds(values: Array, info: LogicalInfo) -> Bounds | None:
    """Min and max of non-null physical ``values`` by the column's sort order,
    or None when there is none (no values, only NaN, undefined order).

    Keys: int / float / bool for numbers, ``bytes`` for unsigned byte order,
    ``(int, bytes)`` for decimals in bytes (the number, then the stored bytes).
    """
    if len(values) == 0 or sort_order(info) == UNDEFINED:
        return None
    if isinstance(values, BinaryArray):
        if info.kind == "decimal":
            return _decimal_bytes_bounds(values)
        lo, hi = _lex_argminmax(np.asarray(values.offsets, dtype=np.int64), values.data)
        return Bounds(_item(values, lo), _item(values, hi))
    raw = values.values
    if raw.ndim == 2:
        return _fixed_bounds(raw, info)
    if info.kind == "float":
        return _float_bounds(raw)
    if info.kind == "int" and not info.signed:
        raw = raw.view(raw.dtype.str.replace("i", "u"))
    return Bounds(raw.min().item(), raw.max().item())


def _float_bounds(raw: np.ndarray) -> Bounds | None:
    nan = np.isnan(raw)
    if nan.all():  # NaN is never a bound
        return None
    if nan.any():
        raw = raw[~nan]
    lo, hi = raw.min(), raw.max()
    return Bounds(float(lo), float(hi))


def _fixed_bounds(raw: np.ndarray, info: LogicalInfo) -> Bounds | None:
    """FIXED_LEN_BYTE_ARRAY values, ``(n, width)`` uint8 rows."""
    n, width = raw.shape
    if info.kind == "float16":
        with np.errstate(invalid="ignore"):
            floats = np.ascontiguousarray(raw).view("<f2").reshape(n)
        return _float_bounds(floats.astype(np.float32))
    rows = np.ascontiguousarray(raw)
    if info.kind == "decimal":
        # Flipping the sign bit turns signed big-endian order into unsigned byte order.
        rows = rows.copy()
        rows[:, 0] ^= 0x80
    offsets = np.arange(n + 1, dtype=np.int64) * width
    lo, hi = _lex_argminmax(offsets, rows.reshape(-1))
    first, last = raw[lo].tobytes(), raw[hi].tobytes()
    if info.kind == "decimal":
        return Bounds((int.from_bytes(first, "big", signed=True), first),
                      (int.from_bytes(last, "big", signed=True), last))
    return Bounds(first, last)


def _decimal_bytes_bounds(values: BinaryArray) -> Bounds:
    """Decimals in BYTE_ARRAY: variable-length two's complement, compared as numbers."""
    offsets = np.asarray(values.offsets).tolist()
    raw = np.asarray(values.data).tobytes()
    keys = [(int.from_bytes(raw[a:b], "big", signed=True), raw[a:b]) for a, b in zip(offsets, offsets[1:], strict=False)]
    return Bounds(min(keys), max(keys))


def _item(values: BinaryArray, i: int) -> bytes:
    return np.asarray(values.data[int(values.offsets[i]) : int(values.offsets[i + 1])]).tobytes()


def _prefix_keys(offsets: np.ndarray, data: np.ndarray, idx: np.ndarray | None, skip: int) -> np.ndarray:
    """Bytes ``skip .. skip+8`` of the values ``idx`` (None: every value) as
    big-endian uint64, zero padded."""
    starts = offsets[:-1] if idx is None else offsets[idx]
    stops = offsets[1:] if idx is None else offsets[idx + 1]
    if skip:
        starts = starts + skip
    word = words_at(data, starts)
    remaining = stops - starts
    if len(remaining) and remaining.min() < 8:  # some values end within the word: zero their tail
        word &= TAIL_MASKS[np.clip(remaining, 0, 8)]
    return word.byteswap(inplace=True)  # the first byte becomes the most significant


def _lex_extreme(offsets: np.ndarray, data: np.ndarray, first_keys: np.ndarray, largest: bool) -> int:
    """Index of the lexicographically smallest (largest) value, vectorized.

    Narrows the candidates on 8-byte zero-padded prefixes (``first_keys``
    holds every value's first one): a strictly smaller padded prefix means a
    strictly smaller value, so only the values tied on the best prefix stay;
    a handful of ties is settled in Python.
    """
    best = first_keys.max() if largest else first_keys.min()
    cand = np.flatnonzero(first_keys == best)
    skip = 8
    longest = int((offsets[cand + 1] - offsets[cand]).max())
    while len(cand) > _PYTHON_CANDIDATES and skip < longest:
        keys = _prefix_keys(offsets, data, cand, skip)
        best = keys.max() if largest else keys.min()
        cand = cand[keys == best]
        skip += 8
    if len(cand) == 1:
        return int(cand[0])
    items = [data[offsets[i] : offsets[i + 1]].tobytes() for i in cand.tolist()]
    pick = max if largest else min
    return int(cand[items.index(pick(items))])


def _lex_argminmax(offsets: np.ndarray, data: np.ndarray) -> tuple[int, int]:
    """Indices of the smallest and largest of the (non-empty) values, in unsigned byte order.
    Every value's first 8 bytes are read once, for both."""
    first = _prefix_keys(offsets, data, None, 0)
    return _lex_extreme(offsets, data, first, False), _lex_extreme(offsets, data, first, True)


# ---------------------------------------------------------------- encoding bounds


def encode_bound(key: object, info: LogicalInfo) -> bytes:
    """A bound key as its PLAIN bytes (byte arrays without a length prefix)."""
    physical = info.physical_type
    if isinstance(key, tuple):  # decimal stored as bytes
        return key[1]
    if isinstance(key, bytes):
        return key
    if physical == Type.BOOLEAN:
        return b"\x01" if key else b"\x00"
    if info.kind == "float16":
        return np.array([key], dtype="<f2").tobytes()
    if physical in (Type.FLOAT, Type.DOUBLE):
        return struct.pack("<f" if physical == Type.FLOAT else "<d", key)
    width = 4 if physical == Type.INT32 else 8
    return int(key).to_bytes(width, "little", signed=int(key) < 0)


def _zero_signs(bounds: Bounds, info: LogicalInfo) -> Bounds:
    """-0.0 as a zero minimum, +0.0 as a zero maximum (floats only)."""
    if info.kind not in ("float", "float16"):
        return bounds
    lo = -0.0 if bounds.min == 0 else bounds.min
    hi = 0.0 if bounds.max == 0 else bounds.max
    return Bounds(lo, hi)


def truncate_min(value: bytes, limit: int, is_string: bool) -> tuple[bytes, bool]:
    """A prefix of at most ``limit`` bytes (never less than ``value``); exact flag."""
    if len(value) <= limit:
        return value, True
    cut = limit
    if is_string:
        while cut > 0 and (value[cut] & 0xC0) == 0x80:  # do not split a UTF-8 character
            cut -= 1
    return value[:cut], False


def truncate_max(value: bytes, limit: int, is_string: bool) -> tuple[bytes, bool]:
    """A value of at most ``limit`` bytes that is >= ``value``: a prefix with its
    last byte (character) incremented; ``value`` itself when none exists."""
    if len(value) <= limit:
        return value, True
    if is_string:
        text = value.decode("utf-8", errors="ignore")
        prefix = truncate_min(value, limit, True)[0].decode("utf-8", errors="ignore")
        if prefix and text.startswith(prefix):
            chars = list(prefix)
            while chars:
                code = ord(chars[-1]) + 1
                code = 0xE000 if 0xD800 <= code <= 0xDFFF else code
                if code <= 0x10FFFF:
                    candidate = ("".join(chars[:-1]) + chr(code)).encode("utf-8")
                    if len(candidate) <= limit:
                        return candidate, False
                chars.pop()
        return value, True
    prefix = bytearray(value[:limit])
    while prefix and prefix[-1] == 0xFF:
        prefix.pop()
    if not prefix:
        return value, True
    prefix[-1] += 1
    return bytes(prefix), False


def to_thrift(bounds: Bounds | None, null_count: int, info: LogicalInfo, *,
              truncate_length: int | None = DEFAULT_TRUNCATE_LENGTH) -> Statistics:
    """The Statistics struct for a chunk or page with these bounds and nulls."""
    stats = Statistics(null_count=int(null_count))
    if bounds is None:
        return stats
    bounds = _zero_signs(bounds, info)
    lo, hi = encode_bound(bounds.min, info), encode_bound(bounds.max, info)
    exact_lo = exact_hi = True
    if truncate_length is not None and sort_order(info) == UNSIGNED and info.physical_type == Type.BYTE_ARRAY:
        is_string = info.kind in ("string", "json")
        lo, exact_lo = truncate_min(lo, truncate_length, is_string)
        hi, exact_hi = truncate_max(hi, truncate_length, is_string)
    stats.min_value, stats.max_value = lo, hi
    stats.is_min_value_exact, stats.is_max_value_exact = exact_lo, exact_hi
    if writes_legacy_bounds(info):
        stats.min, stats.max = lo, hi
    return stats


# ---------------------------------------------------------------- size statistics


def bound_value(raw: bytes | None, info: LogicalInfo) -> Any:
    """A statistics bound (PLAIN bytes, byte arrays without their length) as a
    Python value of the column's type; raises ValueError when it cannot be."""
    if raw is None:
        return None
    raw = bytes(raw)
    physical = info.physical_type
    array: Array
    if physical == Type.BYTE_ARRAY:
        array = BinaryArray.of(np.array([0, len(raw)], dtype=np.int64), np.frombuffer(raw, dtype=np.uint8))
    elif physical == Type.FIXED_LEN_BYTE_ARRAY or physical == Type.INT96:
        array = PrimitiveArray.of(np.frombuffer(raw, dtype=np.uint8).reshape(1, len(raw)))
    elif physical == Type.BOOLEAN:
        if len(raw) != 1:
            raise ValueError("BOOLEAN bound is not one byte")
        array = PrimitiveArray.of(np.array([raw[0] != 0]))
    else:
        values, used = decode_plain(raw, physical, 1)
        if used != len(raw):
            raise ValueError(f"bound of {len(raw)} bytes for a {type_name(physical)} column")
        array = PrimitiveArray.of(values)
    return to_pylist(array, info)[0]


def level_histogram(levels: np.ndarray | None, max_level: int, count: int) -> list[int]:
    """How many slots have each level 0..max_level (all at 0 when there are no levels)."""
    if levels is None:
        return [count] + [0] * max_level
    if max_level < 8:  # a compare per level beats bincount's widening of int16 levels to intp
        counts = [int(np.count_nonzero(levels == k)) for k in range(1, max_level + 1)]
        return [len(levels) - sum(counts), *counts]
    return np.bincount(levels, minlength=max_level + 1).tolist()


@dataclass
class SizeCounts:
    """Additive size statistics of a page or chunk (SizeStatistics in the format)."""

    unencoded_bytes: int | None
    rep_histogram: list[int] | None
    def_histogram: list[int] | None

    def merge(self, other: SizeCounts) -> SizeCounts:
        def add(a: list[int] | None, b: list[int] | None) -> list[int] | None:
            return None if a is None or b is None else [x + y for x, y in zip(a, b, strict=True)]

        unencoded = None if self.unencoded_bytes is None else self.unencoded_bytes + (other.unencoded_bytes or 0)
        return SizeCounts(unencoded, add(self.rep_histogram, other.rep_histogram),
                          add(self.def_histogram, other.def_histogram))

    def to_thrift(self) -> SizeStatistics:
        return SizeStatistics(unencoded_byte_array_data_bytes=self.unencoded_bytes,
                              repetition_level_histogram=self.rep_histogram,
                              definition_level_histogram=self.def_histogram)


def size_counts(values: Array, def_levels: np.ndarray | None, rep_levels: np.ndarray | None, count: int,
                max_def: int, max_rep: int, physical_type: int) -> SizeCounts:
    """Size statistics of one page: byte-array payload bytes and level histograms.

    Histograms are kept where they carry information, as parquet-java does:
    repetition when the max repetition level is above 0, definition when the
    max definition level is above 1 (a 0/1 histogram is the null count)."""
    unencoded = None
    if physical_type == Type.BYTE_ARRAY:
        offsets = values.offsets
        unencoded = int(offsets[-1] - offsets[0]) if len(offsets) else 0
    rep = level_histogram(rep_levels, max_rep, count) if max_rep > 0 else None
    dfn = level_histogram(def_levels, max_def, count) if max_def > 1 else None
    return SizeCounts(unencoded, rep, dfn)


__all__ = [
    "SIGNED", "UNSIGNED", "UNDEFINED", "DEFAULT_TRUNCATE_LENGTH", "Bounds", "SizeCounts",
    "sort_order", "writes_legacy_bounds", "value_bounds", "encode_bound", "truncate_min", "truncate_max",
    "to_thrift", "level_histogram", "size_counts", "bound_value",
]
