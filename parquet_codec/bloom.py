"""Split-block bloom filters (BloomFilter.md, "Technical Approach" and "File Format").

A filter is ``z`` blocks of 256 bits, each block eight little-endian 32-bit
words. A value is hashed with XXH64 (seed 0) over its PLAIN encoding, byte
arrays without their 4-byte length prefix; the top 32 bits of the hash pick
the block (``((h >> 32) * z) >> 32``) and the low 32 bits, multiplied by the
eight odd salt constants, set one bit in each word of that block.

On disk a filter is a Thrift ``BloomFilterHeader`` (numBytes, BLOCK,
XXHASH, UNCOMPRESSED) followed by ``numBytes`` of bitset. Filters are sized
from (ndv, fpp) as parquet-java and Arrow size them: the bit count of the
spec's formula, clamped to [32 B, 128 MiB] and rounded up to a power of two.

Everything per value is numpy: block selection, masks, inserts and checks,
and XXH64 itself for values shorter than 32 bytes (the short-input path of
the XXH64 specification needs no stripes, so it vectorizes over rows).
Longer values go through ``xxhash.xxh64_intdigest``, one C call each.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable
from typing import Protocol

import numpy as np
import xxhash

from parquet_codec.arrays import Array, BinaryArray, PrimitiveArray
from parquet_codec.encodings.byte_arrays import ByteArrays
from parquet_codec.errors import CorruptFileError, MetadataError, ParquetError, UnsupportedError
from parquet_codec.format.ttypes import (
    BloomFilterAlgorithm,
    BloomFilterCompression,
    BloomFilterHash,
    BloomFilterHeader,
    SplitBlockAlgorithm,
    Type,
    Uncompressed,
    XxHash,
)
from parquet_codec.io import ByteSource
from parquet_codec.temporal import in_duration_unit
from parquet_codec.thrift_io import deserialize, serialize
from parquet_codec.types import LogicalInfo, from_pylist

#: The eight odd 32-bit constants of ``mask`` (BloomFilter.md, "Technical Approach").
SALT = np.array(
    [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31],
    dtype=np.uint32,
)
BLOCK_BYTES = 32
WORDS_PER_BLOCK = 8
#: Size limits shared by parquet-java and Arrow (bytes of bitset).
MIN_BYTES = 32
MAX_BYTES = 128 * 2**20

# A BloomFilterHeader is about 15 bytes; read this much when its length is unknown.
_HEADER_WINDOW = 64
_HEADER_WINDOW_MAX = 64 * 1024
# The little-endian length in front of every encrypted module (Encryption, section 5.1).
_MODULE_PREFIX = 4

# Inserts build a bool scratch of 8 bytes per filter byte up to this filter size.
_BOOL_SCRATCH_MAX = 16 * 2**20

_FIXED_WIDTH = {Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}


# ---------------------------------------------------------------- XXH64 (seed 0), vectorized

_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
_SHORT = 32  # inputs below this length take XXH64's stripe-free path


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _lanes(rows: np.ndarray, pos: int, width: int) -> np.ndarray:
    """Little-endian ``width``-byte words at column ``pos`` of ``(n, L)`` byte rows, as uint64."""
    dtype = "<u8" if width == 8 else "<u4"
    return np.ascontiguousarray(rows[:, pos : pos + width]).view(dtype).reshape(-1).astype(np.uint64)


def xxh64_rows(rows: np.ndarray) -> np.ndarray:
    """XXH64 (seed 0) of every row of an ``(n, L)`` uint8 array, as uint64.

    Rows shorter than 32 bytes are hashed with numpy, following the
    specification's path for short inputs (8-byte lanes, one 4-byte lane,
    single bytes, avalanche); longer rows call the C library per row."""
    n, length = rows.shape
    if length >= _SHORT:
        return np.fromiter((xxhash.xxh64_intdigest(r.tobytes()) for r in rows), dtype=np.uint64, count=n)
    with np.errstate(over="ignore"):
        acc = np.full(n, _P5 + np.uint64(length), dtype=np.uint64)
        pos = 0
        while pos + 8 <= length:
            acc ^= _rotl(_lanes(rows, pos, 8) * _P2, 31) * _P1
            acc = _rotl(acc, 27) * _P1 + _P4
            pos += 8
        if pos + 4 <= length:
            acc ^= _lanes(rows, pos, 4) * _P1
            acc = _rotl(acc, 23) * _P2 + _P3
            pos += 4
        for col in range(pos, length):
            acc ^= rows[:, col].astype(np.uint64) * _P5
            acc = _rotl(acc, 11) * _P1
        acc ^= acc >> np.uint64(33)
        acc *= _P2
        acc ^= acc >> np.uint64(29)
        acc *= _P3
        acc ^= acc >> np.uint64(32)
    return acc


def _hash_byte_arrays(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """XXH64 of variable-length values: short values grouped by length and hashed as rows."""
    offsets = np.asarray(offsets, dtype=np.int64)
    starts, lengths = offsets[:-1], np.diff(offsets)
    out = np.empty(len(lengths), dtype=np.uint64)
    long_values = np.flatnonzero(lengths >= _SHORT)
    raw = memoryview(np.ascontiguousarray(data, dtype=np.uint8))
    for i in long_values.tolist():
        out[i] = xxhash.xxh64_intdigest(raw[int(starts[i]) : int(starts[i] + lengths[i])])
    data = np.asarray(data, dtype=np.uint8).reshape(-1)
    for length in np.unique(lengths[lengths < _SHORT]).tolist():
        idx = np.flatnonzero(lengths == length)
        if length == 0:
            rows = np.zeros((len(idx), 0), np.uint8)
        else:  # rows of a sliding window: a gather without a per-byte index array
            rows = np.lib.stride_tricks.sliding_window_view(data, length)[starts[idx]]
        out[idx] = xxh64_rows(rows)
    return out


def hash_values(values: object, physical_type: int, *, type_length: int | None = None) -> np.ndarray:
    """XXH64 hashes (uint64) of physical values, as the spec hashes them: over
    each value's PLAIN bytes, byte arrays without the length prefix.

    ``values``: a physical :class:`~parquet_codec.arrays.Array` (null slots
    are skipped), :class:`ByteArrays`, a 1-D numeric array, or an ``(n, w)``
    uint8 array for INT96 / FIXED_LEN_BYTE_ARRAY."""
    if isinstance(values, Array):
        values = _valid_values(values)
    if physical_type == Type.BOOLEAN:
        # A boolean's PLAIN bytes: its bit in the low bit of one byte, 0 or 1.
        # arrow-rs writes bloom filters of BOOLEAN columns hashing that byte
        # (pyarrow writes none, nor does this writer; see Sbbf.proves_absence).
        flat = np.ascontiguousarray(values, dtype=bool).reshape(-1).view(np.uint8)
        return xxh64_rows(flat.reshape(len(flat), 1))
    if physical_type == Type.BYTE_ARRAY:
        if not isinstance(values, ByteArrays):
            values = ByteArrays.from_pylist(values)  # type: ignore[arg-type]
        return _hash_byte_arrays(values.offsets, values.data)
    if physical_type in _FIXED_WIDTH:
        dtype = np.dtype(_FIXED_WIDTH[physical_type])
        flat = np.ascontiguousarray(values, dtype=dtype).reshape(-1)
        return xxh64_rows(flat.view(np.uint8).reshape(len(flat), dtype.itemsize))
    if physical_type in (Type.INT96, Type.FIXED_LEN_BYTE_ARRAY):
        if isinstance(values, ByteArrays):
            return _hash_byte_arrays(values.offsets, values.data)
        rows = np.asarray(values, dtype=np.uint8)
        width = 12 if physical_type == Type.INT96 else type_length
        if rows.ndim != 2 or (width is not None and rows.shape[1] != width):
            raise ValueError(f"expected an (n, {width}) uint8 array, got shape {rows.shape}")
        return xxh64_rows(rows)
    raise UnsupportedError(f"bloom filters are not defined for physical type {physical_type}")


def value_hashes(values: Iterable[object], info: LogicalInfo) -> np.ndarray:
    """The hashes :meth:`Sbbf.might_contain_any` looks up for Python values of
    a column's logical type (no None among them), all converted and hashed in
    one pass; -0.0 and +0.0 are equal values with different bytes, so a float
    zero is looked up as both. Raises as ``from_pylist`` does for a value the
    column cannot hold."""
    items = list(values)
    if info.kind in ("float", "float16"):
        items += [-v for v in items if v == 0]
    if not items:
        return np.zeros(0, dtype=np.uint64)
    physical = from_pylist(items, info)
    return hash_values(physical, info.physical_type, type_length=info.type_length)


def _valid_values(array: Array) -> object:
    """The non-null values of a physical array, in the representation hash_values takes."""
    keep = None if array.validity is None else np.flatnonzero(array.validity)
    if isinstance(array, BinaryArray):
        values = ByteArrays(np.asarray(array.offsets, dtype=np.int64), array.data)
        return values if keep is None else values.take(keep)
    if isinstance(array, PrimitiveArray):
        return array.values if keep is None else array.values[keep]
    raise TypeError(f"cannot hash a {type(array).__name__}: bloom filters hold leaf values")


# ---------------------------------------------------------------- sizing


ARROW, PARQUET_JAVA = "arrow", "parquet-java"


def optimal_num_bytes(ndv: int, fpp: float, max_bytes: int = MAX_BYTES, *, sizing: str = ARROW) -> int:
    """Bitset bytes for ``ndv`` distinct values at false positive probability
    ``fpp`` ("Sizing an SBBF"): ``m = -8 * ndv / ln(1 - fpp ** (1/8))`` bits,
    truncated, kept within [32 B, ``max_bytes``] and rounded up to a power of two.

    ``sizing`` picks whose rounding to reproduce, so that a filter can match
    another writer's byte for byte: ``"arrow"`` rounds ``m`` bits up to a
    power of two; ``"parquet-java"`` first adds a block's worth of bits
    (its ``(bits + 255) & ~256``), which often doubles the result
    (ndv=100, fpp=0.01: Arrow 128 bytes, parquet-java 256)."""
    if ndv < 0:
        raise ValueError(f"ndv must be >= 0, got {ndv}")
    if not 0.0 < fpp < 1.0:
        raise ValueError(f"fpp must lie strictly between 0 and 1, got {fpp}")
    if not MIN_BYTES <= max_bytes <= MAX_BYTES:
        raise ValueError(f"max_bytes must lie in [{MIN_BYTES}, {MAX_BYTES}], got {max_bytes}")
    if sizing not in (ARROW, PARQUET_JAVA):
        raise ValueError(f"sizing must be {ARROW!r} or {PARQUET_JAVA!r}, got {sizing!r}")
    m = -8.0 * ndv / math.log(1.0 - fpp ** (1.0 / 8.0))
    bits = 8 * MAX_BYTES if not math.isfinite(m) or m > 8 * MAX_BYTES else int(m)
    # parquet-java rounds with (bits + 255) & ~256 (sic: that clears bit 8 only), then
    # truncates to bytes; Arrow rounds bits to a power of two, i.e. whole bytes rounded up.
    num_bytes = ((bits + 255) & ~256) // 8 if sizing == PARQUET_JAVA else -(-bits // 8)
    num_bytes = min(max(num_bytes, MIN_BYTES), max_bytes)
    num_bytes = 1 << (num_bytes - 1).bit_length()  # next power of two
    return min(num_bytes, 1 << (max_bytes.bit_length() - 1))


def _check_num_bytes(num_bytes: int) -> None:
    if not MIN_BYTES <= num_bytes <= MAX_BYTES or num_bytes & (num_bytes - 1):
        raise CorruptFileError(
            f"bloom filter of {num_bytes} bytes: the size must be a power of two in [{MIN_BYTES}, {MAX_BYTES}]"
        )


# ---------------------------------------------------------------- the filter


def _masks(bit: np.ndarray) -> np.ndarray:
    """One-bit uint32 word masks from bit positions."""
    return np.left_shift(np.uint32(1), bit, dtype=np.uint32)


class Sbbf:
    """A split-block bloom filter of ``num_bytes`` bytes (a power of two, 32 B to 128 MiB).

    ``info`` (the column's :class:`LogicalInfo`) is needed only by
    :meth:`might_contain`, which takes Python values of the column's type;
    ``duration_unit`` (that of an INT64 column stored for an Arrow duration)
    lets it take time spans as well.
    """

    def __init__(self, num_bytes: int, *, info: LogicalInfo | None = None, duration_unit: str | None = None) -> None:
        _check_num_bytes(num_bytes)
        self.blocks = np.zeros((num_bytes // BLOCK_BYTES, WORDS_PER_BLOCK), dtype="<u4")
        self.info = info
        self.duration_unit = duration_unit

    optimal_num_bytes = staticmethod(optimal_num_bytes)

    @classmethod
    def for_column(cls, ndv: int, fpp: float, *, info: LogicalInfo | None = None,
                   max_bytes: int = MAX_BYTES, sizing: str = ARROW) -> Sbbf:
        """An empty filter sized for ``ndv`` distinct values at ``fpp``."""
        return cls(optimal_num_bytes(ndv, fpp, max_bytes, sizing=sizing), info=info)

    @property
    def num_bytes(self) -> int:
        return self.blocks.nbytes

    @property
    def proves_absence(self) -> bool:
        """Whether a lookup that misses proves the value absent from the chunk:
        not on a BOOLEAN column. The spec hashes PLAIN bytes, which booleans
        (bit-packed) do not have; arrow-rs hashes one byte per boolean, while
        parquet-java writes filters on BOOLEAN columns that it never fills."""
        return self.info is None or self.info.physical_type != Type.BOOLEAN

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    @property
    def bitset(self) -> bytes:
        return self.blocks.tobytes()

    # Hashes ------------------------------------------------------------
    def _locate(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Block index of each hash and the bit (0..31) ``mask`` sets in each of
        the block's eight words ("filter_insert", "mask")."""
        h = np.asarray(hashes, dtype=np.uint64).reshape(-1)
        # The top 32 bits times z (< 2**23) stays below 2**55: no uint64 overflow.
        block = ((h >> np.uint64(32)) * np.uint64(self.num_blocks)) >> np.uint64(32)
        key = h.astype(np.uint32)  # low 32 bits
        with np.errstate(over="ignore"):
            bit = (key[:, None] * SALT) >> np.uint32(27)  # the product keeps its low 32 bits
        return block.astype(np.intp), bit

    def insert_hashes(self, hashes: np.ndarray) -> None:
        """Insert many 64-bit hashes at once."""
        block, bit = self._locate(hashes)
        if not len(block):
            return
        if self.num_bytes <= _BOOL_SCRATCH_MAX and self.num_bytes <= bit.size:
            # Many hashes for the filter's size: set bits in a bool array (repeated
            # positions are harmless there) and pack it; ~3x faster than ufunc.at.
            pos = (block[:, None] * 256 + np.arange(0, 256, 32) + bit).reshape(-1)
            bits = np.zeros(self.num_bytes * 8, dtype=bool)
            bits[pos] = True
            self.blocks |= np.packbits(bits, bitorder="little").view("<u4").reshape(self.blocks.shape)
        else:  # ufunc.at applies every |= even when blocks repeat
            np.bitwise_or.at(self.blocks, (block[:, None], np.arange(WORDS_PER_BLOCK)), _masks(bit))

    def check_hashes(self, hashes: np.ndarray) -> np.ndarray:
        """For each hash, whether it may have been inserted (bool array)."""
        block, bit = self._locate(hashes)
        masks = _masks(bit)
        return ((self.blocks[block] & masks) == masks).all(axis=1)

    def insert_hash(self, h: int) -> None:
        self.insert_hashes(np.array([h], dtype=np.uint64))

    def check_hash(self, h: int) -> bool:
        return bool(self.check_hashes(np.array([h], dtype=np.uint64))[0])

    # Values ------------------------------------------------------------
    def insert_values(self, values: object, physical_type: int, *, type_length: int | None = None) -> None:
        """Insert physical values (see :func:`hash_values`; nulls are skipped)."""
        self.insert_hashes(hash_values(values, physical_type, type_length=type_length))

    def check_values(self, values: object, physical_type: int, *, type_length: int | None = None) -> np.ndarray:
        """For each physical value, whether it may be in the filter."""
        return self.check_hashes(hash_values(values, physical_type, type_length=type_length))

    def might_contain(self, value: object) -> bool:
        """False when ``value`` (a Python value of the column's logical type) is
        certainly absent from the column chunk. ``None`` answers True: a
        bloom filter records no nulls; so does every value on a column whose
        filter :attr:`proves_absence` of none. A value the column's type cannot hold
        raises :class:`~parquet_codec.errors.SchemaError`."""
        return bool(self.might_contain_any([value]))

    def might_contain_any(self, values: Iterable[object]) -> bool:
        """Whether any of ``values`` may be present (an ``in`` filter)."""
        info = self.info
        if info is None:
            raise TypeError("this filter does not know its column's type: use check_values with physical values")
        items = list(values)
        if any(v is None for v in items):
            return True
        if self.duration_unit is not None:
            items = list(in_duration_unit(items, self.duration_unit))
            if not items:  # spans between two counts of the unit: no value equals them
                return False
        hashes = value_hashes(items, info)  # (converted first: a value the type cannot hold raises)
        return not self.proves_absence or bool(self.check_hashes(hashes).any())

    # Serialization ("File Format") ---------------------------------------
    def header(self) -> BloomFilterHeader:
        return BloomFilterHeader(
            numBytes=self.num_bytes,
            algorithm=BloomFilterAlgorithm(BLOCK=SplitBlockAlgorithm()),
            hash=BloomFilterHash(XXHASH=XxHash()),
            compression=BloomFilterCompression(UNCOMPRESSED=Uncompressed()),
        )

    def to_bytes(self) -> bytes:
        """The header followed by the bitset, as stored at ``bloom_filter_offset``."""
        return serialize(self.header()) + self.bitset

    @classmethod
    def from_bitset(cls, bitset: bytes | bytearray | memoryview, *, info: LogicalInfo | None = None) -> Sbbf:
        filt = cls(len(bitset), info=info)
        filt.blocks[:] = np.frombuffer(bitset, dtype="<u4").reshape(-1, WORDS_PER_BLOCK)
        return filt

    @classmethod
    def from_bytes(cls, buf: bytes | bytearray | memoryview, *, info: LogicalInfo | None = None,
                   base_offset: int = 0) -> Sbbf:
        """Parse a header and its bitset; trailing bytes are ignored. ``base_offset``
        is the file offset of ``buf``, for error messages."""
        header, used = _parse_header(buf, base_offset)
        if used + header.numBytes > len(buf):
            raise CorruptFileError(
                f"bloom filter bitset of {header.numBytes} bytes runs past the {len(buf) - used} bytes given",
                file_offset=base_offset + used,
            )
        return cls.from_bitset(memoryview(buf)[used : used + header.numBytes], info=info)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sbbf):
            return NotImplemented
        return self.blocks.shape == other.blocks.shape and bool((self.blocks == other.blocks).all())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Sbbf({self.num_bytes} bytes, {int(np.unpackbits(self.blocks.view(np.uint8)).sum())} bits set)"


#: parquet-java's default ``parquet.bloom.filter.max.bytes`` (used when no ndv is given).
PARQUET_JAVA_MAX_BYTES = 2**20
#: pyarrow's default ndv when ``bloom_filter_options`` gives none.
ARROW_DEFAULT_NDV = 1048576
_MERGE_AT = 1 << 20  # pending hashes deduplicated once this many accumulate


class BloomFilterBuilder:
    """Collects the hashes of one column chunk; :meth:`finish` sizes and fills the filter.

    Sizing follows the writer named by ``sizing`` so our filters can match
    theirs byte for byte: ``"arrow"`` sizes for ``min(ndv, distinct values
    seen)`` as pyarrow 26 does (``ndv`` defaults to pyarrow's 1048576);
    ``"parquet-java"`` sizes for ``ndv``, or takes ``max_bytes`` (default
    1 MiB, parquet-java's) when no ndv is given.
    """

    def __init__(self, physical_type: int, *, type_length: int | None = None, ndv: int | None = None,
                 fpp: float = 0.05, sizing: str = ARROW, max_bytes: int | None = None,
                 info: LogicalInfo | None = None) -> None:
        if max_bytes is None:
            max_bytes = PARQUET_JAVA_MAX_BYTES if sizing == PARQUET_JAVA else MAX_BYTES
        optimal_num_bytes(ndv or 0, fpp, max_bytes, sizing=sizing)  # validates the options now
        self.physical_type, self.type_length = physical_type, type_length
        self.ndv, self.fpp, self.sizing, self.max_bytes, self.info = ndv, fpp, sizing, max_bytes, info
        self._parts: list[np.ndarray] = []
        self._pending = 0

    def insert_values(self, values: object) -> None:
        """Add physical values (an Array's null slots are skipped)."""
        self.insert_hashes(hash_values(values, self.physical_type, type_length=self.type_length))

    def insert_hashes(self, hashes: np.ndarray) -> None:
        self._parts.append(np.unique(np.asarray(hashes, dtype=np.uint64)))
        self._pending += len(self._parts[-1])
        if self._pending > _MERGE_AT and len(self._parts) > 1:
            self._parts = [self._hashes()]
            self._pending = len(self._parts[0])

    def _hashes(self) -> np.ndarray:
        return np.unique(np.concatenate(self._parts)) if self._parts else np.zeros(0, np.uint64)

    def num_bytes(self, distinct: int) -> int:
        """The bitset size this builder picks for ``distinct`` distinct hashes."""
        if self.sizing == PARQUET_JAVA:
            if self.ndv is None:
                return 1 << (self.max_bytes.bit_length() - 1)
            return optimal_num_bytes(self.ndv, self.fpp, self.max_bytes, sizing=PARQUET_JAVA)
        ndv = ARROW_DEFAULT_NDV if self.ndv is None else self.ndv
        return optimal_num_bytes(min(ndv, distinct), self.fpp, self.max_bytes)

    def finish(self) -> Sbbf:
        hashes = self._hashes()
        filt = Sbbf(self.num_bytes(len(hashes)), info=self.info)
        filt.insert_hashes(hashes)
        return filt


def _parse_header(buf: bytes | bytearray | memoryview, base_offset: int) -> tuple[BloomFilterHeader, int]:
    """The header at the start of ``buf`` and its length, validated before any bitset is allocated."""
    try:
        header, used = deserialize(BloomFilterHeader, buf)
    except MetadataError as exc:
        exc.context["file_offset"] = base_offset
        raise
    _check_header(header, base_offset)
    return header, used


def _check_header(header: BloomFilterHeader, base_offset: int) -> None:
    """A header this reader can use: numBytes in range, BLOCK / XXHASH / UNCOMPRESSED."""
    if header.numBytes is None:
        raise MetadataError("bloom filter header lacks numBytes", file_offset=base_offset)
    for field, member in (("algorithm", "BLOCK"), ("hash", "XXHASH"), ("compression", "UNCOMPRESSED")):
        union = getattr(header, field)
        if union is None:
            raise MetadataError(f"bloom filter header lacks its {field}", file_offset=base_offset)
        if getattr(union, member) is None:  # a member from a newer format version
            raise UnsupportedError(f"bloom filter {field} is not {member}", file_offset=base_offset)
    try:
        _check_num_bytes(header.numBytes)
    except CorruptFileError as exc:
        raise exc.add_context(file_offset=base_offset) from None


def _read_header(source: ByteSource, offset: int) -> tuple[BloomFilterHeader, int]:
    """Parse the header from a small window, a larger one if it holds unknown fields."""
    for window in (_HEADER_WINDOW, _HEADER_WINDOW_MAX):
        available = min(window, source.size - offset)
        try:
            return _parse_header(source.read(offset, available), offset)
        except MetadataError:
            if available < window or window == _HEADER_WINDOW_MAX:
                raise
    raise AssertionError("unreachable")


class BloomDecryptor(Protocol):
    """The bloom filter side of crypto.ColumnChunkDecryptor (BloomFilter.md, "Encryption")."""

    def read_bloom_filter(self, buffer: memoryview | bytes, pos: int = 0
                          ) -> tuple[BloomFilterHeader, bytes | memoryview, int]: ...


def read_bloom_filter(source: ByteSource, offset: int, length: int | None = None, *,
                      info: LogicalInfo | None = None, decryptor: BloomDecryptor | None = None) -> Sbbf:
    """The filter at ``offset`` (``ColumnMetaData.bloom_filter_offset``).

    ``length`` (``bloom_filter_length``, header included) is optional: older
    writers omit it, and then the header is read first and the bitset after
    it. Every size is checked against the file before anything is read.
    ``decryptor`` (the chunk's crypto.ColumnChunkDecryptor) opens the filter of
    an encrypted column: a header module then a bitset module, both GCM."""
    size = source.size
    if offset is None or offset < 0 or offset >= size:
        raise CorruptFileError(f"bloom filter offset {offset} lies outside the file of {size} bytes",
                               file_offset=offset)
    if length is not None and (length <= 0 or length > size - offset):
        raise CorruptFileError(
            f"bloom filter of {length} bytes at {offset} runs past the end of the file ({size} bytes)",
            file_offset=offset,
        )
    if decryptor is not None:
        return _read_encrypted(source, offset, length, info, decryptor)
    if length is not None:
        buf = source.read(offset, length)
        header, used = _parse_header(buf, offset)
        if used + header.numBytes != length:  # one of the two sizes is wrong: so may the bits be
            raise CorruptFileError(f"bloom filter header and bitset of {used} + {header.numBytes} bytes, where the "
                                   f"column metadata declares {length}", file_offset=offset)
        return Sbbf.from_bitset(memoryview(buf)[used:], info=info)
    header, used = _read_header(source, offset)
    start = offset + used
    if header.numBytes > size - start:
        raise CorruptFileError(
            f"bloom filter bitset of {header.numBytes} bytes runs past the end of the file ({size} bytes)",
            file_offset=start,
        )
    return Sbbf.from_bitset(source.read(start, header.numBytes), info=info)


def _read_encrypted(source: ByteSource, offset: int, length: int | None, info: LogicalInfo | None,
                    decryptor: BloomDecryptor) -> Sbbf:
    """An encrypted filter: its two modules decrypted and authenticated, then the header checked."""
    if length is None:
        length = _encrypted_length(source, offset)
    try:
        header, bitset, _ = decryptor.read_bloom_filter(source.read(offset, length))
    except ParquetError as exc:
        raise exc.add_context(file_offset=offset) from None
    _check_header(header, offset)
    return Sbbf.from_bitset(bitset, info=info)


def _encrypted_length(source: ByteSource, offset: int) -> int:
    """The stored size of an encrypted filter without ``bloom_filter_length``: both
    modules' 4-byte length prefixes, each checked against the file and the size limit."""
    pos, size = offset, source.size
    for module in ("header", "bitset"):
        if pos + _MODULE_PREFIX > size:
            raise CorruptFileError(f"encrypted bloom filter {module} at {pos} is cut off by the end of the file",
                                   file_offset=pos)
        (stored,) = struct.unpack("<I", source.read(pos, _MODULE_PREFIX))
        if stored > size - pos - _MODULE_PREFIX or stored > MAX_BYTES + _HEADER_WINDOW_MAX:
            raise CorruptFileError(f"encrypted bloom filter {module} of {stored} bytes at {pos} runs past the end "
                                   f"of the file ({size} bytes) or the bloom filter size limit", file_offset=pos)
        pos += _MODULE_PREFIX + stored
    return pos - offset


__all__ = [
    "ARROW",
    "ARROW_DEFAULT_NDV",
    "BloomDecryptor",
    "BloomFilterBuilder",
    "MAX_BYTES",
    "MIN_BYTES",
    "PARQUET_JAVA",
    "PARQUET_JAVA_MAX_BYTES",
    "SALT",
    "Sbbf",
    "hash_values",
    "optimal_num_bytes",
    "read_bloom_filter",
    "value_hashes",
    "xxh64_rows",
]
