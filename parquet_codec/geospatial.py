"""GEOMETRY and GEOGRAPHY columns: their GeoArrow type, and their statistics.

LogicalTypes.md "Geospatial Types": the values are ISO WKB; ``crs`` is empty
for the default longitude/latitude (OGC:CRS84), "srid:N", "projjson:KEY"
(the PROJJSON in the file's key-value metadata under KEY) or the CRS itself.
Arrow holds such a column as the ``geoarrow.wkb`` extension type, whose JSON
metadata carries ``crs`` (a string or PROJJSON object), ``crs_type`` and,
for GEOGRAPHY, ``edges``. :func:`geo_from_geoarrow` and
:func:`geoarrow_metadata` convert between the two as pyarrow does.

GeospatialStatistics (parquet.thrift): the bounding box of every coordinate
of a chunk's geometries, per dimension, NaN ignored, a dimension without a
value left out; and the sorted set of the geometries' WKB type codes (1-7,
plus 1000 for Z, 2000 for M, 3000 for ZM). :func:`geospatial_statistics`
parses the WKB of all values at once: every value is a cursor over its own
bytes, and each step of the loop reads one header or one coordinate count
of every cursor still going (array operations over the cursors), so the
steps are as many as the longest value has parts, not as there are values.
A value that is not valid WKB makes the statistics unknown (None), as in
pyarrow, which writes none then.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np

from parquet_codec.arrays import BinaryArray
from parquet_codec.encodings.byte_arrays import gather_ranges, words_at
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import BoundingBox, EdgeInterpolationAlgorithm, GeospatialStatistics
from parquet_codec.types import Geospatial

#: The Arrow extension type of WKB geometries.
GEOARROW_WKB = "geoarrow.wkb"

#: CRS names meaning the default longitude/latitude, written as an empty crs.
_LONLAT = {("OGC", "CRS84"), ("EPSG", "4326")}
_SRID, _PROJJSON = "srid:", "projjson:"

#: Nesting of collections beyond this makes the statistics unknown.
_MAX_DEPTH = 64
#: The coordinate frames a cursor may be in: geometries to come, or rings of a polygon.
_GEOMETRIES, _RINGS = 0, 1
#: Doubles per coordinate for each dimension code (WKB type // 1000): XY, XYZ, XYM, XYZM.
_DIMENSIONS = (2, 3, 3, 4)
#: Which box fields each dimension code's coordinates give, in order.
_AXES = (("x", "y"), ("x", "y", "z"), ("x", "y", "m"), ("x", "y", "z", "m"))


# ---------------------------------------------------------------- GeoArrow <-> Parquet


def geo_from_geoarrow(serialized: str | bytes) -> Geospatial:
    """The Parquet annotation of a ``geoarrow.wkb`` type with this JSON
    metadata: GEOGRAPHY for spherical edges, else GEOMETRY; a CRS that names
    longitude/latitude (OGC:CRS84, EPSG:4326, as a string or a PROJJSON id)
    is written empty, as the format's default."""
    text = serialized.decode() if isinstance(serialized, bytes) else serialized
    if text in ("", "{}"):
        return Geospatial()
    try:
        meta = json.loads(text)
    except ValueError:
        raise SchemaError(f"{GEOARROW_WKB} metadata is not JSON: {text[:200]!r}") from None
    if not isinstance(meta, dict):
        raise SchemaError(f"{GEOARROW_WKB} metadata is not a JSON object: {text[:200]!r}")
    crs = _parquet_crs(meta.get("crs"))
    edges = meta.get("edges", "planar")
    if edges == "planar":
        return Geospatial(crs=crs)
    if edges == "spherical":
        return Geospatial(geography=True, crs=crs, algorithm=EdgeInterpolationAlgorithm.SPHERICAL)
    raise SchemaError(f"{GEOARROW_WKB} edges {edges!r} have no Parquet equivalent (planar or spherical)")


def _parquet_crs(crs: object) -> str | None:
    if crs is None:
        return None
    if isinstance(crs, str):
        return None if tuple(crs.split(":", 1)) in _LONLAT else crs
    if isinstance(crs, dict):
        ident = crs.get("id")
        if isinstance(ident, dict) and (str(ident.get("authority")), str(ident.get("code"))) in _LONLAT:
            return None
    return json.dumps(crs, separators=(",", ":"))


def geoarrow_metadata(geo: Geospatial, key_value: Mapping[str, str] | None = None) -> str:
    """The ``geoarrow.wkb`` JSON metadata of a column annotated ``geo``: its
    CRS resolved as the format suggests ("srid:N"; "projjson:KEY" looked up
    in the file's ``key_value`` metadata; a CRS that is JSON kept as JSON)."""
    crs = geo.crs or ""
    meta: dict[str, object]
    if not crs:
        meta = {"crs": "OGC:CRS84", "crs_type": "authority_code"}
    elif crs.startswith(_SRID):
        meta = {"crs": crs[len(_SRID):], "crs_type": "srid"}
    elif crs.startswith(_PROJJSON) and key_value is not None and crs[len(_PROJJSON):] in key_value:
        meta = {"crs": _json_or_text(key_value[crs[len(_PROJJSON):]]), "crs_type": "projjson"}
    else:
        meta = {"crs": _json_or_text(crs)}
    if geo.geography:
        algorithm = EdgeInterpolationAlgorithm.SPHERICAL if geo.algorithm is None else geo.algorithm
        meta["edges"] = EdgeInterpolationAlgorithm._VALUES_TO_NAMES.get(algorithm, str(algorithm)).lower()
    return json.dumps(meta)


def _json_or_text(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


# ---------------------------------------------------------------- statistics


class _Invalid(Exception):
    """A value is not WKB: the statistics are unknown."""


def geospatial_statistics(values: BinaryArray) -> GeospatialStatistics | None:
    """The GeospatialStatistics of WKB ``values`` (non-null), or None when
    one is not valid WKB."""
    offsets = np.asarray(values.offsets, dtype=np.int64)
    data = np.asarray(values.data, dtype=np.uint8)
    types: set[int] = set()
    ranges: list[tuple[np.ndarray, ...]] = []
    try:
        for lo in range(0, len(offsets) - 1, _BATCH):
            hi = min(lo + _BATCH, len(offsets) - 1)
            _Walk(data, offsets[lo:hi], offsets[lo + 1 : hi + 1], types, ranges).run()
    except _Invalid:
        return None
    return GeospatialStatistics(bbox=_bounding_box(data, ranges), geospatial_types=sorted(types))


#: Values walked together (bounds the cursors' state).
_BATCH = 1 << 16


class _Walk:
    """Cursors over values ``starts[i]:ends[i]`` of ``data``, each with a
    stack of frames (what is left to read at each nesting level: geometries,
    or a polygon's rings, with their dimension code and byte order); adds
    the top-level type codes to ``types`` and each coordinate sequence to
    ``ranges`` as (start, count, dimension code, byte-swapped) arrays."""

    def __init__(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, types: set[int],
                 ranges: list) -> None:
        n = len(starts)
        self.data, self.pos, self.end, self.types, self.ranges = data, starts.copy(), ends, types, ranges
        self.depth = np.ones(n, dtype=np.int64)
        self.remaining = np.zeros((n, 3), dtype=np.int64)  # (levels 0..2 at first; more as values nest)
        self.remaining[:, 1] = 1
        self.frame = np.zeros((n, 3), dtype=np.int8)
        self.dims = np.zeros((n, 3), dtype=np.int8)
        self.swaps = np.zeros((n, 3), dtype=bool)
        self.top = np.ones(n, dtype=bool)  # the next header read is the value's own

    def run(self) -> None:
        cursors = np.arange(len(self.pos))
        while len(cursors):
            level = self.depth[cursors]
            done = self.remaining[cursors, level] == 0
            if done.any():  # a frame ends: back to its parent, or the value ends
                closing = cursors[done]
                self.depth[closing] -= 1
                finished = closing[self.depth[closing] == 0]
                if (self.pos[finished] != self.end[finished]).any():
                    raise _Invalid  # bytes after the geometry
                cursors = cursors[~np.isin(cursors, finished)]
                continue
            self.remaining[cursors, level] -= 1
            rings = self.frame[cursors, level] == _RINGS
            if rings.any():
                at = cursors[rings]
                self._ring(at, self.dims[at, level[rings]], self.swaps[at, level[rings]])
            if not rings.all():
                self._header(cursors[~rings])

    def _u32(self, at: np.ndarray, swap: np.ndarray) -> np.ndarray:
        word = (words_at(self.data, at) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        return np.where(swap, word.byteswap(), word).astype(np.int64)

    def _fits(self, at: np.ndarray, first: np.ndarray, size: np.ndarray | int) -> None:
        if (first + size > self.end[at]).any():
            raise _Invalid

    def _ring(self, at: np.ndarray, dim: np.ndarray, swap: np.ndarray) -> None:
        """A ring of each polygon in ``at``: its coordinate count, then its coordinates."""
        first = self.pos[at]
        self._fits(at, first, 4)
        self._sequence(at, first + 4, self._u32(first, swap), dim, swap)

    def _sequence(self, at: np.ndarray, first: np.ndarray, count: np.ndarray, dim: np.ndarray,
                  swap: np.ndarray) -> None:
        size = count * 8 * np.asarray(_DIMENSIONS, dtype=np.int64)[dim]
        self._fits(at, first, size)
        self.ranges.append((first, count, dim, swap))
        self.pos[at] = first + size

    def _header(self, at: np.ndarray) -> None:
        """A geometry of each cursor in ``at``: its byte order and type, then
        a point's coordinates, a linestring's count and coordinates, or the
        count of a polygon's rings or a collection's parts (a new frame)."""
        start = self.pos[at]
        self._fits(at, start, 9)  # (a point is longer: its coordinates are checked as a sequence)
        swap = self.data[start] != 1  # 1: little-endian; anything else reads as big-endian, as pyarrow does
        code = self._u32(start + 1, swap)
        kind, dim = code % 1000, (code // 1000).astype(np.int8)
        if ((kind < 1) | (kind > 7) | (code // 1000 > 3)).any():
            raise _Invalid
        self.types.update(code[self.top[at]].tolist())
        self.top[at] = False
        point = kind == 1
        if point.any():
            self._sequence(at[point], start[point] + 5, np.ones(int(point.sum()), dtype=np.int64), dim[point],
                           swap[point])
        count = self._u32(start + 5, swap)
        line = kind == 2
        if line.any():
            self._sequence(at[line], start[line] + 9, count[line], dim[line], swap[line])
        nest = kind >= 3
        if nest.any():
            self._push(at[nest], np.where(kind[nest] == 3, _RINGS, _GEOMETRIES), count[nest], dim[nest],
                       swap[nest])
            self.pos[at[nest]] = start[nest] + 9

    def _push(self, at: np.ndarray, frame: np.ndarray, count: np.ndarray, dim: np.ndarray, swap: np.ndarray) -> None:
        level = self.depth[at] + 1
        deepest = int(level.max())
        if deepest > _MAX_DEPTH:
            raise _Invalid
        if deepest >= self.remaining.shape[1]:
            grow = deepest + 1 - self.remaining.shape[1]
            for name in ("remaining", "frame", "dims", "swaps"):
                table = getattr(self, name)
                setattr(self, name, np.pad(table, ((0, 0), (0, grow))))
        self.depth[at] = level
        self.remaining[at, level] = count
        self.frame[at, level] = frame
        self.dims[at, level] = dim
        self.swaps[at, level] = swap


def _bounding_box(data: np.ndarray, ranges: list[tuple[np.ndarray, ...]]) -> BoundingBox | None:
    """The box of every coordinate of ``ranges``; None without an X and Y."""
    lows = dict.fromkeys("xyzm", np.inf)
    highs = dict.fromkeys("xyzm", -np.inf)
    if ranges:
        first, count, dim, swap = (np.concatenate(part) for part in zip(*ranges, strict=True))
        for code, width in enumerate(_DIMENSIONS):
            for swapped in (False, True):
                pick = (dim == code) & (swap == swapped)
                if not pick.any():
                    continue
                _, raw = gather_ranges(data, first[pick], count[pick] * 8 * width)
                coords = raw.view(">f8" if swapped else "<f8").reshape(-1, width)
                for column, axis in enumerate(_AXES[code]):
                    values = coords[:, column]
                    lows[axis] = float(np.fmin.reduce(values, initial=lows[axis]))
                    highs[axis] = float(np.fmax.reduce(values, initial=highs[axis]))
    if np.isinf(lows["x"]) or np.isinf(lows["y"]):
        return None
    box = BoundingBox(xmin=lows["x"], xmax=highs["x"], ymin=lows["y"], ymax=highs["y"])
    for axis in "zm":
        if not np.isinf(lows[axis]):
            setattr(box, f"{axis}min", lows[axis])
            setattr(box, f"{axis}max", highs[axis])
    return box


__all__ = ["GEOARROW_WKB", "geo_from_geoarrow", "geoarrow_metadata", "geospatial_statistics"]
