"""Hypothesis-driven round trips and mutations: quick enough for every test run.

* Tables of random values written with random options read back unchanged.
* Any structure-aware mutation of such a file, any bytes given to the
  decoders and any footer bytes keep the contract.
* The mutator itself: parse/build is the identity, mutations are reproducible.
"""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_codec as pc
from fuzz import contract, targets
from fuzz.layout import parse
from fuzz.mutator import interesting, mutate, mutate_scoped
from fuzz.variants import check_variant
from parquet_codec.errors import ResourceLimitError
from parquet_codec.limits import memory_budget, reserve

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ints = st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), min_size=1, max_size=60)
texts = st.lists(st.one_of(st.none(), st.text(max_size=12)), min_size=1, max_size=60)
options = st.fixed_dictionaries({
    "compression": st.sampled_from(["none", "snappy", "gzip", "zstd", "lz4"]),
    "data_page_version": st.sampled_from(["1.0", "2.0"]),
    "use_dictionary": st.booleans(),
    "data_page_size": st.sampled_from([64, 1024, None]),
    "write_page_checksum": st.booleans(),
})


def _write(columns: dict, opts: dict) -> bytes:
    out = io.BytesIO()
    pc.write_table(columns, out, **opts)
    return out.getvalue()


@st.composite
def tables(draw: st.DrawFn) -> dict:
    a = draw(ints)
    b = draw(st.lists(st.one_of(st.none(), st.text(max_size=12)), min_size=len(a), max_size=len(a)))
    lists = draw(st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-5, 5)), max_size=4)),
                          min_size=len(a), max_size=len(a)))
    return {"a": a, "b": b, "l": lists}


@FAST
@given(tables(), options)
def test_round_trip(columns, opts):
    got = pc.read_table(_write(columns, opts)).to_pydict()
    assert got == columns


@FAST
@given(tables(), options, st.integers(0, 2**32), st.integers(1, 8))
def test_mutated_file_keeps_the_contract(columns, opts, seed, rounds):
    data = _write(columns, opts)
    rng = random.Random(seed)
    for _ in range(rounds):
        data, scope = mutate_scoped(data, rng)
        check_variant(data, scope, seed)
        contract.run(targets.read, data)


@FAST
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 2**32 - 1), st.integers(-(2**31), 2**31 - 1),
       st.integers(0, 2**32 - 1), st.binary(max_size=200))
def test_decoders_keep_the_contract(decoder, width, count, type_length, size, payload):
    params = targets.DecodeParams(decoder, width, count & 0x7FFFFFFF, type_length, size & 0x7FFFFFFF)
    contract.run(targets.decode, targets.encode_params(params, payload), where=False)


@FAST
@given(st.binary(max_size=300))
def test_footer_bytes_keep_the_contract(data):
    contract.run(targets.footer, data)
    contract.run(targets.footer, b"PAR1" + data + len(data).to_bytes(4, "little") + b"PAR1")


@FAST
@given(st.binary(min_size=1, max_size=400), st.integers(0, 2**32))
def test_arbitrary_file_bytes_keep_the_contract(body, seed):
    contract.run(targets.read, b"PAR1" + body + len(body).to_bytes(4, "little") + b"PAR1")
    contract.run(targets.read, mutate(body, random.Random(seed)))


def test_parse_then_build_is_identity():
    data = _write({"a": list(range(50)), "b": [str(i % 3) for i in range(50)]}, {"data_page_size": 64})
    layout = parse(data)
    assert layout is not None and len(layout.pages) > 2
    assert layout.build() == data


def test_mutations_are_reproducible():
    data = _write({"a": list(range(50))}, {})
    first = [mutate(data, random.Random(seed)) for seed in range(20)]
    assert first == [mutate(data, random.Random(seed)) for seed in range(20)]
    assert sum(m != data for m in first) >= 15


def test_interesting_values_fit_their_width():
    rng = random.Random(0)
    for bits in (8, 16, 32, 64):
        for _ in range(200):
            assert -(1 << (bits - 1)) <= interesting(rng.randrange(-100, 100), bits, rng) < 1 << (bits - 1)


def test_zero_width_page_of_huge_count_is_refused_before_allocating():
    # 2**31 - 1 RLE values of bit width 0 in five bytes: legal-looking, 8 GiB when materialized.
    params = targets.DecodeParams(1, 0, 2**31 - 1, 0, 0)
    error = contract.run(targets.decode, targets.encode_params(params, b"\xfe\xff\xff\xff\x0f"), where=False)
    assert isinstance(error, ResourceLimitError)


def test_memory_limit_applies_to_a_whole_read():
    data = _write({"a": list(range(10_000))}, {"compression": "snappy"})
    with pytest.raises(ResourceLimitError, match="memory_limit"):
        pc.read_table(data, memory_limit=1000)
    assert pc.read_table(data, memory_limit=10 * 2**20).num_rows == 10_000


def test_budgets_nest_and_reset():
    with memory_budget(100) as outer:
        reserve(60, "x")
        with memory_budget(1000) as inner:
            assert inner is outer
            with pytest.raises(ResourceLimitError):
                reserve(50, "y")
    reserve(10**9, "unbounded outside a budget")
    assert np.zeros(1).size == 1
