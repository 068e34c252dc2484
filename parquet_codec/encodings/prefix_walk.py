"""Finding the values of a PLAIN BYTE_ARRAY stream with array operations.

Each value is a 4-byte little-endian length followed by that many bytes, so
value ``i + 1`` starts where value ``i`` ends: a chain that a plain loop
follows one value at a time (about 150 ns per value in CPython). Here many
*walkers* follow it at once. The stream's bytes are cut into blocks of about
:data:`VALUES_PER_WALKER` values; each walker guesses where the first value
of its block starts (the first position in a short window whose length
prefix is plausible for the stream's average value size) and all walkers
step in lock-step, one numpy operation per step for all of them, until each
reaches the next walker's start.

A guess can be wrong (a position inside a value that happens to look like a
prefix). The result is therefore only accepted once it is proven: walker 0
starts at the stream's first value, and walker ``k + 1``'s start must be
exactly where walker ``k`` landed, so by induction every walker walked the
real chain. A walker whose start was not confirmed is restarted where its
predecessor landed, for a few rounds. Streams that never settle (long runs
of zero bytes, huge values, malformed data) are left to the caller's loop,
which also produces the precise errors: this module never raises on bad
input, it answers None.

Before the walkers, :func:`short_value_starts` tries the common case of
values shorter than 256 bytes that never hold three zero bytes in a row
(text, mostly): then the length prefixes are the positions followed by
three zero bytes, and one vectorized check of the chain proves them.
"""

from __future__ import annotations

import numpy as np

from parquet_codec.memory import default_pool

#: Values per walker: more walkers mean fewer lock-step numpy operations
#: but more guessing; about two dozen measured best on short strings.
VALUES_PER_WALKER = 24
#: A walker taking more steps than this is following garbage: give up.
_MAX_STEPS = 8 * VALUES_PER_WALKER
#: Average value sizes above this gain nothing (the loop is per value, and
#: such streams have few values), and the guessing window would grow.
_MAX_AVERAGE = 64
_ROUNDS = 6


def walk_starts(arr: np.ndarray, count: int, offset: int) -> tuple[np.ndarray, int] | None:
    """(data start of each of ``count`` values, end of the last) of the
    stream at ``arr[offset:]``, or None when the walkers cannot prove them.

    The stream must end exactly with the last value (trailing bytes, as in a
    malformed page, make the answer None)."""
    end = len(arr)
    span = end - offset
    if count < 4 * VALUES_PER_WALKER or span < 4 * count or span > _MAX_AVERAGE * count:
        return None
    prefixes = np.ndarray((end - 3,), dtype="<u4", buffer=arr, strides=(1,))  # the u32 at every position
    starts = _guess_starts(prefixes, offset, end, count)
    walked = _walk(prefixes, starts, np.append(starts[1:], end), end)
    if walked is None:
        return None
    grid, landing = walked
    for _ in range(_ROUNDS):
        unconfirmed = np.flatnonzero(landing[:-1] != starts[1:]) + 1
        if not len(unconfirmed):
            positions = grid[grid >= 0]  # walker by walker, step by step: stream order
            if landing[-1] != end or len(positions) != count:
                return None
            return positions + 4, end
        if 4 * len(unconfirmed) > len(starts):
            return None  # the guesses are mostly wrong: this stream does not suit walkers
        restart = _restartable(unconfirmed, landing)
        if not len(restart):
            return None
        starts[restart] = landing[restart - 1]
        walked = _walk(prefixes, starts[restart], np.append(starts[1:], end)[restart], end)
        if walked is None:
            return None
        steps, landing[restart] = walked
        grid = _replace_rows(grid, restart, steps)
    return None


def short_value_starts(arr: np.ndarray, count: int, offset: int) -> tuple[np.ndarray, int] | None:
    """:func:`walk_starts` for streams whose length prefixes are the only
    places with three zero bytes after a byte (values under 256 bytes); None
    for any other stream. The answer is proven: the chain of prefixes from
    ``offset`` visits exactly those places and ends at the end."""
    found = length_bytes(arr[offset:], count)
    if found is None:
        return None
    return found[0] + (offset + 4), len(arr)


def length_bytes(stream: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(position of each length prefix, where each value ends) of a stream of
    ``count`` values of under 256 bytes whose only places with three zero
    bytes after a byte are the prefixes, proven by the chain through them;
    None for any other stream."""
    size = len(stream)
    if count == 0 or size < 4 * count:
        return None
    padded = (size + 15) // 8 * 8  # the mask read as whole 8-byte words, one spare
    scratch = default_pool().empty(2 * padded + 16 * count, np.uint8)  # (fresh memory: page faults)
    zero = scratch[:size].view(np.bool_)
    np.equal(stream, 0, out=zero)
    places = scratch[padded : 2 * padded].view(np.bool_)
    places[size - 3 :] = False
    np.logical_and(zero[1:-2], zero[2:-1], out=places[: size - 3])
    np.logical_and(places[: size - 3], zero[3:], out=places[: size - 3])
    found = _places(places, count, scratch[2 * padded :])
    if found is None or found[0] != 0:
        return None
    following = found + 4
    following += stream.take(found)  # the prefix is that one byte
    if following[-1] != size or not np.array_equal(following[:-1], found[1:]):
        return None
    return found, following


#: A float64 holding ``2**(8 * j)`` has the exponent bits ``1023 + 8 * j``:
#: shifted right by 55 (52 mantissa bits, then 3 for the 8), they read ``127 + j``.
_EXPONENT_SHIFT, _EXPONENT_BIAS = 55, 127


def _places(places: np.ndarray, count: int, spare: np.ndarray) -> np.ndarray | None:
    """The positions of the ``count`` places set in the bool mask ``places``
    (whose length is a multiple of 8); None when it holds more. Read a word of
    8 at a time: flatnonzero over a bool per word is several times faster than
    over the bytes, and a word holding one place is ``2**(8 * j)`` for its
    byte ``j``, which the word's float exponent tells. (A word holding
    several, as around an empty value, gives its last: the caller's chain
    check then proves the positions or rejects them.) ``spare``: ``16 * count`` bytes."""
    words = places.view(np.uint64)
    found = np.flatnonzero(words != 0)
    if len(found) > count:
        return None
    if len(found) < count:  # words holding several places: values under 4 bytes
        return np.flatnonzero(places) if np.count_nonzero(places) == count else None
    flags = np.take(words, found, out=spare[: 8 * count].view(np.uint64), mode="clip")
    exponent = spare[8 * count : 16 * count].view(np.float64)
    exponent[...] = flags.view(np.int64)  # (flags < 2**63: the signed conversion is the faster)
    byte = exponent.view(np.int64)
    byte >>= _EXPONENT_SHIFT
    found <<= 3
    found += byte
    found -= _EXPONENT_BIAS
    return found


def _guess_starts(prefixes: np.ndarray, offset: int, end: int, count: int) -> np.ndarray:
    """Walker start guesses: ``offset`` (certain), then in each block the first
    position of a short window whose prefix is a plausible length."""
    span = end - offset
    average = span // count
    window = 2 * average + 8
    plausible_length = max(16 * average, 256)
    walkers = count // VALUES_PER_WALKER
    base = offset + (np.arange(1, walkers, dtype=np.int64) * span) // walkers
    candidates = base[:, None] + np.arange(window, dtype=np.int64)
    np.minimum(candidates, end - 4, out=candidates)
    plausible = prefixes[candidates] <= plausible_length
    found = plausible.any(axis=1)
    first = np.argmax(plausible, axis=1)
    return np.unique(np.concatenate(([offset], candidates[found, first[found]])))


def _walk(prefixes: np.ndarray, starts: np.ndarray, stops: np.ndarray, end: int
          ) -> tuple[np.ndarray, np.ndarray] | None:
    """Walk from each start until at or past its stop: (positions visited, one
    row per walker padded with -1; landing position, -1 for a walker whose
    chain left the data). None when some walker needs too many steps."""
    pos = starts.copy()
    active = starts < stops
    steps = []
    while active.any():
        if len(steps) == _MAX_STEPS:
            return None
        steps.append(np.where(active, pos, -1))
        following = pos + 4 + prefixes[np.minimum(pos, end - 4)]  # (-1, a dead walker's, reads garbage unused)
        dead = active & ((pos > end - 4) | (following > end))
        pos = np.where(active, following, pos)
        pos[dead] = -1
        active &= (pos < stops) & ~dead
    if not steps:
        return np.full((len(starts), 1), -1, dtype=np.int64), pos
    return np.stack(steps, axis=1), pos


def _restartable(unconfirmed: np.ndarray, landing: np.ndarray) -> np.ndarray:
    """The unconfirmed walkers whose predecessor is alive and confirmed (its
    landing is then the true position); the others wait for a later round."""
    confirmed = np.ones(len(landing), dtype=bool)
    confirmed[unconfirmed] = False
    previous = unconfirmed - 1
    return unconfirmed[(landing[previous] >= 0) & confirmed[previous]]


def _replace_rows(grid: np.ndarray, rows: np.ndarray, steps: np.ndarray) -> np.ndarray:
    if steps.shape[1] > grid.shape[1]:
        grid = np.pad(grid, ((0, 0), (0, steps.shape[1] - grid.shape[1])), constant_values=-1)
    grid[rows] = -1
    grid[rows, : steps.shape[1]] = steps
    return grid


__all__ = ["VALUES_PER_WALKER", "length_bytes", "short_value_starts", "walk_starts"]
