"""Finding the runs of RLE / bit-packing hybrid streams laid end to end.

Every byte position could start a run header: a table of two-byte prefixes
gives, for all of them at once, where the next header would be (``nxt``).
The true headers are the chain of ``nxt`` from position 0. Chains from
almost every position merge into it within a few runs (headers are dense
and resynchronize), so a few rounds of pointer doubling and the image of the
result give the chain but for a handful of stray positions, which are then
stepped over (:func:`converged_chain`); input where they are many takes
:func:`.rle._chain`'s exact doubling. Each stream's runs are then told apart
by position (:func:`stream_chain`), and what each run gives of its stream's
values by :func:`takes`.
"""

from __future__ import annotations

import functools

import numpy as np

from parquet_codec.encodings.rle import _UNBOUNDED, _chain

#: Where a header cannot start (or its run would pass the end): beyond any stream.
FAR = 1 << 62


@functools.lru_cache(maxsize=8)
def header_tables(bit_width: int) -> tuple[np.ndarray, np.ndarray]:
    """For every two-byte prefix (little-endian uint16) of a run header: the
    bytes from it to the next header (FAR for a header longer than two
    bytes: runs of up to 8191 values or groups have short ones), and the run
    it introduces as ``covers << 2 | (header bytes - 1) << 1 | bit-packed``."""
    prefix = np.arange(1 << 16, dtype=np.int64)
    low, high = prefix & 0xFF, prefix >> 8
    one = low < 0x80
    value = np.where(one, low, (low & 0x7F) | (high & 0x7F) << 7)
    packed, body = value & 1, value >> 1
    steps = np.where(one, 1, 2) + np.where(packed, body * bit_width, (bit_width + 7) // 8)
    steps[~one & (high >= 0x80)] = FAR
    runs = np.where(packed, body * 8, body) << 2 | np.where(one, 0, 2) | packed
    return steps, runs


def stream_chain(nxt: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """The header positions of the streams laid end to end (``nxt``: the next
    header after every position, ``nxt[n] == n``) and the index of each
    stream's first and last header; None when the chain does not pass
    through every stream's start."""
    n = len(nxt) - 1
    path = converged_chain(nxt)
    if path is None:
        path = _chain(nxt, None, n, _UNBOUNDED)
    first = np.searchsorted(path, bounds[:-1])
    if (first >= len(path)).any() or (path.take(np.minimum(first, len(path) - 1)) != bounds[:-1]).any():
        return None
    return path, first, np.append(first[1:], len(path)) - 1


def prefix_chain(prefix: np.ndarray, steps: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """:func:`stream_chain` for headers read through a table of two-byte
    prefixes (``prefix``: the two bytes at each of the ``n + 1`` positions;
    ``steps``: as :func:`header_tables` gives them), and the prefix of each
    header found: (path, first, last, heads). None when the streams are not
    regular (a run passes its stream's end) or a header is too long (FAR)."""
    n = len(prefix) - 1
    nxt = steps.take(prefix)
    nxt += ramp(n + 1)
    np.minimum(nxt, np.int64(n), out=nxt)  # (a NumPy scalar: faster than a Python int here)
    chained = stream_chain(nxt, bounds)
    if chained is None:
        return None
    path, first, last = chained
    heads = prefix.take(path)
    if ((path.take(last) + steps.take(heads.take(last))) != bounds[1:]).any():
        return None
    return path, first, last, heads


#: Pointer-doubling rounds before taking the image: chains from every position
#: have merged into the true one after 2**3 runs but for a handful.
_MERGE_ROUNDS = 3

#: More stray positions than this in the image: use :func:`.rle._chain`.
_MAX_STRAYS = 256


def converged_chain(nxt: np.ndarray) -> np.ndarray | None:
    """:func:`.rle._chain` from 0 to the end (``nxt[n] == n``, ``nxt[p] > p``
    before), found through the image of ``nxt`` applied ``2**k`` times.

    Run headers resynchronize within a few runs: the chains from nearly all
    positions merge into the true one, so the positions ``2**k`` runs after
    some position are the true chain (but for its first ``2**k`` headers,
    walked here) plus a few strays. That image costs ``k`` doublings and one
    scatter, where following the chain itself costs ``log2(runs / stride)``
    doublings and ``stride`` gathers. The image is closed under ``nxt``, so
    the true chain, read in order, steps over the strays: wherever a header's
    successor is not the next position of the image, the positions between are
    strays. None when there are too many strays to drop one by one."""
    n = len(nxt) - 1
    far = nxt
    for _ in range(_MERGE_ROUNDS):
        far = far.take(far)
    landed = np.zeros(n + 1, dtype=np.bool_)
    landed[far] = True
    image = np.flatnonzero(landed)  # ends with n
    head, pos = [], 0
    for _ in range(1 << _MERGE_ROUNDS):
        if pos >= n:
            break
        head.append(pos)
        pos = int(nxt[pos])
    tail = image[int(np.searchsorted(image, pos)):]  # starts at pos: it is in the image
    following = nxt.take(tail[:-1])
    strays = np.flatnonzero(following != tail[1:])
    if len(strays):
        if len(strays) > _MAX_STRAYS:
            return None
        tail = tail[_on_chain(tail, strays, np.searchsorted(tail, following.take(strays)))]
    return np.concatenate((np.array(head, dtype=np.int64), tail[:-1]))


def _on_chain(tail: np.ndarray, breaks: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Which positions of ``tail`` (sorted, closed under the chain, starting on
    it) the chain from ``tail[0]`` passes: at a position on it whose successor
    is not the next one (``breaks``), the chain goes on at index ``targets``."""
    keep = np.ones(len(tail), dtype=np.bool_)
    resume = 0
    for at, to in zip(breaks.tolist(), targets.tolist(), strict=True):
        if at >= resume:  # on the chain
            keep[at + 1:to] = False
            resume = to
    return keep


def takes(covers: np.ndarray, first: np.ndarray, counts: np.ndarray,
          last: np.ndarray | None = None) -> np.ndarray | None:
    """Values taken from each run: all it covers, but the last run of a stream
    (``last``, found from ``first`` when not given) only up to the stream's
    count. None when a stream covers too few values, has runs after its
    last value or a run of none (the general decoder reports it). A caller
    giving ``last`` lends ``covers`` as scratch: it is changed in place and
    returned."""
    if not covers.all():
        return None
    totals = np.add.reduceat(covers, first)
    take = covers
    if last is None:
        last, take = np.append(first[1:], len(covers)) - 1, covers.copy()
    surplus = totals - counts
    if (surplus < 0).any() or (surplus >= covers[last]).any():
        return None
    take[last] -= surplus
    return take


def run_starts(take: np.ndarray) -> np.ndarray:
    """The exclusive running sum of ``take``: where each run starts."""
    ends = np.empty(len(take) + 1, dtype=np.int64)
    ends[0] = 0
    np.cumsum(take, out=ends[1:])
    return ends[:-1]


def ramp(n: int) -> np.ndarray:
    """``np.arange(n)`` (int64, read-only), kept between calls up to a size."""
    global _RAMP
    kept = _RAMP  # (read once: another thread may replace it meanwhile, with a shorter one)
    if n > len(kept):
        if n > _MAX_RAMP:
            return np.arange(n, dtype=np.int64)
        kept = np.arange(min(max(n, 2 * len(kept)), _MAX_RAMP), dtype=np.int64)
        kept.flags.writeable = False
        _RAMP = kept
    return kept[:n]


_MAX_RAMP = 1 << 21
_RAMP = np.arange(1 << 12, dtype=np.int64)
_RAMP.flags.writeable = False


__all__ = ["FAR", "converged_chain", "header_tables", "prefix_chain", "ramp", "run_starts", "stream_chain", "takes"]
