"""Page compression: the registry of Parquet's codecs.

Implements section 7.1 "Compression" of the Parquet format specification
(Compression.md): every codec except the deprecated LZ4 one compresses the
page bytes as they are, with no framing of its own, and the page header
declares the uncompressed size. Each codec is a pair of small functions in
``_REGISTRY``, keyed by the ``CompressionCodec`` id of ``format.ttypes``.

Decompression is bounded by the declared size: no codec is allowed to
produce much more than ``uncompressed_size`` bytes, so a page that expands
far beyond what its header says (a decompression bomb) fails quickly instead
of exhausting memory.

Codec notes:

* SNAPPY: raw snappy (not the framing format). The stream's own length
  header is checked against the declared size before anything is inflated.
* GZIP: pages may hold several concatenated gzip members, which the spec
  asks readers to accept; zlib-wrapped members are accepted too (zlib's
  ``wbits=47`` auto-detection). Writing produces a single member.
* LZ4 (id 5, deprecated): reading tries, in this order, (1) the Hadoop
  framing parquet-java writes (blocks of a 4-byte big-endian uncompressed
  length followed by one or more chunks of a 4-byte big-endian compressed
  length and a raw LZ4 block), (2) one raw LZ4 block, which older
  parquet-cpp wrote under this id, (3) the LZ4 frame format. A form is
  accepted only if it yields exactly the declared size. Writing produces
  the Hadoop framing with one chunk per block and at most 128 KiB per block,
  which is how Hadoop itself frames pages, stays within the 256 KiB buffer
  of Hadoop's decompressor, and is read by pyarrow.
* LZ4_RAW: one bare LZ4 block.
* LZO: not supported (raises UnsupportedError).

Default compression levels, used when ``level`` is None:

* GZIP 6: zlib's own default, and what parquet-java writes through Hadoop;
  pyarrow's 9 is several times slower for a negligible gain.
* ZSTD 1: pyarrow's default, so file sizes are comparable with pyarrow's.
* BROTLI 8: pyarrow's default, for the same reason; users pick brotli for
  ratio, and quality 11 (the library default) is around ten times slower.
* LZ4 / LZ4_RAW 1: the fast LZ4 compressor (levels 2-12 select LZ4-HC),
  as in pyarrow.
"""

from __future__ import annotations

import operator
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import brotli
import cramjam
import lz4.block
import lz4.frame
import numpy as np
import zstandard

from parquet_codec.errors import DecompressionError, ParquetError, ResourceLimitError, UnsupportedError
from parquet_codec.format.ttypes import CompressionCodec
from parquet_codec.limits import reserve

Buffer = bytes | bytearray | memoryview

__all__ = ["compress", "decompress", "codec_from_name", "codec_name", "MAX_PAGE_SIZE"]

# The page header stores sizes as Thrift i32, so no page can declare more.
MAX_PAGE_SIZE = 2**31 - 1

# Hadoop's LZ4 decompressor holds one block in a 256 KiB buffer; Hadoop's own
# writer cuts blocks at 128 KiB, and so do we.
_HADOOP_BLOCK = 128 * 1024

# Errors the codec libraries raise for malformed input. Anything else (a
# TypeError from a bug of ours, say) propagates untouched.
_LIBRARY_ERRORS: tuple[type[BaseException], ...] = (
    zlib.error,
    brotli.error,
    zstandard.ZstdError,
    lz4.block.LZ4BlockError,
    cramjam.DecompressionError,
    RuntimeError,
    ValueError,
    EOFError,
    OverflowError,
)

# Decompressors and compressors are costly to create relative to a small
# page, and zstandard's objects are not thread-safe: keep one per thread.
_local = threading.local()


def _zstd_decompressor() -> zstandard.ZstdDecompressor:
    dctx = getattr(_local, "zstd_d", None)
    if dctx is None:
        dctx = _local.zstd_d = zstandard.ZstdDecompressor()
    return dctx


def _zstd_compressor(level: int) -> zstandard.ZstdCompressor:
    cache = getattr(_local, "zstd_c", None)
    if cache is None:
        cache = _local.zstd_c = {}
    cctx = cache.get(level)
    if cctx is None:
        cctx = cache[level] = zstandard.ZstdCompressor(level=level)
    return cctx


# ---------------------------------------------------------------- helpers


def _alloc(size: int) -> memoryview:
    # Left uninitialized (bytearray would zero it first): every decoder
    # fills all ``size`` bytes or raises.
    try:
        return memoryview(np.empty(size, dtype=np.uint8))
    except MemoryError as exc:
        raise ResourceLimitError(f"cannot allocate {size} bytes for a decompressed page") from exc


def _too_large(name: str, size: int) -> DecompressionError:
    return DecompressionError(f"{name} stream decompresses to more than the declared {size} bytes")


def _size_mismatch(name: str, size: int, actual: int) -> DecompressionError:
    return DecompressionError(f"{name} stream decompresses to {actual} bytes, but the page declares {size}")


def _check_expansion(name: str, src: memoryview, size: int, ratio: int) -> None:
    # Snappy and LZ4 cannot expand past a fixed ratio; a header claiming more
    # is corrupt, and refusing it early avoids allocating for a lie.
    if size > ratio * len(src) + 1024:
        raise DecompressionError(
            f"{name} page of {len(src)} compressed bytes cannot hold the declared {size} bytes"
        )


def _deliver(chunks: list[bytes], out: memoryview | None) -> Buffer:
    if out is not None:
        pos = 0
        for chunk in chunks:
            out[pos : pos + len(chunk)] = chunk
            pos += len(chunk)
        return out
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# ---------------------------------------------------------------- decoders
# Each takes (compressed bytes, declared size, optional output view), with a
# non-empty input, and returns exactly `size` bytes or raises.


def _decompress_none(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    if len(src) != size:
        raise _size_mismatch("UNCOMPRESSED", size, len(src))
    if out is None:
        return src
    out[:] = src
    return out


def _snappy_length(src: memoryview) -> int:
    value = shift = 0
    for i in range(min(5, len(src))):
        byte = src[i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value
        shift += 7
    raise DecompressionError("SNAPPY stream has a malformed length header")


def _decompress_snappy(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    try:
        claimed = cramjam.snappy.decompress_raw_len(src)
    except cramjam.DecompressionError:
        claimed = _snappy_length(src)  # names the malformed header, or the claim cramjam refuses
    if claimed != size:
        raise DecompressionError(
            f"SNAPPY stream's header declares {claimed} bytes, but the page declares {size}"
        )
    _check_expansion("SNAPPY", src, size, 22)
    target = out if out is not None else _alloc(size)
    written = cramjam.snappy.decompress_raw_into(src, target)
    if written != size:
        raise _size_mismatch("SNAPPY", size, written)
    return target


def _decompress_gzip(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    chunks: list[bytes] = []
    produced = 0
    rest = src
    while rest:
        # One decompressobj per member; max_length stops a bomb one byte
        # past the declared size.
        member = zlib.decompressobj(47)
        chunk = member.decompress(rest, size - produced + 1)
        produced += len(chunk)
        if produced > size:
            raise _too_large("GZIP", size)
        if not member.eof:
            raise DecompressionError(f"GZIP stream is truncated after {produced} of {size} bytes")
        chunks.append(chunk)
        rest = rest[len(rest) - len(member.unused_data) :]
    if produced != size:
        raise _size_mismatch("GZIP", size, produced)
    return _deliver(chunks, out)


def _decompress_brotli(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    # output_buffer_limit stops the decoder's output buffer from growing past
    # the limit; it grows by doubling, so a hostile stream may still fill up
    # to about twice the declared size before we reject it.
    decoder = brotli.Decompressor()
    chunks = [decoder.process(src, output_buffer_limit=size + 1)]
    produced = len(chunks[0])
    while produced <= size and not decoder.is_finished():
        if decoder.can_accept_more_data():
            raise DecompressionError(f"BROTLI stream is truncated after {produced} of {size} bytes")
        chunk = decoder.process(b"", output_buffer_limit=size - produced + 1)
        if not chunk:
            raise DecompressionError("BROTLI decoder made no progress")
        chunks.append(chunk)
        produced += len(chunk)
    if produced > size:
        raise _too_large("BROTLI", size)
    if produced != size:
        raise _size_mismatch("BROTLI", size, produced)
    return _deliver(chunks, out)


def _decompress_zstd(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    # A page may hold several concatenated frames (valid zstd, and what the
    # reference ZSTD_decompress accepts), hence read_across_frames.
    # A first frame whose header already claims too much is refused before
    # the decoder sizes its window for it.
    if zstandard.frame_content_size(src) > size:
        raise _too_large("ZSTD", size)
    target = out if out is not None else _alloc(size)
    view = memoryview(target)
    produced = 0
    with _zstd_decompressor().stream_reader(src, read_across_frames=True) as reader:
        while produced < size:
            got = reader.readinto(view[produced:])
            if not got:
                break
            produced += got
        if produced == size and reader.read(1):
            raise _too_large("ZSTD", size)
    if produced != size:
        raise _size_mismatch("ZSTD", size, produced)
    return target


def _decompress_lz4_raw(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    _check_expansion("LZ4_RAW", src, size, 256)
    target = out if out is not None else _alloc(size)
    try:
        written = cramjam.lz4.decompress_block_into(src, target)
    except cramjam.DecompressionError as exc:
        raise DecompressionError(
            f"LZ4_RAW block is corrupt or decompresses to more than the declared {size} bytes ({exc})"
        ) from exc
    if written != size:
        raise _size_mismatch("LZ4_RAW", size, written)
    return target


class _NotThisForm(Exception):
    """One of the LZ4 (id 5) layouts does not fit; the next is tried."""


def _lz4_hadoop_into(src: memoryview, target: memoryview) -> None:
    size = len(target)
    pos = produced = 0
    while pos < len(src):
        if len(src) - pos < 8:
            raise _NotThisForm(f"{len(src) - pos} stray bytes at offset {pos}")
        (block_len,) = struct.unpack_from(">I", src, pos)
        pos += 4
        if block_len > size - produced:
            raise _NotThisForm(f"block of {block_len} bytes overruns the page at offset {pos - 4}")
        block_end = produced + block_len
        # A block holds one or more chunks; each pass consumes at least the
        # 4-byte length, so the loop always ends.
        while True:
            if len(src) - pos < 4:
                raise _NotThisForm(f"chunk header cut short at offset {pos}")
            (chunk_len,) = struct.unpack_from(">I", src, pos)
            pos += 4
            if chunk_len > len(src) - pos:
                raise _NotThisForm(f"chunk of {chunk_len} bytes overruns the page at offset {pos - 4}")
            chunk = src[pos : pos + chunk_len]
            pos += chunk_len
            produced += cramjam.lz4.decompress_block_into(chunk, target[produced:block_end])
            if produced == block_end:
                break
    if produced != size:
        raise _NotThisForm(f"blocks add up to {produced} bytes, not {size}")


def _lz4_block_into(src: memoryview, target: memoryview) -> None:
    written = cramjam.lz4.decompress_block_into(src, target)
    if written != len(target):
        raise _NotThisForm(f"it yields {written} bytes, not {len(target)}")


def _lz4_frame_into(src: memoryview, target: memoryview) -> None:
    decoder = lz4.frame.LZ4FrameDecompressor()
    data = decoder.decompress(src, max_length=len(target) + 1)
    if len(data) > len(target):
        raise _NotThisForm(f"it yields more than {len(target)} bytes")
    if not decoder.eof or decoder.unused_data:
        raise _NotThisForm("the frame is truncated or followed by stray bytes")
    if len(data) != len(target):
        raise _NotThisForm(f"it yields {len(data)} bytes, not {len(target)}")
    target[:] = data


_LZ4_FORMS = (
    ("Hadoop-framed", _lz4_hadoop_into),
    ("a raw LZ4 block", _lz4_block_into),
    ("an LZ4 frame", _lz4_frame_into),
)


def _decompress_lz4_hadoop(src: memoryview, size: int, out: memoryview | None) -> Buffer:
    _check_expansion("LZ4", src, size, 256)
    result = out if out is not None else _alloc(size)
    target = memoryview(result)
    reasons = []
    for label, attempt in _LZ4_FORMS:
        try:
            attempt(src, target)
            return result
        except (_NotThisForm, *_LIBRARY_ERRORS) as exc:
            reasons.append(f"not {label}: {exc}")
    raise DecompressionError(f"LZ4 page of {len(src)} bytes is unreadable ({'; '.join(reasons)})")


# ---------------------------------------------------------------- encoders


def _compress_none(data: memoryview, level: int) -> bytes:
    return bytes(data)


def _compress_snappy(data: memoryview, level: int) -> bytes:
    return bytes(cramjam.snappy.compress_raw(data))


def _compress_gzip(data: memoryview, level: int) -> bytes:
    # wbits=31 selects the gzip wrapper; the header's mtime is 0, so output is
    # deterministic.
    encoder = zlib.compressobj(level, zlib.DEFLATED, 31)
    return encoder.compress(data) + encoder.flush()


def _compress_brotli(data: memoryview, level: int) -> bytes:
    return brotli.compress(data, quality=level)


def _compress_zstd(data: memoryview, level: int) -> bytes:
    return _zstd_compressor(level).compress(data)


def _compress_lz4_raw(data: memoryview, level: int) -> bytes:
    if level <= 1:
        return lz4.block.compress(data, store_size=False)
    return lz4.block.compress(data, store_size=False, mode="high_compression", compression=level)


def _compress_lz4_hadoop(data: memoryview, level: int) -> bytes:
    parts = []
    # range() yields one block even for empty input: Hadoop and pyarrow both
    # write an (empty) block then, and both read it back.
    for start in range(0, max(len(data), 1), _HADOOP_BLOCK):
        piece = data[start : start + _HADOOP_BLOCK]
        block = _compress_lz4_raw(piece, level)
        parts.append(struct.pack(">II", len(piece), len(block)))
        parts.append(block)
    return b"".join(parts)


# ---------------------------------------------------------------- registry

_Decoder = Callable[[memoryview, int, memoryview | None], Buffer]
_Encoder = Callable[[memoryview, int], bytes]


@dataclass(frozen=True)
class _Codec:
    name: str  # lower-case name, as codec_name() returns it
    label: str  # the Parquet enum name, for messages
    decode: _Decoder | None
    encode: _Encoder | None
    levels: tuple[int, int] | None = None  # inclusive range; None: no levels
    default_level: int = 0


_REGISTRY: dict[int, _Codec] = {
    CompressionCodec.UNCOMPRESSED: _Codec("uncompressed", "UNCOMPRESSED", _decompress_none, _compress_none),
    CompressionCodec.SNAPPY: _Codec("snappy", "SNAPPY", _decompress_snappy, _compress_snappy),
    CompressionCodec.GZIP: _Codec("gzip", "GZIP", _decompress_gzip, _compress_gzip, (0, 9), 6),
    CompressionCodec.LZO: _Codec("lzo", "LZO", None, None),
    CompressionCodec.BROTLI: _Codec("brotli", "BROTLI", _decompress_brotli, _compress_brotli, (0, 11), 8),
    CompressionCodec.LZ4: _Codec(
        "lz4_hadoop", "LZ4", _decompress_lz4_hadoop, _compress_lz4_hadoop, (1, 12), 1
    ),
    CompressionCodec.ZSTD: _Codec("zstd", "ZSTD", _decompress_zstd, _compress_zstd, (-(2**17), 22), 1),
    CompressionCodec.LZ4_RAW: _Codec(
        "lz4_raw", "LZ4_RAW", _decompress_lz4_raw, _compress_lz4_raw, (1, 12), 1
    ),
}

# pyarrow's names; "lz4" means LZ4_RAW there (the Parquet enum's LZ4 is the
# deprecated Hadoop codec, which pyarrow calls "lz4_hadoop").
_NAMES: dict[str, int] = {codec.name: codec_id for codec_id, codec in _REGISTRY.items()}
_NAMES.update(none=CompressionCodec.UNCOMPRESSED, lz4=CompressionCodec.LZ4_RAW)


def _lookup(codec: int) -> _Codec:
    try:
        entry = _REGISTRY.get(operator.index(codec))
    except TypeError:
        entry = None
    if entry is None:
        raise UnsupportedError(f"unknown compression codec id {codec!r}")
    return entry


def _usable(codec: int) -> _Codec:
    # A plain int (what metadata holds) is looked up directly; anything else
    # goes through operator.index in _lookup.
    entry = _REGISTRY.get(codec) if type(codec) is int else None
    if entry is None:
        entry = _lookup(codec)
    if entry.decode is None:
        raise UnsupportedError(f"{entry.label} compression is not supported (codec id {codec})")
    return entry


def _byte_view(data: Buffer) -> memoryview:
    view = data if type(data) is memoryview else memoryview(data)
    if not view.c_contiguous:
        raise ValueError("buffers passed to the codecs must be contiguous")
    return view if view.format == "B" and view.ndim == 1 else view.cast("B")


def _out_view(out: memoryview | bytearray, size: int) -> memoryview:
    view = _byte_view(out)
    if view.readonly:
        raise ValueError("out must be a writable buffer")
    if len(view) != size:
        raise ValueError(f"out holds {len(view)} bytes but the page declares {size}")
    return view


# ---------------------------------------------------------------- public API


def codec_name(codec: int) -> str:
    """The lower-case name of a codec id; ``codec_from_name`` maps it back."""
    return _lookup(codec).name


def codec_from_name(name: str) -> int:
    """The codec id for a pyarrow-style name (case-insensitive).

    "none" and "uncompressed" mean UNCOMPRESSED; "lz4" means LZ4_RAW, as in
    pyarrow, and "lz4_hadoop" the deprecated Hadoop-framed LZ4 (id 5).
    """
    codec = _NAMES.get(name.lower()) if isinstance(name, str) else None
    if codec is None:
        raise ValueError(f"unknown compression {name!r}; expected one of {', '.join(sorted(_NAMES))}")
    return codec


def decompress(
    codec: int,
    data: Buffer,
    uncompressed_size: int,
    *,
    out: memoryview | bytearray | None = None,
) -> Buffer:
    """Decompress one page to exactly ``uncompressed_size`` bytes.

    With ``out`` (a writable buffer of exactly ``uncompressed_size`` bytes)
    the page is decompressed into it, directly where the codec library
    allows, and a byte view of ``out`` is returned. Raises
    DecompressionError when the stream is corrupt or its size differs from
    the declared one, UnsupportedError for LZO and unknown ids, and
    ResourceLimitError when the output cannot be allocated. Without ``out``
    the result is a new buffer, except for UNCOMPRESSED, which returns a
    view of ``data`` itself.
    """
    entry = _usable(codec)
    if not 0 <= uncompressed_size <= MAX_PAGE_SIZE:
        raise DecompressionError(f"{entry.label} page declares an invalid size of {uncompressed_size} bytes")
    src = _byte_view(data)
    target = None if out is None else _out_view(out, uncompressed_size)
    if target is None and codec != CompressionCodec.UNCOMPRESSED:
        reserve(uncompressed_size, f"decompressed {entry.label} page")
    if not len(src):
        # Libraries disagree about empty input; the answer is known anyway.
        if uncompressed_size:
            raise DecompressionError(f"{entry.label} page is empty but declares {uncompressed_size} bytes")
        return b"" if target is None else target
    try:
        return entry.decode(src, uncompressed_size, target)
    except ParquetError:
        raise
    except MemoryError as exc:
        raise ResourceLimitError(f"{entry.label} page of {uncompressed_size} bytes exceeds memory") from exc
    except _LIBRARY_ERRORS as exc:
        raise DecompressionError(f"{entry.label} stream is corrupt ({type(exc).__name__}: {exc})") from exc


def compress(codec: int, data: Buffer, *, level: int | None = None) -> bytes:
    """Compress one page's bytes with ``codec`` (any codec but LZO).

    ``level`` defaults per codec (see the module docstring); passing one to
    a codec without levels (UNCOMPRESSED, SNAPPY) is a ValueError, as in
    pyarrow.
    """
    entry = _usable(codec)
    if level is None:
        level = entry.default_level
    elif entry.levels is None:
        raise ValueError(f"{entry.label} does not support a compression level")
    elif not entry.levels[0] <= level <= entry.levels[1]:
        low, high = entry.levels
        raise ValueError(f"{entry.label} compression level must be in {low}..{high}, not {level}")
    return entry.encode(_byte_view(data), level)
