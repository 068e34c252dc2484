"""Run headers of streams laid end to end (encodings.run_chain): the
converged chain against exact pointer doubling (encodings.rle)."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_codec.encodings.rle import _UNBOUNDED, RleBitPackedHybrid, _chain
from parquet_codec.encodings.run_chain import FAR, converged_chain, header_tables, run_starts, takes


def _next_headers(data: np.ndarray, width: int) -> np.ndarray:
    n = len(data)
    padded = np.zeros(n + 2, dtype=np.uint8)
    padded[:n] = data
    steps, _ = header_tables(width)
    prefix = np.ndarray((n + 1,), dtype="<u2", buffer=padded, strides=(1,))
    return np.minimum(steps.take(prefix) + np.arange(n + 1), n)


@pytest.mark.parametrize("width", [1, 2, 5, 8, 13])
def test_converged_chain_is_the_chain(width):
    rng = np.random.default_rng(width)
    for _ in range(40):
        n = int(rng.integers(1, 5000))
        values = np.repeat(rng.integers(0, 1 << width, n), rng.integers(1, 20, n))[:n].astype(np.uint64)
        data = np.frombuffer(RleBitPackedHybrid.encode(values, width), dtype=np.uint8)
        nxt = _next_headers(data, width)
        expected = _chain(nxt, None, len(data), _UNBOUNDED)
        got = converged_chain(nxt)
        assert got is None or np.array_equal(got, expected)


def test_strays_are_stepped_over_or_declined():
    """Bytes where few chains merge (long bit-packed payloads of header-like
    bytes): the strays are dropped one by one, or, when many, None."""
    rng = np.random.default_rng(7)
    for groups in (2, 20, 63):
        payload = rng.integers(0, 256, 8 * groups * 50, dtype=np.uint8)
        data = np.concatenate([np.concatenate(([groups << 1 | 1], payload[i : i + 8 * groups])).astype(np.uint8)
                               for i in range(0, len(payload), 8 * groups)])
        nxt = _next_headers(data, 8)
        expected = _chain(nxt, None, len(data), _UNBOUNDED)
        got = converged_chain(nxt)
        assert got is None or np.array_equal(got, expected)
        assert np.array_equal(expected, np.arange(0, len(data), 8 * groups + 1))


def test_takes_and_starts():
    covers, first = np.array([8, 16, 5, 8, 8]), np.array([0, 2])
    assert takes(covers, first, np.array([20, 17])).tolist() == [8, 12, 5, 8, 4]  # last runs cut short
    assert takes(covers, first, np.array([24, 21])).tolist() == [8, 16, 5, 8, 8]
    assert takes(covers, first, np.array([25, 21])) is None  # a stream covers too few
    assert takes(covers, first, np.array([24, 12])) is None  # a run after the stream's last value
    assert run_starts(np.array([3, 0, 4])).tolist() == [0, 3, 3]
    assert header_tables(1)[0][0x80 | 0x80 << 8] == FAR  # a header of three bytes or more


def test_chains_that_never_merge_are_declined():
    """Every position two bytes before the next: the odd positions' chain
    never meets the true one, so the image holds a stray for each; too many
    to drop, converged_chain declines, and stream_chain takes the exact doubling."""
    from parquet_codec.encodings.run_chain import stream_chain

    n = 2000
    nxt = np.minimum(np.arange(n + 1) + 2, n)
    assert converged_chain(nxt) is None
    path, first, last = stream_chain(nxt, np.array([0, 1000, n]))
    assert np.array_equal(path, np.arange(0, n, 2)) and first.tolist() == [0, 500] and last.tolist() == [499, 999]
