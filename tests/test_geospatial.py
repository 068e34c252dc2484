"""GEOMETRY / GEOGRAPHY: the GeoArrow mapping, the WKB statistics, and the writer."""

from __future__ import annotations

import json
import math
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_codec as pc
from parquet_codec.arrays import BinaryArray
from parquet_codec.errors import SchemaError
from parquet_codec.format.ttypes import EdgeInterpolationAlgorithm
from parquet_codec.geospatial import geo_from_geoarrow, geoarrow_metadata, geospatial_statistics
from parquet_codec.types import Geospatial
from tests.conftest import CORPUS_DATA, requires_corpus

# ---------------------------------------------------------------- GeoArrow metadata


@pytest.mark.parametrize("meta, expected", [
    ("", Geospatial()),
    ("{}", Geospatial()),
    ('{"crs": "OGC:CRS84"}', Geospatial()),
    ('{"crs": "EPSG:4326", "edges": "planar"}', Geospatial()),
    ('{"crs": {"type": "GeographicCRS", "id": {"authority": "EPSG", "code": 4326}}}', Geospatial()),
    ('{"crs": "EPSG:32632"}', Geospatial(crs="EPSG:32632")),
    ('{"crs": {"id": {"authority": "EPSG", "code": 5070}}}', Geospatial(crs='{"id":{"authority":"EPSG","code":5070}}')),
    ('{"edges": "spherical"}', Geospatial(geography=True, algorithm=EdgeInterpolationAlgorithm.SPHERICAL)),
])  # fmt: skip
def test_geoarrow_metadata_gives_the_parquet_annotation(meta: str, expected: Geospatial) -> None:
    assert geo_from_geoarrow(meta) == expected


@pytest.mark.parametrize("meta", ["not json", "[1]", '{"edges": "vincenty"}'])
def test_geoarrow_metadata_without_a_parquet_equivalent_is_refused(meta: str) -> None:
    with pytest.raises(SchemaError, match="geoarrow.wkb"):
        geo_from_geoarrow(meta)


def test_parquet_crs_resolves_to_geoarrow_metadata() -> None:
    assert json.loads(geoarrow_metadata(Geospatial())) == {"crs": "OGC:CRS84", "crs_type": "authority_code"}
    assert json.loads(geoarrow_metadata(Geospatial(crs="srid:5070"))) == {"crs": "5070", "crs_type": "srid"}
    resolved = json.loads(geoarrow_metadata(Geospatial(crs="projjson:k"), {"k": '{"id": 1}'}))
    assert resolved == {"crs": {"id": 1}, "crs_type": "projjson"}
    assert json.loads(geoarrow_metadata(Geospatial(crs="projjson:missing"), {})) == {"crs": "projjson:missing"}
    geography = json.loads(geoarrow_metadata(Geospatial(geography=True, crs="EPSG:4269")))
    assert geography == {"crs": "EPSG:4269", "edges": "spherical"}


# ---------------------------------------------------------------- WKB statistics


def _wkb(kind: int, body: bytes, big: bool = False) -> bytes:
    return struct.pack(">BI" if big else "<BI", 0 if big else 1, kind) + body


def _coords(points: list[tuple[float, ...]], big: bool = False) -> bytes:
    return b"".join(struct.pack((">" if big else "<") + "d" * len(p), *p) for p in points)


def _count(n: int, big: bool = False) -> bytes:
    return struct.pack(">I" if big else "<I", n)


def _values(items: list[bytes]) -> BinaryArray:
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in items], out=offsets[1:])
    return BinaryArray.of(offsets, np.frombuffer(b"".join(items), dtype=np.uint8).copy())


def _box(stats: object) -> dict:
    box = stats.bbox
    return {k: getattr(box, k) for k in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")}


def test_statistics_cover_every_coordinate_of_every_kind() -> None:
    ring = [(0.0, 0.0), (4.0, 0.0), (4.0, 5.0), (0.0, 0.0)]
    polygon = _wkb(3, _count(2) + _count(4) + _coords(ring) + _count(1) + _coords([(-3.0, 1.0)]))
    values = [
        _wkb(1, _coords([(1.0, 2.0)])),
        _wkb(2, _count(2, True) + _coords([(10.0, -1.0), (11.0, 7.0)], True), big=True),
        polygon,
        _wkb(1006, _count(1) + _wkb(1003, _count(1) + _count(1) + _coords([(2.0, 2.0, 9.0)]))),
        _wkb(2004, _count(1) + _wkb(2001, _coords([(5.0, 5.0, -40.0)]))),
        _wkb(7, _count(1) + _wkb(7, _count(1) + _wkb(3001, _coords([(6.0, 6.0, -2.0, 3.0)])))),
    ]
    stats = geospatial_statistics(_values(values))
    assert stats.geospatial_types == [1, 2, 3, 7, 1006, 2004]
    assert _box(stats) == {"xmin": -3.0, "xmax": 11.0, "ymin": -1.0, "ymax": 7.0, "zmin": -2.0, "zmax": 9.0,
                           "mmin": -40.0, "mmax": 3.0}


def test_nan_coordinates_and_empty_geometries_add_no_bounds() -> None:
    values = [_wkb(1, _coords([(math.nan, math.nan)])), _wkb(7, _count(0)), _wkb(1, _coords([(1.0, math.nan)]))]
    stats = geospatial_statistics(_values(values))
    assert stats.geospatial_types == [1, 7]
    assert stats.bbox is None  # no Y at all: no box
    stats = geospatial_statistics(_values([*values, _wkb(1, _coords([(2.0, 3.0)]))]))
    assert (stats.bbox.xmin, stats.bbox.xmax, stats.bbox.ymin, stats.bbox.ymax) == (1.0, 2.0, 3.0, 3.0)
    assert stats.bbox.zmin is None and stats.bbox.mmin is None


@pytest.mark.parametrize("bad", [
    _wkb(1, _coords([(1.0, 2.0)]))[:-1],  # truncated coordinates
    _wkb(1, _coords([(1.0, 2.0)])) + b"\0",  # bytes after the geometry
    _wkb(8, _coords([(1.0, 2.0)])),  # no such type
    _wkb(4001, _coords([(1.0, 2.0)])),  # no such dimensions
    _wkb(2, _count(2**31) + _coords([(1.0, 2.0)])),  # a count beyond the value
    _wkb(4, _count(3) + _wkb(1, _coords([(1.0, 2.0)]))),  # parts missing
    b"\x01\x07",
])  # fmt: skip
def test_a_value_that_is_not_wkb_makes_the_statistics_unknown(bad: bytes) -> None:
    assert geospatial_statistics(_values([_wkb(1, _coords([(0.0, 0.0)])), bad])) is None


def test_nesting_beyond_the_limit_makes_the_statistics_unknown() -> None:
    value = _wkb(1, _coords([(1.0, 1.0)]))
    for _ in range(80):
        value = _wkb(7, _count(1) + value)
    assert geospatial_statistics(_values([value])) is None
    for _ in range(3):
        value = _wkb(7, _count(1) + _wkb(1, _coords([(0.0, 0.0)])))
    assert geospatial_statistics(_values([value])).geospatial_types == [7]


@requires_corpus()
def test_statistics_equal_those_of_the_corpus_geometry_files() -> None:
    files = sorted((CORPUS_DATA / "geospatial").glob("*.parquet"))
    checked = 0
    for path in files:
        f = pq.ParquetFile(path)
        for rg in range(f.metadata.num_row_groups):
            table = f.read_row_group(rg)
            for i in range(f.metadata.num_columns):
                expected = f.metadata.row_group(rg).column(i).geo_statistics
                if expected is None or "Geometry" not in str(f.schema.column(i).logical_type):
                    continue  # (GEOGRAPHY files carry boxes of spherical edges, from another writer)
                column = table.column(i).combine_chunks().drop_null().cast(pa.large_binary())
                items = column.to_pylist()
                stats = geospatial_statistics(_values(items))
                got = {"geospatial_types": stats.geospatial_types or None,
                       **(_box(stats) if stats.bbox else dict.fromkeys(_box_keys()))}
                assert got == expected.to_dict(), (path.name, rg, i)
                checked += 1
    assert checked >= 30


def _box_keys() -> tuple[str, ...]:
    return ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")


def test_many_values_are_walked_together() -> None:
    rng = np.random.default_rng(3)
    xy = rng.normal(size=(200_000, 2))
    points = [_wkb(1, _coords([tuple(p)])) for p in xy[:1000]]
    lines = [_wkb(2, _count(5) + _coords([tuple(p) for p in xy[i : i + 5]])) for i in range(1000, 200_000, 5)]
    stats = geospatial_statistics(_values(points + lines))
    assert stats.geospatial_types == [1, 2]
    assert (stats.bbox.xmin, stats.bbox.xmax) == (xy[:, 0].min(), xy[:, 0].max())
    assert (stats.bbox.ymin, stats.bbox.ymax) == (xy[:, 1].min(), xy[:, 1].max())


# ---------------------------------------------------------------- writing


class _Wkb(pa.ExtensionType):
    """A stand-in for geoarrow-pyarrow's ``geoarrow.wkb``: the name and JSON metadata are all that matter."""

    def __init__(self, meta: str = "{}") -> None:
        self.meta = meta
        super().__init__(pa.binary(), "geoarrow.wkb")

    def __arrow_ext_serialize__(self) -> bytes:
        return self.meta.encode()

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> _Wkb:
        return cls(serialized.decode())


@pytest.fixture
def geoarrow_registered():
    try:
        pa.register_extension_type(_Wkb())
    except pa.ArrowKeyError:
        pytest.skip("another geoarrow.wkb type is registered")
    yield
    pa.unregister_extension_type("geoarrow.wkb")


@pytest.mark.parametrize("meta", ["{}", '{"crs": "EPSG:32632"}', '{"crs": "OGC:CRS84", "edges": "spherical"}'])
def test_written_geoarrow_columns_are_annotated_as_pyarrow_annotates_them(tmp_path, geoarrow_registered,
                                                                          meta: str) -> None:
    values = [_wkb(1, _coords([(1.0, 2.0)])), None, _wkb(1001, _coords([(-5.0, 4.0, 3.0)])),
              _wkb(2, _count(2, True) + _coords([(0.5, 0.5), (9.0, -9.0)], True), big=True)]
    table = pa.table({"g": pa.ExtensionArray.from_storage(_Wkb(meta), pa.array(values, pa.binary()))})
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    pc.write_table(table, ours)
    pq.write_table(table, theirs)
    a, b = pq.ParquetFile(ours), pq.ParquetFile(theirs)
    assert str(a.schema.column(0).logical_type) == str(b.schema.column(0).logical_type)
    assert str(a.schema.column(0).logical_type).startswith("Geography" if "spherical" in meta else "Geometry")
    got, expected = (f.metadata.row_group(0).column(0).geo_statistics for f in (a, b))
    assert (got and got.to_dict()) == (expected and expected.to_dict())
    stats = a.metadata.row_group(0).column(0).statistics
    assert stats is None or not stats.has_min_max  # (no sort order: no bounds)
    assert pq.read_table(ours).column("g").to_pylist() == values


# ---------------------------------------------------------------- reading


@requires_corpus()
@pytest.mark.parametrize("name", ["crs-default", "crs-geography", "crs-projjson", "crs-arbitrary-value", "geospatial"])
def test_geospatial_columns_read_as_the_registered_geoarrow_type(geoarrow_registered, name: str) -> None:
    path = CORPUS_DATA / "geospatial" / f"{name}.parquet"
    ours, theirs = pc.read_table(path).to_arrow(), pq.read_table(path)
    assert ours.schema.equals(theirs.schema)
    assert ours.equals(theirs)
    last = ours.schema.types[-1]
    assert isinstance(last, _Wkb)
    plain = pc.read_table(path, arrow_extensions_enabled=False).to_arrow()
    assert plain.schema.equals(pq.read_table(path, arrow_extensions_enabled=False).schema)


@requires_corpus()
def test_geospatial_columns_read_as_binary_without_a_registered_type() -> None:
    path = CORPUS_DATA / "geospatial" / "crs-default.parquet"
    ours = pc.read_table(path).to_arrow()
    assert pa.types.is_binary(ours.schema.types[-1])
    assert ours.equals(pq.read_table(path))


def test_a_projjson_key_resolves_to_the_file_metadata(tmp_path, geoarrow_registered) -> None:
    projjson = {"type": "ProjectedCRS", "id": {"authority": "EPSG", "code": 32632}}
    storage = pa.array([_wkb(1, _coords([(1.0, 2.0)]))], pa.binary())
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"g": storage}), path, store_schema=False)
    # (annotate the column GEOMETRY(projjson:crs_key), the PROJJSON beside it, in a rewritten footer)
    from parquet_codec.format.ttypes import FileMetaData as ThriftFooter
    from parquet_codec.format.ttypes import KeyValue
    from parquet_codec.thrift_io import deserialize, serialize

    raw = path.read_bytes()
    size = int.from_bytes(raw[-8:-4], "little")
    footer, _ = deserialize(ThriftFooter, raw[-8 - size : -8])
    footer.schema[1].logicalType = Geospatial(crs="projjson:crs_key").logical_type()
    footer.key_value_metadata = [KeyValue("crs_key", json.dumps(projjson))]
    body = serialize(footer)
    path.write_bytes(raw[: -8 - size] + body + len(body).to_bytes(4, "little") + b"PAR1")
    typ = pc.read_table(path).to_arrow().schema.field("g").type
    assert isinstance(typ, _Wkb)
    assert json.loads(typ.meta) == {"crs": projjson, "crs_type": "projjson"}
    assert pq.read_table(path).schema.field("g").type.meta == typ.meta
