"""Thrift Compact Protocol I/O for the generated format structs.

Every Parquet metadata structure (footer, page header, column/offset index,
bloom filter header, crypto metadata) is serialized with TCompactProtocol
(File Format: "Metadata"). Decoding goes through the ``thrift`` package's
C extension (fastbinary) when it is importable and falls back to the pure
Python protocol otherwise; both produce the same objects.

Hostile input: string and container lengths are capped at the number of
bytes given, since every string byte and every container element occupies at
least one byte on the wire. A footer therefore never allocates more elements
than it has bytes, and every failure surfaces as a :class:`MetadataError`
naming the structure and the offset it started at.
"""

from __future__ import annotations

from typing import TypeVar

from thrift.protocol import TCompactProtocol
from thrift.transport import TTransport

from parquet_codec.errors import MetadataError

T = TypeVar("T")

try:
    from thrift.protocol import fastbinary as _fastbinary  # noqa: F401

    _ACCELERATED = True
except ImportError:  # pragma: no cover - depends on how thrift was built
    _ACCELERATED = False


def accelerated() -> bool:
    """True when the C-accelerated compact protocol is in use."""
    return _ACCELERATED


def _reader_protocol(transport: TTransport.TMemoryBuffer, limit: int, fallback: bool):
    cls = (
        TCompactProtocol.TCompactProtocolAccelerated
        if _ACCELERATED and not fallback
        else TCompactProtocol.TCompactProtocol
    )
    kwargs = {"string_length_limit": limit, "container_length_limit": limit}
    if cls is TCompactProtocol.TCompactProtocolAccelerated:
        kwargs["fallback"] = False
    return cls(transport, **kwargs)


def deserialize(
    cls: type[T],
    data: bytes | bytearray | memoryview,
    offset: int = 0,
    *,
    end: int | None = None,
    fallback: bool = False,
) -> tuple[T, int]:
    """Decode one ``cls`` struct from ``data[offset:end]``.

    Returns the struct and the number of bytes it occupied. ``fallback``
    forces the pure-Python protocol (used by tests to compare both paths).
    """
    end = len(data) if end is None else end
    if offset < 0 or offset > end or end > len(data):
        raise MetadataError(f"{cls.__name__}: range {offset}..{end} outside a buffer of {len(data)} bytes")
    view = memoryview(data)[offset:end]
    transport = TTransport.TMemoryBuffer(bytes(view))
    protocol = _reader_protocol(transport, max(end - offset, 1), fallback)
    obj = cls()
    try:
        obj.read(protocol)
    except MetadataError:
        raise
    except (Exception, RecursionError) as exc:  # thrift raises many unrelated types on bad input
        raise MetadataError(
            f"cannot parse {cls.__name__}: {type(exc).__name__}: {exc}", file_offset=offset
        ) from None
    return obj, transport._buffer.tell()


def serialize(obj: object) -> bytes:
    """Encode a struct with TCompactProtocol."""
    transport = TTransport.TMemoryBuffer()
    protocol = (
        TCompactProtocol.TCompactProtocolAccelerated(transport, fallback=False)
        if _ACCELERATED
        else TCompactProtocol.TCompactProtocol(transport)
    )
    obj.write(protocol)
    return transport.getvalue()


__all__ = ["accelerated", "deserialize", "serialize"]
