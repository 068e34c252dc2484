"""Structure-aware mutation of valid Parquet files.

Byte flips rarely get past a Thrift footer. :func:`mutate` instead decodes
the footer and the page headers (fuzz.layout), changes one Thrift field -
a size, count, offset, encoding, type, level, codec, repetition type,
num_children - or the decoded bytes of one page (bit widths, dictionary
indices, run headers), re-serializes, and fixes the offsets the change moved.
Inputs it cannot parse get plain byte mutations. Deterministic for a given
``random.Random``; atheris calls it through :func:`custom_mutator`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator

from thrift.Thrift import TType

from fuzz.layout import FileLayout, Page, parse
from parquet_codec import compression
from parquet_codec.format.ttypes import CompressionCodec, PageHeader, PageType

# Fields whose values steer allocation, loops and dispatch: mutated more often.
HOT_FIELDS = frozenset({
    "num_values", "num_rows", "num_nulls", "compressed_page_size", "uncompressed_page_size", "total_compressed_size",
    "total_uncompressed_size", "data_page_offset", "dictionary_page_offset", "encoding", "encodings",
    "definition_level_encoding", "repetition_level_encoding", "definition_levels_byte_length",
    "repetition_levels_byte_length", "is_compressed", "type", "type_length", "repetition_type", "num_children",
    "codec", "converted_type", "scale", "precision", "bitWidth", "isSigned", "file_offset", "crc",
})
_INT_TYPES = {TType.BYTE: 8, TType.I16: 16, TType.I32: 32, TType.I64: 64}


def interesting(value: int | None, bits: int, rng: random.Random) -> int:
    """A value likely to break a bounds check: edges, off-by-ones, small enums, scalings."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    base = value or 0
    choices = [0, 1, -1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256, 65535, lo, hi, hi // 2,
               base + 1, base - 1, base * 2, base // 2, base + rng.randint(-64, 64), rng.randint(lo, hi)]
    return max(lo, min(hi, rng.choice(choices)))


def _fields(obj: object, depth: int = 0) -> Iterator[tuple[object, str, int, tuple]]:
    """Every (struct, field name, thrift type, spec entry) reachable from ``obj``."""
    spec = getattr(obj, "thrift_spec", None)
    if spec is None or depth > 12:
        return
    for entry in spec:
        if entry is None:
            continue
        _, ttype, name = entry[:3]
        value = getattr(obj, name, None)
        yield obj, name, ttype, entry
        if ttype == TType.STRUCT and value is not None:
            yield from _fields(value, depth + 1)
        elif ttype == TType.LIST and value:
            for item in value:
                yield from _fields(item, depth + 1)


def mutate_struct(obj: object, rng: random.Random) -> bool:
    """Change one field of ``obj`` (or of a struct inside it); False when none could change."""
    fields = list(_fields(obj))
    if not fields:
        return False
    weights = [4 if name in HOT_FIELDS else 1 for _, name, _, _ in fields]
    owner, name, ttype, entry = rng.choices(fields, weights)[0]
    value = getattr(owner, name)
    if ttype in _INT_TYPES:
        setattr(owner, name, interesting(value, _INT_TYPES[ttype], rng) if rng.random() < 0.9 else None)
    elif ttype == TType.BOOL:
        setattr(owner, name, rng.choice([True, False, None]))
    elif ttype == TType.STRING:
        setattr(owner, name, _mutate_string(value, entry, rng))
    elif ttype == TType.LIST:
        setattr(owner, name, _mutate_list(value, rng))
    elif ttype == TType.STRUCT:
        setattr(owner, name, None if value is not None else entry[3][0]())
    else:
        return False
    return True


def _mutate_string(value: object, entry: tuple, rng: random.Random) -> object:
    binary = entry[3] == "BINARY"
    raw = (value if isinstance(value, bytes) else str(value or "").encode())
    raw = bytes(flip_bytes(bytearray(raw), rng)) if raw and rng.random() < 0.5 else rng.choice(
        [b"", b"a", b"element", b"key_value", b"list", b"\xff" * 9])
    return raw if binary else raw.decode("utf-8", "replace")


def _mutate_list(value: list | None, rng: random.Random) -> list | None:
    if not value:
        return None if rng.random() < 0.5 else []
    items = list(value)
    choice = rng.randrange(4)
    if choice == 0:
        del items[rng.randrange(len(items))]
    elif choice == 1:
        items.insert(rng.randrange(len(items) + 1), rng.choice(items))
    elif choice == 2:
        rng.shuffle(items)
    else:
        items = items[: rng.randrange(len(items))]
    return items


def flip_bytes(buf: bytearray, rng: random.Random, count: int = 0) -> bytearray:
    """A few byte-level mutations: set to interesting values, xor bits, insert or delete."""
    for _ in range(count or rng.randint(1, 4)):
        if not buf:
            buf.append(rng.randrange(256))
            continue
        i = rng.randrange(len(buf))
        op = rng.randrange(5)
        if op == 0:
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            buf[i] = rng.choice([0, 1, 2, 0x7F, 0x80, 0xFF, 0x20, 0x21, 0x40, 0x41, rng.randrange(256)])
        elif op == 2:
            buf.insert(i, rng.randrange(256))
        elif op == 3 and len(buf) > 1:
            del buf[i]
        else:
            j = rng.randrange(len(buf))
            buf[i], buf[j] = buf[j], buf[i]
    return buf


# -- whole-file mutations ----------------------------------------------------
def _mutate_footer(layout: FileLayout, rng: random.Random) -> bytes | None:
    return layout.build() if mutate_struct(layout.meta, rng) else None


def _mutate_page_header(layout: FileLayout, rng: random.Random) -> bytes | None:
    if not layout.pages:
        return None
    index = rng.randrange(len(layout.pages))
    page = layout.page(index)
    header = page.header
    if not mutate_struct(header, rng):
        return None
    return layout.build({index: (header, page.body)})


# Pages declaring more than this are not decompressed for mutation (the mutator's own memory).
MAX_DECODED_PAGE = 1 << 20


def _decoded_body(page: Page) -> tuple[bytes, bytes] | None:
    """(bytes kept as stored, decompressed bytes) of a page, or None if it will not decompress."""
    h = page.header
    if not 0 <= (h.uncompressed_page_size or 0) <= MAX_DECODED_PAGE:
        return None
    if page.codec == CompressionCodec.UNCOMPRESSED:
        return b"", page.body
    kept = 0
    if h.type == PageType.DATA_PAGE_V2 and h.data_page_header_v2 is not None:
        v2 = h.data_page_header_v2
        kept = (v2.repetition_levels_byte_length or 0) + (v2.definition_levels_byte_length or 0)
        if v2.is_compressed is False:
            return b"", page.body
    try:
        size = (h.uncompressed_page_size or 0) - kept
        return page.body[:kept], bytes(compression.decompress(page.codec, page.body[kept:], size))
    except Exception:  # noqa: BLE001 - a page we cannot take apart is left alone
        return None


def _mutate_page_body(layout: FileLayout, rng: random.Random) -> bytes | None:
    """Mutate a page's decompressed bytes, recompress, and fix its sizes and CRC."""
    if not layout.pages:
        return None
    index = rng.randrange(len(layout.pages))
    page = layout.page(index)
    parts = _decoded_body(page)
    if parts is None:
        return None
    kept, raw = parts
    raw = bytes(flip_bytes(bytearray(raw), rng))
    header: PageHeader = page.header
    stored = raw
    if page.codec != CompressionCodec.UNCOMPRESSED and not (
            header.data_page_header_v2 is not None and header.data_page_header_v2.is_compressed is False):
        try:
            stored = compression.compress(page.codec, raw)
        except Exception:  # noqa: BLE001 - e.g. LZO: leave this page alone
            return None
    body = kept + stored
    header.uncompressed_page_size = len(kept) + len(raw)
    header.compressed_page_size = len(body)
    if header.crc is not None or rng.random() < 0.2:
        crc = zlib.crc32(body)
        header.crc = crc - (1 << 32) if crc >= 1 << 31 else crc
    return layout.build({index: (header, body)})


def _drop_or_repeat_page(layout: FileLayout, rng: random.Random) -> bytes | None:
    if not layout.pages:
        return None
    index = rng.randrange(len(layout.pages))
    page = layout.page(index)
    if rng.random() < 0.5:
        return layout.build({index: (page.header, page.body + serialize_page(page))})
    empty = PageHeader(type=PageType.INDEX_PAGE, uncompressed_page_size=0, compressed_page_size=0)
    return layout.build({index: (empty, b"")})


def serialize_page(page: Page) -> bytes:
    from parquet_codec.thrift_io import serialize

    return serialize(page.header) + page.body


_STRATEGIES = (_mutate_footer, _mutate_page_header, _mutate_page_body, _drop_or_repeat_page)
_WEIGHTS = (4, 4, 4, 1)


def mutate(data: bytes, rng: random.Random, max_size: int | None = None) -> bytes:
    """One structure-aware mutation of ``data`` (byte mutations when it is not a parsable file)."""
    out = mutate_scoped(data, rng)[0]
    return out if max_size is None else out[:max_size]


def mutate_scoped(data: bytes, rng: random.Random, parsed: FileLayout | None = None
                  ) -> tuple[bytes, tuple[int, int] | None]:
    """A mutation and its scope: the (row group, leaf column) whose page changed, or None
    when the change may affect any column (footer fields, byte mutations). ``parsed``
    (``parse(data)``, reused across calls) saves parsing the file again."""
    if rng.random() < 0.9:
        layout = parse(data) if parsed is None else parsed.fresh()
        if layout is not None:
            strategy = rng.choices(_STRATEGIES, _WEIGHTS)[0]
            try:
                out = strategy(layout, rng)
            except Exception:  # noqa: BLE001 - a mutation that cannot be serialized is simply skipped
                out = None
            if out is not None:
                return out, layout.touched
    return bytes(flip_bytes(bytearray(data), rng)), None


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """atheris's custom mutator: structure-aware half of the time, libFuzzer's byte mutations otherwise."""
    rng = random.Random(seed)
    if rng.random() < 0.5:
        import atheris

        return atheris.Mutate(data, max_size)
    return mutate(data, rng, max_size)


__all__ = ["HOT_FIELDS", "custom_mutator", "flip_bytes", "interesting", "mutate", "mutate_scoped", "mutate_struct"]
