"""The Arrow schema pyarrow stores in Parquet key-value metadata (``ARROW:schema``).

pyarrow writes ``base64(schema.serialize())``: an encapsulated IPC message
(Arrow columnar format spec, "Serialization and Interprocess Communication":
0xFFFFFFFF continuation marker, int32 little-endian metadata size, then a
flatbuffer ``Message`` padded to 8 bytes). Messages written before Arrow 0.15
lack the marker and start with the size. The message header is a ``Schema``
table (Message.fbs, Schema.fbs); this module decodes it into plain frozen
dataclasses and encodes them back, without pyarrow.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass

from parquet_codec.errors import MetadataError
from parquet_codec.flatbuffers import MAX_DEPTH, Builder, Reader, Table

ARROW_SCHEMA_KEY = "ARROW:schema"


@dataclass(frozen=True)
class ArrowType:
    """One member of Schema.fbs's Type union with its parameters."""

    id: str  # "int", "utf8", "timestamp", ... (see _TYPE_NAMES), or "unknown" for a newer union member
    bit_width: int | None = None  # int, float (16/32/64), decimal, time
    signed: bool | None = None  # int
    unit: str | None = None  # date "day"/"ms"; time, timestamp, duration "s"/"ms"/"us"/"ns"; interval
    timezone: str | None = None  # timestamp; None when absent
    precision: int | None = None  # decimal
    scale: int | None = None  # decimal
    byte_width: int | None = None  # fixed_size_binary
    list_size: int | None = None  # fixed_size_list
    keys_sorted: bool | None = None  # map
    union_mode: str | None = None  # union: "sparse" | "dense"
    type_ids: tuple[int, ...] | None = None  # union; None when absent


@dataclass(frozen=True)
class DictionaryEncoding:
    """A field's dictionary encoding: id and index integer type."""

    id: int
    index_bit_width: int = 32
    index_signed: bool = True
    ordered: bool = False


@dataclass(frozen=True)
class ArrowField:
    """A named, possibly nested field; ``type`` is the value type when dictionary-encoded."""

    name: str
    nullable: bool
    type: ArrowType
    children: tuple[ArrowField, ...] = ()
    dictionary: DictionaryEncoding | None = None
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ArrowSchema:
    """Top-level fields and the schema's custom metadata."""

    fields: tuple[ArrowField, ...]
    metadata: tuple[tuple[str, str], ...] = ()


# Schema.fbs ``union Type``: position in the union (0 is NONE).
_TYPE_NAMES = (
    "null", "int", "float", "binary", "utf8", "bool", "decimal", "date", "time", "timestamp",
    "interval", "list", "struct", "union", "fixed_size_binary", "fixed_size_list", "map", "duration",
    "large_binary", "large_utf8", "large_list", "run_end_encoded", "binary_view", "utf8_view",
    "list_view", "large_list_view",
)  # fmt: skip
_TYPE_IDS = {name: i + 1 for i, name in enumerate(_TYPE_NAMES)}
_TIME_UNITS = ("s", "ms", "us", "ns")  # enum TimeUnit
_DATE_UNITS = ("day", "ms")  # enum DateUnit
_INTERVAL_UNITS = ("year_month", "day_time", "month_day_nano")  # enum IntervalUnit
_UNION_MODES = ("sparse", "dense")  # enum UnionMode
_PRECISION_BITS = (16, 32, 64)  # enum Precision: HALF, SINGLE, DOUBLE

_MESSAGE_SCHEMA = 1  # Message.fbs ``union MessageHeader``: Schema is the first member
_HEADER_NAMES = {2: "DictionaryBatch", 3: "RecordBatch", 4: "Tensor", 5: "SparseTensor"}
_V4, _V5 = 3, 4  # enum MetadataVersion (V1 = 0)
_CONTINUATION = b"\xff\xff\xff\xff"

# Slot numbers: a field's position in its table; a union takes two slots.
_MSG_VERSION, _MSG_HEADER_TYPE, _MSG_BODY_LENGTH = 0, 1, 3
_SCHEMA_ENDIANNESS, _SCHEMA_FIELDS, _SCHEMA_METADATA = 0, 1, 2
_FIELD_NAME, _FIELD_NULLABLE, _FIELD_TYPE_TYPE = 0, 1, 2  # the type union's table is slot 3
_FIELD_DICT, _FIELD_CHILDREN, _FIELD_METADATA = 4, 5, 6
# A Field table is MAX_DEPTH minus Message, Schema and the type/dictionary tables below it.
_MAX_FIELD_NESTING = MAX_DEPTH - 4


def _text(raw: bytes | None) -> str:
    return "" if raw is None else raw.decode("utf-8", "surrogateescape")


def _time_zone(raw: bytes, where: Table) -> str:
    """A timestamp's time zone: a name or offset, so text (Arrow reads it as UTF-8;
    unlike names and metadata, which are kept byte for byte)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MetadataError(f"timestamp time zone {raw!r} in the table at byte offset {where.pos} "
                            "is not UTF-8") from None


def _enum(names: tuple, value: int | float | bool, what: str, where: Table):
    """``names[value]`` for an enum stored as ``value``."""
    if 0 <= value < len(names):
        return names[int(value)]
    raise MetadataError(f"invalid {what} value {value} in the table at byte offset {where.pos}")


def _size(value: int | float | bool, what: str, where: Table) -> int:
    """A fixed size (of a binary or a list), which no type has negative."""
    if value >= 0:
        return int(value)
    raise MetadataError(f"invalid {what} {value} in the table at byte offset {where.pos}")


def _decode_type(type_id: int, t: Table | None, field: Table) -> ArrowType:
    if type_id == 0:
        raise MetadataError(f"field at byte offset {field.pos} has no type")
    if type_id > len(_TYPE_NAMES):
        return ArrowType("unknown")  # a newer Type member: not fatal, the caller decides
    name = _TYPE_NAMES[type_id - 1]
    if t is None:
        raise MetadataError(f"field at byte offset {field.pos} has type {name} but no type table")
    if name == "int":
        return ArrowType(name, bit_width=int(t.scalar(0, "i", 0)), signed=bool(t.scalar(1, "?", False)))
    if name == "float":
        return ArrowType(name, bit_width=_enum(_PRECISION_BITS, t.scalar(0, "h", 0), "Precision", t))
    if name == "decimal":
        return ArrowType(
            name,
            precision=int(t.scalar(0, "i", 0)),
            scale=int(t.scalar(1, "i", 0)),
            bit_width=int(t.scalar(2, "i", 128)),
        )
    if name == "date":
        return ArrowType(name, unit=_enum(_DATE_UNITS, t.scalar(0, "h", 1), "DateUnit", t))
    if name == "time":
        unit = _enum(_TIME_UNITS, t.scalar(0, "h", 1), "TimeUnit", t)
        return ArrowType(name, unit=unit, bit_width=int(t.scalar(1, "i", 32)))
    if name == "timestamp":
        tz = t.string(1)
        unit = _enum(_TIME_UNITS, t.scalar(0, "h", 0), "TimeUnit", t)
        return ArrowType(name, unit=unit, timezone=None if tz is None else _time_zone(tz, t))
    if name == "duration":
        return ArrowType(name, unit=_enum(_TIME_UNITS, t.scalar(0, "h", 1), "TimeUnit", t))
    if name == "interval":
        return ArrowType(name, unit=_enum(_INTERVAL_UNITS, t.scalar(0, "h", 0), "IntervalUnit", t))
    if name == "fixed_size_binary":
        return ArrowType(name, byte_width=_size(t.scalar(0, "i", 0), "byteWidth", t))
    if name == "fixed_size_list":
        return ArrowType(name, list_size=_size(t.scalar(0, "i", 0), "listSize", t))
    if name == "map":
        return ArrowType(name, keys_sorted=bool(t.scalar(0, "?", False)))
    if name == "union":
        ids = t.scalars(1, "i")
        mode = _enum(_UNION_MODES, t.scalar(0, "h", 0), "UnionMode", t)
        return ArrowType(name, union_mode=mode, type_ids=None if ids is None else tuple(int(i) for i in ids))
    return ArrowType(name)


def _decode_metadata(items: list[Table] | None) -> tuple[tuple[str, str], ...]:
    return tuple((_text(kv.string(0)), _text(kv.string(1))) for kv in items or ())


def _decode_field(f: Table) -> ArrowField:
    type_id, type_table = f.union(_FIELD_TYPE_TYPE)
    dictionary = None
    d = f.table(_FIELD_DICT)
    if d is not None:
        index = d.table(1)
        # Schema.fbs: an absent indexType means signed 32-bit indices.
        width, signed = (
            (32, True) if index is None else (int(index.scalar(0, "i", 0)), bool(index.scalar(1, "?", False)))
        )
        dictionary = DictionaryEncoding(
            int(d.scalar(0, "q", 0)), width, signed, bool(d.scalar(2, "?", False))
        )
    return ArrowField(
        name=_text(f.string(_FIELD_NAME)),
        nullable=bool(f.scalar(_FIELD_NULLABLE, "?", False)),
        type=_decode_type(type_id, type_table, f),
        children=tuple(_decode_field(c) for c in f.tables(_FIELD_CHILDREN) or ()),
        dictionary=dictionary,
        metadata=_decode_metadata(f.tables(_FIELD_METADATA)),
    )


def _frame(data: bytes) -> tuple[int, int]:
    """(start, end) of the flatbuffer inside an encapsulated message."""
    start = 8 if data[:4] == _CONTINUATION else 4
    if len(data) < start:
        raise MetadataError(f"IPC message of {len(data)} bytes is too short for its length prefix")
    (size,) = struct.unpack_from("<i", data, start - 4)
    if size == 0:
        raise MetadataError(
            f"IPC message at byte offset {start - 4} is an end-of-stream marker, not a schema"
        )
    if size < 0 or start + size > len(data):
        raise MetadataError(
            f"IPC message declares {size} metadata bytes at byte offset {start - 4}, "
            f"but {len(data) - start} follow"
        )
    return start, start + size


class SchemaMessage:
    """An IPC Schema message whose fields are decoded when asked for: reading a
    few columns of a wide file need not decode every field it stores."""

    def __init__(self, message: bytes | memoryview) -> None:
        data = bytes(message)
        start, end = _frame(data)
        msg = Reader(data, start, end).root()
        version = int(msg.scalar(_MSG_VERSION, "h", 0))
        if version not in (_V4, _V5):
            raise MetadataError(
                f"unsupported Arrow metadata version V{version + 1} in the message at byte offset {msg.pos}"
            )
        header_type, header = msg.union(_MSG_HEADER_TYPE)
        if header_type != _MESSAGE_SCHEMA:
            kind = _HEADER_NAMES.get(header_type, f"message of header type {header_type}")
            raise MetadataError(f"IPC message at byte offset {msg.pos} is a {kind}, not a Schema")
        if header is None:
            raise MetadataError(f"IPC message at byte offset {msg.pos} has no Schema table")
        if header.scalar(_SCHEMA_ENDIANNESS, "h", 0) != 0:
            raise MetadataError(
                f"Arrow schema at byte offset {header.pos} is big-endian; only little-endian is supported"
            )
        self._header = header
        self._first, self.num_fields = header.table_vector(_SCHEMA_FIELDS) or (0, 0)
        self.metadata = _decode_metadata(header.tables(_SCHEMA_METADATA))
        self._fields: dict[int, ArrowField] = {}

    def field(self, i: int) -> ArrowField:
        """Top-level field ``i`` (0 <= i < num_fields); MetadataError when it does not decode."""
        if not 0 <= i < self.num_fields:
            raise IndexError(f"field {i} of a schema of {self.num_fields}")
        if i not in self._fields:
            self._fields[i] = _decode_field(self._header.element(self._first, i))
        return self._fields[i]

    def schema(self) -> ArrowSchema:
        """Every field, decoded."""
        return ArrowSchema(tuple(self.field(i) for i in range(self.num_fields)), self.metadata)


def decode_schema(message: bytes | memoryview) -> ArrowSchema:
    """Decode an IPC Schema message (continuation marker optional)."""
    return SchemaMessage(message).schema()


def _require(t: ArrowType, attr: str) -> int | bool | str:
    value = getattr(t, attr)
    if value is None:
        raise MetadataError(f"Arrow type {t.id} needs {attr} to be encoded")
    return value


def _unit(t: ArrowType, units: tuple) -> int:
    unit = _require(t, "unit")
    if unit not in units:
        raise MetadataError(f"Arrow type {t.id} has unit {unit!r}, not one of {units}")
    return units.index(unit)


def _encode_type(b: Builder, t: ArrowType) -> tuple[int, int]:
    """(Type union id, table ref) of ``t``."""
    if t.id not in _TYPE_IDS:
        raise MetadataError(f"cannot encode Arrow type {t.id!r}")
    scalars: dict[int, tuple[str, int | bool]] = {}
    offsets: dict[int, int] = {}
    if t.id == "int":
        scalars = {0: ("i", _require(t, "bit_width")), 1: ("?", _require(t, "signed"))}
    elif t.id == "float":
        if t.bit_width not in _PRECISION_BITS:
            raise MetadataError(f"Arrow float type has bit width {t.bit_width}, not 16, 32 or 64")
        scalars = {0: ("h", _PRECISION_BITS.index(t.bit_width))}
    elif t.id == "decimal":
        bits = 128 if t.bit_width is None else t.bit_width
        scalars = {0: ("i", _require(t, "precision")), 1: ("i", _require(t, "scale")), 2: ("i", bits)}
    elif t.id == "date":
        scalars = {0: ("h", _unit(t, _DATE_UNITS))}
    elif t.id == "time":
        scalars = {0: ("h", _unit(t, _TIME_UNITS)), 1: ("i", _require(t, "bit_width"))}
    elif t.id in ("timestamp", "duration"):
        scalars = {0: ("h", _unit(t, _TIME_UNITS))}
        if t.id == "timestamp" and t.timezone is not None:
            offsets = {1: b.create_string(t.timezone)}
    elif t.id == "interval":
        scalars = {0: ("h", _unit(t, _INTERVAL_UNITS))}
    elif t.id == "fixed_size_binary":
        scalars = {0: ("i", _require(t, "byte_width"))}
    elif t.id == "fixed_size_list":
        scalars = {0: ("i", _require(t, "list_size"))}
    elif t.id == "map":
        scalars = {0: ("?", bool(t.keys_sorted))}
    elif t.id == "union":
        mode = _require(t, "union_mode")
        if mode not in _UNION_MODES:
            raise MetadataError(f"Arrow union mode {mode!r} is not 'sparse' or 'dense'")
        scalars = {0: ("h", _UNION_MODES.index(mode))}
        if t.type_ids is not None:
            offsets = {1: b.create_scalar_vector("i", t.type_ids)}
    return _TYPE_IDS[t.id], b.create_table(scalars, offsets)


def _encode_metadata(b: Builder, items: tuple[tuple[str, str], ...]) -> int:
    refs = [b.create_table(offsets={0: b.create_string(k), 1: b.create_string(v)}) for k, v in items]
    return b.create_table_vector(refs)


def _encode_field(b: Builder, f: ArrowField, depth: int) -> int:
    if depth > _MAX_FIELD_NESTING:
        raise MetadataError(f"Arrow field {f.name!r} is nested deeper than {_MAX_FIELD_NESTING} levels")
    children = b.create_table_vector([_encode_field(b, c, depth + 1) for c in f.children])
    name = b.create_string(f.name)
    type_id, type_ref = _encode_type(b, f.type)
    offsets = {_FIELD_NAME: name, _FIELD_TYPE_TYPE + 1: type_ref, _FIELD_CHILDREN: children}
    if f.dictionary is not None:
        d = f.dictionary
        index = b.create_table({0: ("i", d.index_bit_width), 1: ("?", d.index_signed)})
        offsets[_FIELD_DICT] = b.create_table({0: ("q", d.id), 2: ("?", d.ordered)}, {1: index})
    if f.metadata:
        offsets[_FIELD_METADATA] = _encode_metadata(b, f.metadata)
    scalars = {_FIELD_NULLABLE: ("?", f.nullable), _FIELD_TYPE_TYPE: ("B", type_id)}
    return b.create_table(scalars, offsets)


def encode_schema(schema: ArrowSchema) -> bytes:
    """IPC Schema message bytes: continuation marker, size, Message (V5), 8-byte padding."""
    b = Builder()
    try:
        offsets = {_SCHEMA_FIELDS: b.create_table_vector([_encode_field(b, f, 0) for f in schema.fields])}
        if schema.metadata:
            offsets[_SCHEMA_METADATA] = _encode_metadata(b, schema.metadata)
        header = b.create_table(offsets=offsets)
    except (struct.error, UnicodeError, TypeError) as exc:
        raise MetadataError(f"cannot encode Arrow schema: {exc}") from exc
    msg = b.create_table(
        {_MSG_VERSION: ("h", _V5), _MSG_HEADER_TYPE: ("B", _MESSAGE_SCHEMA)}, {_MSG_HEADER_TYPE + 1: header}
    )
    body = b.finish(msg)
    body += bytes(-len(body) % 8)
    return _CONTINUATION + struct.pack("<i", len(body)) + body


def message_from_metadata(value: str | bytes) -> SchemaMessage:
    """The base64 ``ARROW:schema`` key-value metadata value, its fields decoded when asked for."""
    try:
        text = value.encode("ascii") if isinstance(value, str) else bytes(value)
        text = text.strip()
        # Some writers drop the base64 padding; restore it rather than fail.
        message = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
    except (UnicodeError, binascii.Error, ValueError, TypeError) as exc:
        raise MetadataError(f"{ARROW_SCHEMA_KEY} metadata value is not valid base64: {exc}") from exc
    try:
        return SchemaMessage(message)
    except MetadataError as exc:
        raise MetadataError(f"{ARROW_SCHEMA_KEY} metadata value cannot be decoded: {exc.message}") from exc


def schema_from_metadata(value: str | bytes) -> ArrowSchema:
    """Decode the base64 ``ARROW:schema`` key-value metadata value."""
    message = message_from_metadata(value)
    try:
        return message.schema()
    except MetadataError as exc:
        raise MetadataError(f"{ARROW_SCHEMA_KEY} metadata value cannot be decoded: {exc.message}") from exc


def schema_to_metadata(schema: ArrowSchema) -> str:
    """The base64 text pyarrow stores under ``ARROW:schema``."""
    return base64.b64encode(encode_schema(schema)).decode("ascii")


# ---------------------------------------------------------------- text

_NAMED = {
    "null": "null", "bool": "bool", "binary": "binary", "utf8": "string", "large_binary": "large_binary",
    "large_utf8": "large_string", "binary_view": "binary_view", "utf8_view": "string_view",
}  # fmt: skip
_FLOATS = {16: "halffloat", 32: "float", 64: "double"}
_INTERVALS = {"year_month": "month_interval", "day_time": "day_time_interval",
              "month_day_nano": "month_day_nano_interval"}
_EXTENSION_NAME = "ARROW:extension:name"


def extension_name(field: ArrowField) -> str | None:
    """The name of the extension type a field's metadata gives it, if any."""
    return dict(field.metadata).get(_EXTENSION_NAME)


def type_text(field: ArrowField) -> str:
    """A field's type as pyarrow prints it (``timestamp[us, tz=UTC]``, ``list<item: int64>``)."""
    extension = extension_name(field)
    if extension is not None:
        return f"extension<{extension}>"
    text = _plain_type_text(field.type, field.children)
    d = field.dictionary
    if d is not None:
        index = f"{'' if d.index_signed else 'u'}int{d.index_bit_width}"
        text = f"dictionary<values={text}, indices={index}, ordered={int(d.ordered)}>"
    return text


def field_text(field: ArrowField) -> str:
    """``name: type``, with `` not null`` for a required field, as pyarrow prints a field."""
    return f"{field.name}: {type_text(field)}" + ("" if field.nullable else " not null")


def _plain_type_text(t: ArrowType, children: tuple[ArrowField, ...]) -> str:
    kind = t.id
    if kind in _NAMED:
        return _NAMED[kind]
    simple = {
        "int": lambda: f"{'' if t.signed else 'u'}int{t.bit_width}",
        "float": lambda: _FLOATS.get(t.bit_width or 0, f"float{t.bit_width}"),
        "decimal": lambda: f"decimal{t.bit_width or 128}({t.precision}, {t.scale})",
        "date": lambda: "date32[day]" if t.unit == "day" else "date64[ms]",
        "time": lambda: f"time{t.bit_width}[{t.unit}]",
        "timestamp": lambda: f"timestamp[{t.unit}" + (f", tz={t.timezone}" if t.timezone else "") + "]",
        "duration": lambda: f"duration[{t.unit}]",
        "interval": lambda: _INTERVALS.get(t.unit or "", "interval"),
        "fixed_size_binary": lambda: f"fixed_size_binary[{t.byte_width}]",
    }
    if kind in simple:
        return simple[kind]()
    inner = ", ".join(field_text(c) for c in children)
    if kind == "map" and len(children) == 1 and len(children[0].children) == 2:
        key, item = children[0].children
        return f"map<{type_text(key)}, {type_text(item)}>"
    if kind == "fixed_size_list":
        return f"fixed_size_list<{inner}>[{t.list_size}]"
    if kind == "union":
        ids = t.type_ids or range(len(children))
        members = ", ".join(f"{field_text(c)}={i}" for c, i in zip(children, ids, strict=False))
        return f"{t.union_mode}_union<{members}>"
    if kind == "run_end_encoded":  # (its children print without nullability)
        return f"{kind}<" + ", ".join(f"{c.name}: {type_text(c)}" for c in children) + ">"
    return f"{kind}<{inner}>"  # list, large_list, list views, struct, unknown
