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

from io import BytesIO
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
    try:
        return _read_struct(cls, transport, max(end - offset, 1), fallback)
    except (Exception, RecursionError) as exc:  # thrift raises many unrelated types on bad input
        raise MetadataError(
            f"cannot parse {cls.__name__}: {type(exc).__name__}: {exc}", file_offset=offset
        ) from None


def _read_struct(cls: type[T], transport: TTransport.TMemoryBuffer, limit: int, fallback: bool) -> tuple[T, int]:
    """Decode at the transport's position. The C decoder rejects a known field
    id arriving with another wire type, where Thrift's rule is to skip the
    field; such structs are decoded again by the pure-Python protocol."""
    start = transport._buffer.tell()
    obj = cls()
    try:
        obj.read(_reader_protocol(transport, limit, fallback))
    except TypeError as exc:
        if fallback or "wrong ttype" not in str(exc):
            raise
        transport._buffer.seek(start)
        obj = cls()
        obj.read(_reader_protocol(transport, limit, True))
    return obj, transport._buffer.tell()


class WindowDecoder:
    """Decodes small structs (page headers) from a bytes object, reusing one
    transport and protocol: creating those costs several times more than
    decoding a small struct. The bytes are shared, not copied (``BytesIO``
    keeps a reference to a ``bytes`` it is given). Not thread-safe; keep one
    per thread or per buffer."""

    def __init__(self, data: bytes = b"", limit: int | None = None) -> None:
        self._transport = TTransport.TMemoryBuffer(b"")
        self._protocol = _reader_protocol(self._transport, 1, False) if _ACCELERATED else None
        self._limit = limit
        self.reset(data)

    def reset(self, data: bytes) -> None:
        """Decode from ``data`` from now on. String and container lengths are
        capped at its size (and at the ``limit`` given, if any)."""
        self._transport._buffer = BytesIO(data)
        if self._protocol is not None:
            cap = max(len(data), 1) if self._limit is None else max(min(len(data), self._limit), 1)
            self._protocol.string_length_limit = self._protocol.container_length_limit = cap

    def decode_at(self, cls: type[T], pos: int) -> tuple[T, int] | None:
        """``cls`` decoded at ``pos`` of the current bytes and the bytes it took;
        None when that fails for any reason (the caller then uses
        :func:`deserialize`, which reports the failure or decodes what the C
        decoder refuses)."""
        protocol = self._protocol
        if protocol is None:
            return None
        buffer = self._transport._buffer
        obj = cls()
        try:
            buffer.seek(pos)
            protocol._fast_decode(obj, protocol, [cls, cls.thrift_spec])
        except (Exception, RecursionError):
            return None
        return obj, buffer.tell() - pos

    def decode(self, cls: type[T], window: bytes) -> tuple[T, int] | None:
        """``cls`` decoded from the start of ``window``, as :meth:`decode_at` does."""
        self.reset(window)
        return self.decode_at(cls, 0)


class StructReader:
    """Decodes structs at arbitrary positions of one buffer without copying it per call.

    Used for lazy footers: the file-level fields are decoded first and each
    row group only when it is needed. ``skip`` measures a struct by letting
    the C decoder walk it with every field unknown, which is an order of
    magnitude faster than building its objects.
    """

    def __init__(self, data: bytes | bytearray | memoryview, base_offset: int = 0) -> None:
        self._data = bytes(data)
        self.base_offset = base_offset
        self._transport = TTransport.TMemoryBuffer(self._data)
        self._protocol = _reader_protocol(self._transport, max(len(self._data), 1), False)

    def __len__(self) -> int:
        return len(self._data)

    def read(self, cls: type[T], pos: int, *, skip: tuple[str, ...] = ()) -> tuple[T, int]:
        """Decode ``cls`` at ``pos``; fields named in ``skip`` are left unset."""
        spec = _projected_spec(cls, skip) if skip else cls.thrift_spec
        return self._decode(cls, pos, spec)

    def skip(self, cls: type, pos: int) -> int:
        """The position just after the ``cls`` struct that starts at ``pos``."""
        return self._decode(cls, pos, _empty_spec(cls))[1]

    def _decode(self, cls: type[T], pos: int, spec: tuple) -> tuple[T, int]:
        if not 0 <= pos <= len(self._data):
            raise MetadataError(f"{cls.__name__} at {pos} lies outside {len(self._data)} bytes of metadata")
        buffer = self._transport._buffer
        buffer.seek(pos)
        obj = cls()
        try:
            if not _ACCELERATED:  # the pure-Python protocol has no projection: decode everything
                return _read_struct(cls, self._transport, len(self._data), True)
            try:
                self._protocol._fast_decode(obj, self._protocol, [cls, spec])
            except TypeError as exc:
                if "wrong ttype" not in str(exc):
                    raise
                buffer.seek(pos)
                return _read_struct(cls, self._transport, len(self._data), True)
        except (Exception, RecursionError) as exc:
            raise MetadataError(
                f"cannot parse {cls.__name__}: {type(exc).__name__}: {exc}", file_offset=self.base_offset + pos
            ) from None
        return obj, buffer.tell()

    def list_field_starts(self, cls: type, field: str, element: type, pos: int = 0) -> list[int]:
        """Start positions of the elements of the ``list<element>`` field named
        ``field`` of the ``cls`` struct at ``pos``, walking only the struct's
        top-level fields (each skipped without decoding). A field that occurs
        more than once counts as its last occurrence, as Thrift's decoders
        (and so this package for every other field) take it."""
        wanted = next((e[0] for e in cls.thrift_spec if e is not None and e[2] == field), None)
        if wanted is None:
            raise ValueError(f"{cls.__name__} has no field {field!r}")
        data, field_id, starts = self._data, 0, None
        while True:
            if pos >= len(data):
                raise MetadataError(f"{cls.__name__} runs past the end of its bytes", file_offset=self.base_offset + pos)
            header = data[pos]
            pos += 1
            wire = header & 0x0F
            if wire == _STOP:
                if starts is None:
                    raise MetadataError(f"{cls.__name__} has no {field} field", file_offset=self.base_offset + pos)
                return starts
            if header >> 4:
                field_id += header >> 4
            else:
                raw, pos = _read_varint(data, pos, self.base_offset)
                field_id = (raw >> 1) ^ -(raw & 1)
            if field_id == wanted and wire == _LIST:
                pos, starts = self.list_elements(element, pos)
            else:
                pos = self._skip(wire, pos, 0)

    def _skip(self, wire: int, pos: int, depth: int) -> int:
        """Skip one compact-protocol value (pure Python, for a struct's few top-level fields)."""
        data, base = self._data, self.base_offset
        if depth > _MAX_SKIP_DEPTH or pos > len(data):
            raise MetadataError("metadata nested too deeply or truncated", file_offset=base + pos)
        if wire in (_BOOL_TRUE, _BOOL_FALSE):
            return pos
        if wire in _FIXED_SIZES:
            return pos + _FIXED_SIZES[wire]
        if wire in (_I16, _I32, _I64):
            return _read_varint(data, pos, base)[1]
        if wire == _BINARY:
            length, pos = _read_varint(data, pos, base)
            return pos + length
        if wire in (_LIST, _SET):
            return self._skip_list(pos, depth)
        if wire == _STRUCT:
            return self._skip_struct(pos, depth)
        if wire == _MAP:
            size, pos = _read_varint(data, pos, base)
            if size == 0:
                return pos
            if size > len(data) - pos or pos >= len(data):
                raise MetadataError("map longer than its bytes", file_offset=base + pos)
            kinds, pos = data[pos], pos + 1
            for _ in range(size):
                pos = self._skip(kinds & 0x0F, self._skip(kinds >> 4, pos, depth + 1), depth + 1)
            return pos
        raise MetadataError(f"unknown compact-protocol type {wire}", file_offset=base + pos)

    def _skip_list(self, pos: int, depth: int) -> int:
        data, base = self._data, self.base_offset
        if pos >= len(data):
            raise MetadataError("list header runs past the end", file_offset=base + pos)
        header = data[pos]
        size, pos = header >> 4, pos + 1
        if size == 15:
            size, pos = _read_varint(data, pos, base)
        if size > len(data) - pos:
            raise MetadataError("list longer than its bytes", file_offset=base + pos)
        element = header & 0x0F
        if element in (_BOOL_TRUE, _BOOL_FALSE):  # list booleans take one byte each
            return pos + size
        if element == _STRUCT and _ACCELERATED:
            return self._skip_structs(pos, size)
        for _ in range(size):
            pos = self._skip(element, pos, depth + 1)
        return pos

    def _skip_structs(self, pos: int, count: int) -> int:
        """Skip ``count`` consecutive structs with the C decoder: a footer's
        schema and column orders hold one struct per column."""
        buffer, protocol, spec = self._transport._buffer, self._protocol, [_Opaque, _Opaque.thrift_spec]
        buffer.seek(pos)
        try:
            for _ in range(count):
                protocol._fast_decode(_Opaque(), protocol, spec)
        except (Exception, RecursionError) as exc:
            raise MetadataError(f"cannot skip a struct: {type(exc).__name__}: {exc}",
                                file_offset=self.base_offset + pos) from None
        return buffer.tell()

    def _skip_struct(self, pos: int, depth: int) -> int:
        data = self._data
        while True:
            if pos >= len(data):
                raise MetadataError("struct runs past the end", file_offset=self.base_offset + pos)
            header = data[pos]
            pos += 1
            if header == _STOP:
                return pos
            if not header >> 4:
                pos = _read_varint(data, pos, self.base_offset)[1]
            pos = self._skip(header & 0x0F, pos, depth + 1)

    def list_elements(self, cls: type, pos: int) -> tuple[int, list[int]]:
        """Element start positions of a compact-protocol ``list<cls>`` at ``pos``, and its end."""
        data = self._data
        if pos >= len(data):
            raise MetadataError("list header runs past the end of the metadata", file_offset=self.base_offset + pos)
        header = data[pos]
        size, pos = header >> 4, pos + 1
        if size == 15:
            size, pos = _read_varint(data, pos, self.base_offset)
        # An empty list's element type says nothing: fastparquet writes an
        # empty row-group list with type 0, which Thrift's own readers accept.
        if size and header & 0x0F != _STRUCT:
            raise MetadataError(f"expected a list of {cls.__name__} structs", file_offset=self.base_offset + pos)
        if size > len(data) - pos:
            raise MetadataError(f"list of {size} {cls.__name__} in {len(data) - pos} bytes",
                                file_offset=self.base_offset + pos)
        starts = []
        for _ in range(size):
            starts.append(pos)
            pos = self.skip(cls, pos)
        return pos, starts


class _Opaque:
    """A struct with no known fields, which the C decoder walks without keeping anything."""

    __slots__ = ()
    thrift_spec = (None,)


# Compact-protocol wire types (Thrift compact protocol specification).
_STOP = 0
_BOOL_TRUE, _BOOL_FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_FIXED_SIZES = {_BYTE: 1, _DOUBLE: 8}
_MAX_SKIP_DEPTH = 64


def _read_varint(data: bytes, pos: int, base: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise MetadataError("malformed varint in metadata", file_offset=base + pos)
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return result, pos


_SPECS: dict[tuple[type, tuple[str, ...]], tuple] = {}


def _empty_spec(cls: type) -> tuple:
    return _projected_spec(cls, tuple(e[2] for e in cls.thrift_spec if e is not None))


def _projected_spec(cls: type, skip: tuple[str, ...]) -> tuple:
    key = (cls, skip)
    spec = _SPECS.get(key)
    if spec is None:
        spec = tuple(None if e is not None and e[2] in skip else e for e in cls.thrift_spec)
        _SPECS[key] = spec
    return spec


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


__all__ = ["StructReader", "WindowDecoder", "accelerated", "deserialize", "serialize"]
