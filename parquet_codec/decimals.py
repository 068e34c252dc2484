"""DECIMAL values (LogicalTypes.md, "DECIMAL").

The unscaled integer of a decimal is stored as INT32, INT64, or as big-endian
two's complement bytes in a FIXED_LEN_BYTE_ARRAY (every value the same
length) or a BYTE_ARRAY (each value as short as it can be). Arrow keeps the
unscaled integer as a little-endian 16-byte (decimal128, precision <= 38) or
32-byte (decimal256, precision <= 76) two's complement number, so reading is a
byte reversal plus sign extension, done here for all values at once.

Python values are ``decimal.Decimal`` with exponent ``-scale`` (so scale 2
gives ``Decimal('1.00')``, never ``Decimal('1')``), as pyarrow's
``to_pylist`` returns them.
"""

from __future__ import annotations

from decimal import Context, Decimal

import numpy as np

from parquet_codec.errors import CorruptFileError, SchemaError

MAX_DECIMAL128_PRECISION = 38
MAX_DECIMAL256_PRECISION = 76


# log10(2) to 50 places. 2^k - 1 has floor(k * log10(2)) + 1 digits (2^k is
# never a power of ten), so the digits of a FIXED_LEN_BYTE_ARRAY's largest
# value are counted without building it: a footer may declare any length.
_LOG10_2 = Decimal("0.30102999566398119521373889472449302676818988146211")
_WIDE = Context(prec=80)


def max_precision(type_length: int) -> int:
    """Most base-10 digits ``type_length`` bytes hold: floor(log10(2^(8n-1) - 1))."""
    if type_length < 1:
        return 0
    return int(_WIDE.multiply(Decimal(8 * type_length - 1), _LOG10_2))  # int() truncates: the floor


def min_bytes(precision: int) -> int:
    """Fewest bytes whose two's complement range holds ``precision`` digits
    (the FIXED_LEN_BYTE_ARRAY length parquet-java and pyarrow write)."""
    limit = 10**precision - 1
    n = 1
    while (1 << (8 * n - 1)) - 1 < limit:
        n += 1
    return n


def arrow_width(precision: int) -> int:
    """Bytes per value of the Arrow decimal type holding ``precision`` digits."""
    return 16 if precision <= MAX_DECIMAL128_PRECISION else 32


def _sign_fill(first_bytes: np.ndarray) -> np.ndarray:
    """0xFF where the most significant byte is negative, else 0x00."""
    return np.where(first_bytes >= 0x80, 0xFF, 0x00).astype(np.uint8)


def big_endian_to_le(
    data: np.ndarray,
    offsets: np.ndarray,
    width: int,
    validity: np.ndarray | None = None,
) -> np.ndarray:
    """BYTE_ARRAY big-endian two's complement values ``data[offsets[i]:offsets[i+1]]``
    as an ``(n, width)`` little-endian array, sign-extended.

    A value longer than ``width`` is accepted when its extra leading bytes are
    only sign extension; otherwise, or when a present value is empty, a
    :class:`CorruptFileError` names the value index.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    n = len(lengths)
    empty = lengths == 0 if validity is None else validity & (lengths == 0)
    if empty.any():
        raise CorruptFileError(f"decimal value {int(np.flatnonzero(empty)[0])} is empty")
    full = max(width, int(lengths.max(initial=0)))
    data = np.asarray(data, dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])] if n else np.zeros(0, np.uint8)
    starts = offsets[:-1] - offsets[0]
    first = data[np.minimum(starts, max(len(data) - 1, 0))] if len(data) else np.zeros(n, np.uint8)
    fill = np.where(lengths > 0, _sign_fill(first), 0).astype(np.uint8)
    # Scatter every byte to its right-aligned place in a sign-filled (n, full) block.
    padded = np.repeat(fill, full)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    within = np.arange(len(data), dtype=np.int64) - np.repeat(starts, lengths)
    padded[rows * full + (full - lengths)[rows] + within] = data
    return _narrow(padded.reshape(n, full)[:, ::-1], width, fill)


def flba_to_le(values: np.ndarray, width: int) -> np.ndarray:
    """FIXED_LEN_BYTE_ARRAY big-endian ``(n, w)`` values as ``(n, width)``
    little-endian, sign-extended (or checked and narrowed when ``w > width``)."""
    values = np.asarray(values, dtype=np.uint8)
    n, w = values.shape
    fill = _sign_fill(values[:, 0]) if w else np.zeros(n, np.uint8)
    if w > width:
        return _narrow(values[:, ::-1], width, fill)
    out = np.empty((n, width), dtype=np.uint8)
    out[:, :w] = values[:, ::-1]
    out[:, w:] = fill[:, None]
    return out


def _narrow(le: np.ndarray, width: int, fill: np.ndarray) -> np.ndarray:
    """The first ``width`` bytes of little-endian rows, checked to lose nothing."""
    if le.shape[1] > width:
        _check_fits(le, width, fill)
    return np.ascontiguousarray(le[:, :width])


def _check_fits(le: np.ndarray, width: int, fill: np.ndarray) -> None:
    """Raise unless each little-endian row equals its ``width``-byte truncation."""
    upper_ok = (le[:, width:] == fill[:, None]).all(axis=1)
    sign_ok = _sign_fill(le[:, width - 1]) == fill
    bad = ~(upper_ok & sign_ok)
    if bad.any():
        raise CorruptFileError(
            f"decimal value {int(np.flatnonzero(bad)[0])} does not fit in {width} bytes"
        )


def ints_to_le(values: np.ndarray, width: int) -> np.ndarray:
    """INT32/INT64 unscaled values as ``(n, width)`` little-endian bytes."""
    wide = np.asarray(values).astype("<i8")
    out = np.empty((len(wide), width), dtype=np.uint8)
    out[:, :8] = wide.view(np.uint8).reshape(-1, 8)
    out[:, 8:] = np.where(wide < 0, 0xFF, 0x00).astype(np.uint8)[:, None]
    return out


def le_to_big_endian(values: np.ndarray, type_length: int) -> np.ndarray:
    """``(n, w)`` little-endian two's complement as ``(n, type_length)``
    big-endian bytes; a value that needs more bytes raises :class:`SchemaError`."""
    values = np.asarray(values, dtype=np.uint8)
    n, w = values.shape
    fill = _sign_fill(values[:, w - 1]) if w else np.zeros(n, np.uint8)
    if type_length > w:
        le = np.empty((n, type_length), dtype=np.uint8)
        le[:, :w] = values
        le[:, w:] = fill[:, None]
    else:
        le = values
        if type_length < w:
            try:
                _check_fits(values, type_length, fill)
            except CorruptFileError as exc:
                raise SchemaError(exc.message) from None
    return np.ascontiguousarray(le[:, :type_length][:, ::-1])


def le_to_minimal(values: np.ndarray, validity: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(n, w)`` little-endian values as BYTE_ARRAY contents: each value in
    the fewest big-endian bytes (LogicalTypes.md: "The minimum number of bytes
    ... should be used"); null slots are empty. Returns (int64 offsets, data)."""
    be = np.ascontiguousarray(np.asarray(values, dtype=np.uint8)[:, ::-1])
    n, w = be.shape
    fill = _sign_fill(be[:, 0])
    # Byte j may be dropped when it and all before it are sign fill and byte j+1
    # carries the same sign bit.
    redundant = be[:, : w - 1] == fill[:, None]
    redundant &= _sign_fill(be[:, 1:]) == fill[:, None]
    drop = np.cumprod(redundant, axis=1).sum(axis=1) if w > 1 else np.zeros(n, np.int64)
    lengths = (w - drop).astype(np.int64)
    if validity is not None:
        lengths[~validity] = 0
    keep = np.arange(w)[None, :] >= (w - lengths)[:, None]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, be[keep]


def unscaled_ints(data: np.ndarray, offsets: np.ndarray, validity: np.ndarray | None) -> list[int]:
    """Python ints of big-endian two's complement values (nulls give 0)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    n = len(lengths)
    if n and int(lengths.max()) <= 8:
        le = big_endian_to_le(data, offsets, 8, validity)
        return le.view("<i8").reshape(n).tolist()
    raw = np.asarray(data, dtype=np.uint8).tobytes()
    bounds = offsets.tolist()
    present = [True] * n if validity is None else validity.tolist()
    out = []
    for i in range(n):
        start, end = bounds[i], bounds[i + 1]
        if not present[i]:
            out.append(0)
        elif start == end:
            raise CorruptFileError(f"decimal value {i} is empty")
        else:
            out.append(int.from_bytes(raw[start:end], "big", signed=True))
    return out


def to_decimals(unscaled: list[int], scale: int) -> list[Decimal]:
    """``Decimal`` objects ``u * 10**-scale`` with exponent exactly ``-scale``."""
    suffix = f"E-{scale}"
    return [Decimal(f"{u}{suffix}") for u in unscaled]


def to_unscaled(value: object, precision: int, scale: int, index: int) -> int:
    """The unscaled integer of one Python value (``Decimal`` or ``int``).

    Raises :class:`SchemaError` naming ``index`` when the value is not finite,
    has more fractional digits than ``scale`` (as pyarrow refuses a rescale
    that loses data), or more digits than ``precision``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise SchemaError(f"value {index} ({value!r}) is not a Decimal or int")
    if isinstance(value, int):
        unscaled = value * 10**scale
    elif not value.is_finite():
        raise SchemaError(f"value {index} ({value!r}) is not a finite decimal")
    else:
        unscaled, exact = floor_unscaled(value, scale, precision)
        if not exact and abs(unscaled) < 10**precision:
            raise SchemaError(f"value {index} ({value!r}) has more than {scale} fractional digits")
    if abs(unscaled) >= 10**precision:
        raise SchemaError(f"value {index} ({value!r}) does not fit DECIMAL({precision}, {scale})")
    return unscaled


def _signed_bytes(value: int) -> int:
    """Fewest bytes holding ``value`` in two's complement."""
    return (value if value >= 0 else ~value).bit_length() // 8 + 1


def floor_unscaled(value: Decimal, scale: int, digits: int) -> tuple[int, bool]:
    """``floor(value * 10**scale)`` as an int, and whether it is exact (no
    digit dropped), from the value's digits: no decimal context rounds it to
    28 or any number of digits. A result of more than ``digits`` digits comes
    back as one just past them (``10**digits``, or ``-10**digits - 1``),
    inexact, without building it: no DECIMAL of that precision holds it."""
    sign, coefficient, exponent = value.as_tuple()
    magnitude = int("".join(map(str, coefficient)) or "0")
    shift = exponent + scale
    if magnitude and len(coefficient) + shift > digits:
        return (-(10**digits) - 1 if sign else 10**digits), False
    if shift >= 0:
        whole, rest = magnitude * 10**shift, 0
    elif -shift > len(coefficient):  # (a tiny fraction: 10**-shift is never built)
        whole, rest = 0, magnitude
    else:
        whole, rest = divmod(magnitude, 10**-shift)
    if sign:
        return -whole - (1 if rest else 0), not rest
    return whole, not rest


def ints_to_big_endian(unscaled: list[int], type_length: int) -> np.ndarray:
    """Python ints as ``(n, type_length)`` big-endian two's complement bytes."""
    try:
        raw = b"".join(u.to_bytes(type_length, "big", signed=True) for u in unscaled)
    except OverflowError:
        bad = next(i for i, u in enumerate(unscaled) if _signed_bytes(u) > type_length)
        raise SchemaError(f"value {bad} does not fit in {type_length} bytes") from None
    return np.frombuffer(bytearray(raw), dtype=np.uint8).reshape(len(unscaled), type_length)


def ints_to_minimal(unscaled: list[int], validity: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Python ints as BYTE_ARRAY contents of minimal length; returns (offsets, data)."""
    present = [True] * len(unscaled) if validity is None else validity.tolist()
    parts = [
        u.to_bytes(_signed_bytes(u), "big", signed=True) if ok else b""
        for u, ok in zip(unscaled, present, strict=True)
    ]
    lengths = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, np.frombuffer(bytearray(b"".join(parts)), dtype=np.uint8)


__all__ = [
    "MAX_DECIMAL128_PRECISION",
    "MAX_DECIMAL256_PRECISION",
    "max_precision",
    "min_bytes",
    "arrow_width",
    "big_endian_to_le",
    "flba_to_le",
    "ints_to_le",
    "le_to_big_endian",
    "le_to_minimal",
    "unscaled_ints",
    "to_decimals",
    "to_unscaled",
    "ints_to_big_endian",
    "ints_to_minimal",
]
