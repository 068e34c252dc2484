"""A minimal FlatBuffers reader and builder, enough for Arrow's IPC metadata.

Arrow serializes its schema with FlatBuffers (Arrow columnar format spec,
"Serialization and Interprocess Communication"; Schema.fbs, Message.fbs).
Wire facts used here, from the FlatBuffers binary format:

* all scalars are little-endian; a buffer starts with a ``uoffset`` (u32) to
  its root table;
* a ``uoffset`` is relative to where it is stored and always points forward;
* a table starts with an ``soffset`` (i32): ``vtable = table - soffset``;
  the vtable holds u16 ``vtable size``, u16 ``table inline size`` and one u16
  per field slot (offset of the field inside the table, 0 when absent);
* strings and vectors are a u32 count followed by the bytes/elements (strings
  end with a NUL that is not counted); a vector of tables holds uoffsets;
* a union occupies two slots: a u8 type id, then a uoffset to the table.

Hostile input: :class:`Reader` checks every position and length against the
buffer before reading, rejects zero offsets (the only way a forward-pointing
offset can form a cycle), limits table nesting depth, and charges every table
visit and payload byte to a budget proportional to the buffer size, so shared
offsets cannot make decoding explode. All failures are :class:`MetadataError`
naming the byte offset.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping

from parquet_codec.errors import MetadataError

#: Default limit of nested tables (Message -> Schema -> Field -> ... ).
MAX_DEPTH = 128

_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")


class Reader:
    """Bounds-checked access to one flatbuffer inside ``data[start:end]``.

    Positions are absolute indexes into ``data`` so that error messages name
    the offset within the whole message, not within the flatbuffer.
    """

    def __init__(
        self, data: bytes, start: int = 0, end: int | None = None, *, max_depth: int = MAX_DEPTH
    ) -> None:
        self.data = bytes(data)
        self.end = len(self.data) if end is None else end
        self.start = start
        if not 0 <= start <= self.end <= len(self.data):
            raise MetadataError(
                f"flatbuffer bounds {start}..{end} lie outside the {len(self.data)} byte buffer"
            )
        self.max_depth = max_depth
        size = self.end - self.start
        # Every distinct table needs at least its 4-byte soffset, and a
        # well-formed buffer reads each payload byte about once; anything far
        # beyond that means offsets are shared to multiply the work.
        self._tables_left = size // 4 + 16
        self._bytes_left = 16 * size + 4096

    def _check(self, pos: int, size: int, what: str) -> None:
        if pos < self.start or pos + size > self.end:
            raise MetadataError(
                f"{what} at byte offset {pos} ({size} bytes) lies outside the flatbuffer "
                f"(bytes {self.start}..{self.end})"
            )

    def scalar(self, fmt: str, pos: int, what: str = "scalar") -> int | float | bool:
        """The little-endian scalar of struct format ``fmt`` at ``pos``."""
        s = struct.Struct("<" + fmt)
        self._check(pos, s.size, what)
        return s.unpack_from(self.data, pos)[0]

    def uoffset(self, pos: int, what: str = "offset") -> int:
        """Follow the uoffset stored at ``pos``; the target position."""
        self._check(pos, 4, what)
        off = _U32.unpack_from(self.data, pos)[0]
        if off == 0:
            # 0 would make the object start at its own offset field: a cycle.
            raise MetadataError(f"{what} at byte offset {pos} is zero (points at itself)")
        target = pos + off
        if target >= self.end:
            raise MetadataError(f"{what} at byte offset {pos} points to {target}, past the end ({self.end})")
        return target

    def root(self) -> Table:
        """The root table."""
        return self.table_at(self.uoffset(self.start, "root offset"), 0)

    def table_at(self, pos: int, depth: int) -> Table:
        """The table whose soffset is at ``pos``, ``depth`` tables below the root."""
        if depth > self.max_depth:
            raise MetadataError(f"table at byte offset {pos} is nested deeper than {self.max_depth} tables")
        self._tables_left -= 1
        if self._tables_left < 0:
            raise MetadataError(
                f"table at byte offset {pos} exceeds the number of tables the buffer can hold"
            )
        self._check(pos, 4, "table")
        vtable = pos - _I32.unpack_from(self.data, pos)[0]
        self._check(vtable, 4, f"vtable of the table at {pos}")
        vt_size = _U16.unpack_from(self.data, vtable)[0]
        inline_size = _U16.unpack_from(self.data, vtable + 2)[0]
        if vt_size < 4 or vt_size % 2:
            raise MetadataError(f"vtable at byte offset {vtable} has invalid size {vt_size}")
        if inline_size < 4:
            raise MetadataError(f"vtable at byte offset {vtable} gives invalid table size {inline_size}")
        self._check(vtable, vt_size, f"vtable of the table at {pos}")
        self._check(pos, inline_size, "table")
        return Table(self, pos, vtable, vt_size, inline_size, depth)

    def bytes_at(self, pos: int, what: str = "string") -> bytes:
        """The string/byte vector whose uoffset is stored at ``pos``."""
        target = self.uoffset(pos, what)
        self._check(target, 4, f"{what} length")
        n = _U32.unpack_from(self.data, target)[0]
        self._check(target + 4, n, what)
        self._charge(n, target)
        return self.data[target + 4 : target + 4 + n]

    def vector_at(self, pos: int, elem_size: int, what: str = "vector") -> tuple[int, int]:
        """(first element position, count) of the vector whose uoffset is at ``pos``."""
        target = self.uoffset(pos, what)
        self._check(target, 4, f"{what} length")
        n = _U32.unpack_from(self.data, target)[0]
        # Checked before anything is allocated: n elements need n*elem_size bytes.
        if n * elem_size > self.end - (target + 4):
            raise MetadataError(
                f"{what} at byte offset {target} declares {n} elements, more than the "
                f"{self.end - target - 4} remaining bytes hold"
            )
        self._charge(n * elem_size, target)
        return target + 4, n

    def _charge(self, n: int, pos: int) -> None:
        self._bytes_left -= n
        if self._bytes_left < 0:
            raise MetadataError(
                f"data at byte offset {pos} is referenced more often than the buffer size allows"
            )


class Table:
    """One table: its position, vtable and depth below the root."""

    __slots__ = ("reader", "pos", "vtable", "vt_size", "inline_size", "depth")

    def __init__(
        self, reader: Reader, pos: int, vtable: int, vt_size: int, inline_size: int, depth: int
    ) -> None:
        self.reader = reader
        self.pos = pos
        self.vtable = vtable
        self.vt_size = vt_size
        self.inline_size = inline_size
        self.depth = depth

    def field_position(self, slot: int, size: int = 1) -> int | None:
        """Absolute position of field ``slot`` (``size`` bytes), None when absent."""
        entry = 4 + 2 * slot
        if entry + 2 > self.vt_size:
            return None  # written by an older schema with fewer fields
        voff = _U16.unpack_from(self.reader.data, self.vtable + entry)[0]
        if voff == 0:
            return None
        if voff < 4 or voff + size > self.inline_size:
            raise MetadataError(
                f"field {slot} of the table at byte offset {self.pos} lies outside the table "
                f"(offset {voff}, table size {self.inline_size})"
            )
        return self.pos + voff

    def scalar(self, slot: int, fmt: str, default: int | float | bool) -> int | float | bool:
        """Scalar field of struct format ``fmt`` ("b", "B", "?", "h", "i", "q", ...)."""
        size = struct.calcsize("<" + fmt)
        pos = self.field_position(slot, size)
        return default if pos is None else self.reader.scalar(fmt, pos)

    def string(self, slot: int) -> bytes | None:
        """String field as raw bytes, None when absent."""
        pos = self.field_position(slot, 4)
        return None if pos is None else self.reader.bytes_at(pos)

    def table(self, slot: int) -> Table | None:
        """Sub-table field, None when absent."""
        pos = self.field_position(slot, 4)
        if pos is None:
            return None
        return self.reader.table_at(self.reader.uoffset(pos, "table offset"), self.depth + 1)

    def tables(self, slot: int) -> list[Table] | None:
        """Vector-of-tables field, None when absent."""
        vector = self.table_vector(slot)
        if vector is None:
            return None
        first, n = vector
        return [self.element(first, i) for i in range(n)]

    def table_vector(self, slot: int) -> tuple[int, int] | None:
        """(first element position, count) of a vector-of-tables field, None when
        absent: its tables can then be read one by one (:meth:`element`)."""
        pos = self.field_position(slot, 4)
        return None if pos is None else self.reader.vector_at(pos, 4, "vector of tables")

    def element(self, first: int, i: int) -> Table:
        """Table ``i`` of the vector of tables starting at ``first`` (see :meth:`table_vector`)."""
        r = self.reader
        return r.table_at(r.uoffset(first + 4 * i, "vector element"), self.depth + 1)

    def scalars(self, slot: int, fmt: str) -> list[int | float | bool] | None:
        """Vector-of-scalars field, None when absent."""
        pos = self.field_position(slot, 4)
        if pos is None:
            return None
        s = struct.Struct(f"<{fmt}")
        first, n = self.reader.vector_at(pos, s.size, "vector")
        return [v[0] for v in s.iter_unpack(self.reader.data[first : first + n * s.size])]

    def union(self, type_slot: int) -> tuple[int, Table | None]:
        """(type id, table) of the union whose type byte is in ``type_slot``."""
        type_id = int(self.scalar(type_slot, "B", 0))
        return type_id, (self.table(type_slot + 1) if type_id else None)


class Builder:
    """Builds a flatbuffer back to front, as the reference builders do.

    Objects are prepended, so each is identified by its distance from the end
    of the finished buffer (a "ref"). A uoffset stored at ref ``p`` to an
    object at ref ``q`` is ``p - q``, known as soon as both exist; the
    finished size is padded to a multiple of 8 so alignment measured from the
    end equals alignment measured from the start.
    """

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._size = 0

    def _prepend(self, body: bytes, align: int) -> int:
        """Prepend ``body`` (plus trailing padding) so it starts ``align``-aligned; its ref."""
        pad = -(self._size + len(body)) % align
        self._chunks.append(body + bytes(pad))
        self._size += len(body) + pad
        return self._size

    def create_string(self, value: str | bytes) -> int:
        """A string (UTF-8, lone surrogates as surrogateescape bytes); its ref."""
        data = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else bytes(value)
        return self._prepend(_U32.pack(len(data)) + data + b"\0", 4)

    def create_scalar_vector(self, fmt: str, values: Iterable[int | float | bool]) -> int:
        """A vector of scalars of struct format ``fmt``; its ref."""
        values = list(values)
        s = struct.Struct("<" + fmt)
        elems = b"".join(s.pack(v) for v in values)
        # The elements must be aligned to their size; the count precedes them.
        pad = -(self._size + len(elems)) % max(s.size, 4)
        self._chunks.append(_U32.pack(len(values)) + elems + bytes(pad))
        self._size += 4 + len(elems) + pad
        return self._size

    def create_table_vector(self, refs: Iterable[int]) -> int:
        """A vector of uoffsets to already built tables (or strings); its ref."""
        refs = list(refs)
        pad = -self._size % 4
        ref = self._size + pad + 4 * len(refs) + 4
        # Element i is stored at ref - 4 - 4*i and points to refs[i].
        elems = b"".join(_U32.pack(ref - 4 - 4 * i - r) for i, r in enumerate(refs))
        self._chunks.append(_U32.pack(len(refs)) + elems + bytes(pad))
        self._size = ref
        return ref

    def create_table(
        self,
        scalars: Mapping[int, tuple[str, int | float | bool]] | None = None,
        offsets: Mapping[int, int] | None = None,
    ) -> int:
        """A table from ``{slot: (fmt, value)}`` scalars and ``{slot: ref}`` offsets; its ref.

        Only the given slots are written: leave out fields equal to their default.
        """
        fields: list[tuple[int, int, str, object]] = []  # (size, slot, fmt or "", value or ref)
        for slot, (fmt, value) in (scalars or {}).items():
            fields.append((struct.calcsize("<" + fmt), slot, fmt, value))
        for slot, ref in (offsets or {}).items():
            fields.append((4, slot, "", ref))
        # Largest first so every field lands aligned to its size after the soffset.
        fields.sort(key=lambda f: (-f[0], f[1]))
        layout: list[tuple[int, int, str, object]] = []
        cursor = 4
        for size, slot, fmt, value in fields:
            cursor += -cursor % size
            layout.append((cursor, slot, fmt, value))
            cursor += size
        inline_size = cursor
        align = max([4] + [f[0] for f in fields])
        pad = -(self._size + inline_size) % align
        table_ref = self._size + pad + inline_size
        n_slots = max((f[1] for f in fields), default=-1) + 1
        vt_size = 4 + 2 * n_slots
        body = bytearray(inline_size)
        # The vtable is placed directly before the table, hence soffset = vt_size.
        _I32.pack_into(body, 0, vt_size)
        voffsets = [0] * n_slots
        for off, slot, fmt, value in layout:
            voffsets[slot] = off
            if fmt:
                struct.pack_into("<" + fmt, body, off, value)
            else:
                _U32.pack_into(body, off, table_ref - off - value)  # type: ignore[operator]
        self._chunks.append(bytes(body) + bytes(pad))
        vtable = struct.pack(f"<HH{n_slots}H", vt_size, inline_size, *voffsets)
        self._chunks.append(vtable)
        self._size = table_ref + vt_size
        return table_ref

    def finish(self, root: int) -> bytes:
        """The finished buffer with ``root`` as its root table."""
        pad = -(self._size + 4) % 8
        total = self._size + pad + 4
        head = _U32.pack(total - root) + bytes(pad)
        return head + b"".join(reversed(self._chunks))
