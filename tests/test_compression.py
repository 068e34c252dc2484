"""Tests of parquet_codec.compression: round trips, cross-checks, hostile input."""

from __future__ import annotations

import gzip
import io
import os
import struct
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import brotli
import cramjam
import lz4.block
import lz4.frame
import numpy as np
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_codec.compression import MAX_PAGE_SIZE, codec_from_name, codec_name, compress, decompress
from parquet_codec.errors import DecompressionError, UnsupportedError
from parquet_codec.format.ttypes import CompressionCodec as CC

CODECS = [CC.UNCOMPRESSED, CC.SNAPPY, CC.GZIP, CC.BROTLI, CC.LZ4, CC.ZSTD, CC.LZ4_RAW]
COMPRESSING = [c for c in CODECS if c != CC.UNCOMPRESSED]
# pyarrow.Codec names for the codecs pyarrow can run on bare buffers.
ARROW_NAMES = {
    CC.SNAPPY: "snappy",
    CC.GZIP: "gzip",
    CC.BROTLI: "brotli",
    CC.ZSTD: "zstd",
    CC.LZ4_RAW: "lz4_raw",
}
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "parquet-testing" / "data"

MiB = 1 << 20


def column_like(n_values: int, seed: int = 0) -> bytes:
    """int64 values as a column holds them: a slowly growing series plus noise."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.integers(0, 1000, n_values)).astype(np.int64).tobytes()


payloads = st.one_of(
    st.binary(max_size=3000),
    st.builds(lambda unit, n: unit * n, st.binary(min_size=1, max_size=40), st.integers(1, 3000)),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=400).map(lambda v: np.array(v, np.int64).tobytes()),
)
codecs = st.sampled_from(CODECS)
fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def hadoop_frame(*blocks: list[bytes]) -> bytes:
    """Hadoop LZ4 framing built by hand: each block is a list of raw chunks."""
    out = bytearray()
    for chunks in blocks:
        out += struct.pack(">I", sum(len(c) for c in chunks))
        for chunk in chunks:
            raw = lz4.block.compress(chunk, store_size=False)
            out += struct.pack(">I", len(raw)) + raw
    return bytes(out)


# ---------------------------------------------------------------- round trips


@fast
@given(data=payloads, codec=codecs)
def test_round_trip(data: bytes, codec: int) -> None:
    packed = compress(codec, data)
    assert isinstance(packed, bytes)
    assert bytes(decompress(codec, packed, len(data))) == data
    out = bytearray(len(data))
    view = decompress(codec, packed, len(data), out=out)
    assert out == data
    assert bytes(view) == data


@fast
@given(data=payloads, codec=st.sampled_from([c for c in COMPRESSING if c != CC.SNAPPY]), pick=st.data())
def test_round_trip_at_every_level(data: bytes, codec: int, pick: st.DataObject) -> None:
    high = {CC.GZIP: 9, CC.BROTLI: 11, CC.ZSTD: 22, CC.LZ4: 12, CC.LZ4_RAW: 12}[codec]
    low = {CC.GZIP: 0, CC.BROTLI: 0, CC.ZSTD: -5}.get(codec, 1)
    level = pick.draw(st.integers(low, min(high, 9)))
    assert bytes(decompress(codec, compress(codec, data, level=level), len(data))) == data


@pytest.mark.parametrize("codec", CODECS)
def test_empty(codec: int) -> None:
    assert bytes(decompress(codec, compress(codec, b""), 0)) == b""
    assert decompress(codec, b"", 0) == b""
    assert len(decompress(codec, b"", 0, out=bytearray())) == 0


@pytest.mark.parametrize("codec", CODECS)
def test_large(codec: int) -> None:
    data = column_like(MiB // 2) + os.urandom(MiB) + bytes(MiB)  # 6 MiB
    packed = compress(codec, data)
    assert bytes(decompress(codec, packed, len(data))) == data
    out = np.zeros(len(data) // 8, np.int64)
    decompress(codec, packed, len(data), out=memoryview(out))
    assert out.tobytes() == data


def test_default_levels_match_the_documented_ones() -> None:
    data = column_like(50_000)
    assert compress(CC.GZIP, data) == compress(CC.GZIP, data, level=6)
    assert compress(CC.ZSTD, data) == compress(CC.ZSTD, data, level=1)
    assert compress(CC.BROTLI, data) == compress(CC.BROTLI, data, level=8)
    assert compress(CC.LZ4_RAW, data) == lz4.block.compress(data, store_size=False)


# ---------------------------------------------------------------- out=


@pytest.mark.parametrize("codec", CODECS)
def test_out_returns_a_view_of_out(codec: int) -> None:
    data = column_like(20_000)
    out = bytearray(len(data))
    view = decompress(codec, compress(codec, data), len(data), out=out)
    assert isinstance(view, memoryview)
    view[0] ^= 0xFF  # writing through the view changes out: no copy in between
    assert out[0] == data[0] ^ 0xFF


@pytest.mark.parametrize("codec", CODECS)
def test_out_must_fit_and_be_writable(codec: int) -> None:
    data = b"abc" * 100
    packed = compress(codec, data)
    with pytest.raises(ValueError):
        decompress(codec, packed, len(data), out=bytearray(len(data) + 1))
    with pytest.raises(ValueError):
        decompress(codec, packed, len(data), out=memoryview(bytes(len(data))))
    with pytest.raises(ValueError):
        decompress(codec, packed, len(data), out=memoryview(bytearray(2 * len(data)))[::2])


# ---------------------------------------------------------------- cross-checks with pyarrow


@settings(max_examples=40, deadline=None)
@given(data=payloads, codec=st.sampled_from(sorted(ARROW_NAMES)))
def test_matches_pyarrow_both_ways(data: bytes, codec: int) -> None:
    pa = pytest.importorskip("pyarrow")
    name = ARROW_NAMES[codec]
    theirs = pa.compress(data, codec=name, asbytes=True)
    assert bytes(decompress(codec, theirs, len(data))) == data
    ours = compress(codec, data)
    assert pa.decompress(ours, decompressed_size=len(data), codec=name, asbytes=True) == data


@pytest.mark.parametrize("codec", sorted(ARROW_NAMES))
def test_matches_pyarrow_on_large_pages(codec: int) -> None:
    pa = pytest.importorskip("pyarrow")
    data = column_like(MiB // 4, seed=codec)
    name = ARROW_NAMES[codec]
    # pyarrow's gzip level 9 is slow; the level does not matter to the reader.
    arrow_codec = pa.Codec(name, compression_level=6) if codec == CC.GZIP else pa.Codec(name)
    theirs = arrow_codec.compress(data, asbytes=True)
    assert bytes(decompress(codec, theirs, len(data), out=bytearray(len(data)))) == data
    ours = compress(codec, data)
    assert pa.decompress(ours, decompressed_size=len(data), codec=name, asbytes=True) == data


def _pages(buf: bytes, chunk):  # -> iterator of (header, header bytes length, payload offset)
    from thrift.protocol.TCompactProtocol import TCompactProtocol
    from thrift.transport.TTransport import TMemoryBuffer

    from parquet_codec.format.ttypes import PageHeader

    meta = chunk.meta_data
    pos = meta.dictionary_page_offset or meta.data_page_offset
    end = pos + meta.total_compressed_size
    while pos < end:
        transport = TMemoryBuffer(buf[pos:end])
        header = PageHeader()
        header.read(TCompactProtocol(transport))
        start = pos + transport._buffer.tell()
        yield header, start
        pos = start + header.compressed_page_size


def _serialize(struct_obj) -> bytes:
    from thrift.protocol.TCompactProtocol import TCompactProtocol
    from thrift.transport.TTransport import TMemoryBuffer

    transport = TMemoryBuffer()
    struct_obj.write(TCompactProtocol(transport))
    return transport.getvalue()


def transcode(buf: bytes, codec: int) -> bytes:
    """Rewrite a Parquet file's pages to `codec`, decompressing and compressing with ours.

    pyarrow then reads the result: this checks our decompressor against real
    writers and our compressor against a real reader, page framing included.
    """
    from thrift.protocol.TCompactProtocol import TCompactProtocol
    from thrift.transport.TTransport import TMemoryBuffer

    from parquet_codec.format.ttypes import FileMetaData, PageType

    (footer_len,) = struct.unpack("<I", buf[-8:-4])
    meta = FileMetaData()
    meta.read(TCompactProtocol(TMemoryBuffer(buf[-8 - footer_len : -8])))
    out = bytearray(b"PAR1")
    for group in meta.row_groups:
        group_start = len(out)
        for chunk in group.columns:
            col, start, pages = chunk.meta_data, len(out), list(_pages(buf, chunk))
            col.dictionary_page_offset = col.data_page_offset = None
            uncompressed = 0
            for header, at in pages:
                payload = buf[at : at + header.compressed_page_size]
                keep = b""
                v2 = header.data_page_header_v2
                if v2 is not None:  # v2 levels are never compressed
                    n_levels = v2.definition_levels_byte_length + v2.repetition_levels_byte_length
                    keep, payload = payload[:n_levels], payload[n_levels:]
                raw_size = header.uncompressed_page_size - len(keep)
                compressed = v2 is None or v2.is_compressed is not False
                raw = bytes(decompress(col.codec, payload, raw_size)) if compressed else payload
                if v2 is not None:
                    v2.is_compressed = True
                body = keep + compress(codec, raw)
                header.compressed_page_size = len(body)
                header.crc = None
                if header.type == PageType.DICTIONARY_PAGE:
                    col.dictionary_page_offset = len(out)
                elif col.data_page_offset is None:
                    col.data_page_offset = len(out)
                encoded = _serialize(header)
                uncompressed += len(encoded) + header.uncompressed_page_size
                out += encoded + body
            col.codec = codec
            col.total_compressed_size = len(out) - start
            col.total_uncompressed_size = uncompressed
            col.bloom_filter_offset = col.bloom_filter_length = None
            chunk.file_offset = start
            chunk.offset_index_offset = chunk.offset_index_length = None
            chunk.column_index_offset = chunk.column_index_length = None
        group.file_offset = group_start
        group.total_compressed_size = len(out) - group_start
    footer = _serialize(meta)
    return bytes(out + footer + struct.pack("<I", len(footer)) + b"PAR1")


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_pyarrow_reads_pages_we_compress(codec: int, version: str) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(1)
    table = pa.table(
        {
            "ints": np.cumsum(rng.integers(0, 100, 300_000)),
            "strs": pa.array([None if i % 7 == 0 else f"s{i % 500}" for i in range(300_000)]),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="NONE", data_page_size=MiB, data_page_version=version)
    rewritten = transcode(sink.getvalue(), codec)
    assert pq.read_table(io.BytesIO(rewritten)).equals(table)


CORPUS_FILES = [
    "alltypes_plain.snappy.parquet",
    "byte_stream_split.zstd.parquet",
    "byte_stream_split_extended.gzip.parquet",
    "concatenated_gzip_members.parquet",
    "data_index_bloom_encoding_stats.parquet",
    "datapage_v1-snappy-compressed-checksum.parquet",
    "datapage_v2.snappy.parquet",
    "datapage_v2_empty_datapage.snappy.parquet",
    "delta_length_byte_array.parquet",
    "hadoop_lz4_compressed.parquet",
    "hadoop_lz4_compressed_larger.parquet",
    "list_columns.parquet",
    "lz4_raw_compressed.parquet",
    "lz4_raw_compressed_larger.parquet",
    "nested_structs.rust.parquet",
    "non_hadoop_lz4_compressed.parquet",
    "page_v2_empty_compressed.parquet",
    "rle_boolean_encoding.parquet",
]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_pages_decompress_like_pyarrow(name: str) -> None:
    """Pages written by parquet-java, parquet-cpp, Hadoop, Rust...: uncompressed by us, read by pyarrow."""
    pq = pytest.importorskip("pyarrow.parquet")
    path = CORPUS / name
    if not path.exists():
        pytest.skip("the parquet-testing corpus is not present")
    original = path.read_bytes()
    rewritten = transcode(original, CC.UNCOMPRESSED)
    assert pq.read_table(io.BytesIO(rewritten)).equals(pq.read_table(io.BytesIO(original)))


# ---------------------------------------------------------------- LZ4 (id 5) forms


def test_hadoop_framing_with_several_blocks_and_chunks() -> None:
    parts = [column_like(5000, seed=i) for i in range(5)]
    data = b"".join(parts)
    framed = hadoop_frame([parts[0]], [parts[1], parts[2], parts[3]], [parts[4]])
    assert bytes(decompress(CC.LZ4, framed, len(data))) == data
    out = bytearray(len(data))
    decompress(CC.LZ4, framed, len(data), out=out)
    assert out == data


def test_hadoop_framing_we_write() -> None:
    data = column_like(100_000)  # 800 kB: seven blocks
    framed = compress(CC.LZ4, data)
    pos, sizes = 0, []
    while pos < len(framed):
        block_len, chunk_len = struct.unpack_from(">II", framed, pos)
        sizes.append(block_len)
        chunk = lz4.block.decompress(framed[pos + 8 : pos + 8 + chunk_len], uncompressed_size=block_len)
        assert chunk == data[sum(sizes[:-1]) : sum(sizes)]
        pos += 8 + chunk_len
    assert sum(sizes) == len(data)
    assert max(sizes) == 128 * 1024  # within Hadoop's 256 KiB decompressor buffer
    empty = compress(CC.LZ4, b"")
    assert struct.unpack_from(">I", empty)[0] == 0 and len(empty) > 8


@pytest.mark.parametrize("size", [0, 1, 17, 70_000])
def test_lz4_id5_falls_back_to_raw_block_then_frame(size: int) -> None:
    data = column_like(size // 8 + 1)[:size]
    for payload in (lz4.block.compress(data, store_size=False), lz4.frame.compress(data)):
        assert bytes(decompress(CC.LZ4, payload, size)) == data
        assert bytes(decompress(CC.LZ4, payload, size, out=bytearray(size))) == data


def test_lz4_id5_names_every_form_it_tried() -> None:
    with pytest.raises(DecompressionError, match="Hadoop.*raw LZ4 block.*LZ4 frame"):
        decompress(CC.LZ4, b"\x00\x00\x00\x10\x00\x00\x00\x02ab", 16)


def test_hadoop_block_overrunning_the_page_is_rejected() -> None:
    framed = hadoop_frame([b"x" * 100])
    with pytest.raises(DecompressionError):
        decompress(CC.LZ4, framed, 99)
    with pytest.raises(DecompressionError):
        decompress(CC.LZ4, framed + b"\x00\x00\x00", 100)


# ---------------------------------------------------------------- GZIP


def test_gzip_multi_member() -> None:
    a, b, c = b"first " * 100, column_like(3000), b""
    payload = gzip.compress(a) + gzip.compress(b, 1) + gzip.compress(c)
    assert bytes(decompress(CC.GZIP, payload, len(a + b))) == a + b
    out = bytearray(len(a + b))
    decompress(CC.GZIP, payload, len(out), out=out)
    assert out == a + b


def test_gzip_accepts_zlib_members() -> None:
    data = b"zlib wrapped " * 50
    assert bytes(decompress(CC.GZIP, zlib.compress(data), len(data))) == data
    assert bytes(decompress(CC.GZIP, gzip.compress(data) + zlib.compress(data), 2 * len(data))) == data * 2


def test_we_write_one_gzip_member() -> None:
    data = column_like(10_000)
    packed = compress(CC.GZIP, data)
    assert packed[:2] == b"\x1f\x8b"
    member = zlib.decompressobj(31)
    assert member.decompress(packed) == data and member.eof and not member.unused_data


# ---------------------------------------------------------------- sizes and corruption


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("delta", [-1, 1, 1000])
def test_wrong_declared_size(codec: int, delta: int) -> None:
    data = column_like(1000)
    with pytest.raises(DecompressionError, match=r"\d"):
        decompress(codec, compress(codec, data), len(data) + delta)


@pytest.mark.parametrize("codec", CODECS)
def test_invalid_declared_sizes(codec: int) -> None:
    with pytest.raises(DecompressionError, match="invalid size"):
        decompress(codec, b"abc", -1)
    with pytest.raises(DecompressionError, match="invalid size"):
        decompress(codec, b"abc", MAX_PAGE_SIZE + 1)
    with pytest.raises(DecompressionError, match="empty"):
        decompress(codec, b"", 10)


@pytest.mark.parametrize("codec", COMPRESSING)
def test_truncated_and_garbage_streams(codec: int) -> None:
    data = column_like(20_000)
    packed = compress(codec, data)
    for broken in (packed[: len(packed) // 2], packed[:-1], packed[:1], b"\xff" * 64):
        with pytest.raises(DecompressionError):
            decompress(codec, broken, len(data))
        with pytest.raises(DecompressionError):
            decompress(codec, broken, len(data), out=bytearray(len(data)))


@pytest.mark.parametrize(("header", "message"), [
    (b"\xff" * 6, "malformed length header"),  # a varint of more than 5 bytes
    (b"\xff\xff\xff\xff\x7f", "header declares 34359738367 bytes"),  # past what cramjam accepts
    (b"\x0a", "header declares 10 bytes, but the page declares 20"),
])
def test_snappy_length_headers_are_named(header: bytes, message: str) -> None:
    with pytest.raises(DecompressionError, match=message):
        decompress(CC.SNAPPY, header + b"\x00" * 8, 20)


@pytest.mark.parametrize("codec", [CC.GZIP, CC.BROTLI, CC.ZSTD])
def test_trailing_garbage_is_rejected(codec: int) -> None:
    data = b"payload" * 100
    with pytest.raises(DecompressionError):
        decompress(codec, compress(codec, data) + b"junk", len(data))


def test_zstd_reads_concatenated_frames() -> None:
    a, b = b"one" * 1000, column_like(2000)
    payload = compress(CC.ZSTD, a) + zstandard.ZstdCompressor(write_content_size=False).compress(b)
    assert bytes(decompress(CC.ZSTD, payload, len(a + b))) == a + b


@settings(max_examples=300, deadline=None)
@given(data=payloads, codec=codecs, pick=st.data())
def test_mangled_streams_raise_only_decompression_error(data: bytes, codec: int, pick: st.DataObject) -> None:
    blob = bytearray(compress(codec, data))
    kind = pick.draw(st.sampled_from(["cut", "flip", "insert", "append", "size"]))
    size = len(data)
    if kind == "cut" and blob:
        del blob[pick.draw(st.integers(0, len(blob) - 1)) :]
    elif kind == "flip" and blob:
        blob[pick.draw(st.integers(0, len(blob) - 1))] ^= pick.draw(st.integers(1, 255))
    elif kind == "insert":
        at = pick.draw(st.integers(0, len(blob)))
        blob[at:at] = pick.draw(st.binary(min_size=1, max_size=8))
    elif kind == "append":
        blob += pick.draw(st.binary(min_size=1, max_size=8))
    else:
        size = pick.draw(st.integers(0, 2 * size + 10))
    try:
        result = decompress(codec, bytes(blob), size)
    except DecompressionError:
        return
    assert len(result) == size


@settings(max_examples=200, deadline=None)
@given(blob=st.binary(max_size=200), codec=codecs, size=st.integers(0, 5000))
def test_random_bytes_raise_only_decompression_error(blob: bytes, codec: int, size: int) -> None:
    try:
        result = decompress(codec, blob, size, out=bytearray(size))
    except DecompressionError:
        return
    assert len(result) == size


# ---------------------------------------------------------------- bombs


def _bomb(codec: int) -> bytes:
    zeros = bytes(MiB)
    if codec == CC.GZIP:  # 100 concatenated 1 MiB members
        return gzip.compress(zeros, 1) * 100
    if codec == CC.ZSTD:  # 100 frames, each without a content size to give it away
        return zstandard.ZstdCompressor(write_content_size=False).compress(zeros) * 100
    if codec == CC.SNAPPY:  # a stream whose header lies: it claims 1 KiB
        stream = bytes(cramjam.snappy.compress_raw(bytes(100 * MiB)))
        header_len = next(i for i, byte in enumerate(stream) if not byte & 0x80) + 1
        return b"\x80\x08" + stream[header_len:]
    if codec == CC.LZ4:  # a Hadoop block that claims 1 KiB but holds 100 MiB
        raw = lz4.block.compress(bytes(100 * MiB), store_size=False)
        return struct.pack(">II", 1024, len(raw)) + raw
    if codec == CC.LZ4_RAW:
        return lz4.block.compress(bytes(100 * MiB), store_size=False)
    return brotli.compress(bytes(100 * MiB), quality=1)


@pytest.mark.parametrize("codec", COMPRESSING)
def test_decompression_bomb_is_stopped_early(codec: int) -> None:
    bomb = _bomb(codec)
    for out in (None, bytearray(1024)):
        tracemalloc.start()
        started = time.perf_counter()
        try:
            with pytest.raises(DecompressionError):
                decompress(codec, bomb, 1024, out=out)
            elapsed = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 4 * MiB, peak
        assert elapsed < 1.0, elapsed


@pytest.mark.parametrize(
    ("codec", "payload"),
    [
        (CC.SNAPPY, b"\x80\x80\x80\x80\x04"),  # a bare header claiming 1 GiB
        (CC.LZ4, lz4.block.compress(b"tiny" * 4, store_size=False)),
        (CC.LZ4_RAW, lz4.block.compress(b"tiny" * 4, store_size=False)),
    ],
)
def test_impossible_declared_size_is_refused_before_allocating(codec: int, payload: bytes) -> None:
    with pytest.raises(DecompressionError, match="cannot hold"):
        decompress(codec, payload, 2**30)


# ---------------------------------------------------------------- unsupported codecs and names


@pytest.mark.parametrize("codec", [CC.LZO, 8, -1, 99])
def test_lzo_and_unknown_ids(codec: int) -> None:
    expected = "LZO compression is not supported" if codec == CC.LZO else f"id {codec}"
    with pytest.raises(UnsupportedError, match=expected):
        decompress(codec, b"abc", 3)
    with pytest.raises(UnsupportedError, match=expected):
        compress(codec, b"abc")


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("none", CC.UNCOMPRESSED),
        ("UNCOMPRESSED", CC.UNCOMPRESSED),
        ("snappy", CC.SNAPPY),
        ("Gzip", CC.GZIP),
        ("brotli", CC.BROTLI),
        ("ZSTD", CC.ZSTD),
        ("lz4", CC.LZ4_RAW),
        ("lz4_raw", CC.LZ4_RAW),
        ("LZ4_HADOOP", CC.LZ4),
        ("lzo", CC.LZO),
    ],
)
def test_codec_from_name(name: str, codec: int) -> None:
    assert codec_from_name(name) == codec


def test_codec_names_round_trip() -> None:
    for codec in [*CODECS, CC.LZO]:
        assert codec_from_name(codec_name(codec)) == codec
    assert codec_name(CC.LZ4) == "lz4_hadoop"
    with pytest.raises(ValueError, match="bz2"):
        codec_from_name("bz2")
    with pytest.raises(UnsupportedError):
        codec_name(42)


@pytest.mark.parametrize("codec", [CC.UNCOMPRESSED, CC.SNAPPY])
def test_level_on_a_codec_without_levels(codec: int) -> None:
    with pytest.raises(ValueError, match="level"):
        compress(codec, b"abc", level=3)


@pytest.mark.parametrize(("codec", "level"), [(CC.GZIP, 10), (CC.BROTLI, 12), (CC.ZSTD, 23), (CC.LZ4_RAW, 0)])
def test_level_out_of_range(codec: int, level: int) -> None:
    with pytest.raises(ValueError, match="level"):
        compress(codec, b"abc", level=level)


def test_threads_share_nothing_mutable() -> None:
    pages = [column_like(20_000, seed=i) for i in range(8)]
    packed = [compress(CC.ZSTD, p) for p in pages]
    failures = []

    def work(i: int) -> None:
        for _ in range(30):
            if bytes(decompress(CC.ZSTD, packed[i], len(pages[i]))) != pages[i]:
                failures.append(i)
            level = 3 + i % 2
            if compress(CC.ZSTD, pages[i], level=level) != zstandard.ZstdCompressor(level=level).compress(
                pages[i]
            ):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
