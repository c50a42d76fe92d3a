"""What the index says of one query line before any comparing: which message lines share an
informative token with it, the IDF mass each shares, and their coverage (the search room
decides which of them are compared, and in what order).

A message line's similarity is token set x (floor + (1 - floor) x coverage), coverage being
the Dice overlap of the IDF mass of both sides' informative tokens (`search.compare`). Token set is
at most 1, so coverage alone bounds the similarity, and coverage needs nothing but the mass
a line shares with the query: one pass over the postings of the query's tokens gives it for
every line at once. A line sharing no informative token has coverage 0 and is no match
(`search.compare` drops it whatever its token set), so the lines found here are all there is to
compare, and comparing them highest coverage first finds the best ones soonest.

Reads from the index: `postings`, `idf`, `unknown_idf` and `entry_masses`. A query whose
tokens thousands of lines hold sums them with `np.bincount` (`shared_arrays`), which adds
each line's weights in the order given: the same floats as the loop, at C speed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import repeat
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..reading.tokens import informative
from .match_index import MatchIndex

# From this many (reference, stem) pairs on, a query's keyword sums are added up with
# np.bincount (`summed`, `scoring.scorer.Scorer.keyword_sums`): about 20 us to start, against about
# 0.05 us a pair one by one. (Shared masses switch at `search.bounded.COMPARE_ALL_BELOW`: below
# it every line is compared and the loop's dict is what the comparing reads.)
ARRAYS_FROM = 512

Held = list[tuple[str, frozenset[int], float]]  # a token, the lines holding it, its IDF


def shared_masses(index: MatchIndex, query: Sequence[str]) -> dict[int, float]:
    """The IDF mass each message line shares with the query's informative tokens, for the
    lines sharing any; summed in `query` order, as a line's own weights would be."""
    return summed_lines(held_postings(index, query))


def held_postings(index: MatchIndex, query: Sequence[str]) -> Held:
    """The query's tokens some line holds, in `query` order, with their lines and IDF."""
    postings, idf = index.postings, index.idf
    return [(token, lines, idf[token]) for token in query if (lines := postings.get(token))]


def summed_lines(held: Held) -> dict[int, float]:
    """Each line's sum of the IDF of the tokens it holds, added in the order given."""
    shared: dict[int, float] = {}
    for _, lines, weight in held:
        add_to_each(shared, lines, weight)
    return shared


def add_to_each(sums: dict[int, float], keys: Collection[int], weight: float) -> None:
    """`sums[key] = sums.get(key, 0) + weight` for each key, at C speed: a common token
    is held by thousands of lines, and a Python loop over them costs twice as much."""
    sums.update(zip(keys, map(weight.__radd__, map(sums.get, keys, repeat(0.0))), strict=True))


class SharedArrays(NamedTuple):
    """What each line sharing an informative token with the query shares, as arrays."""

    lines: NDArray[np.intp]  # in line order
    masses: NDArray[np.float64]  # the IDF mass shared, as `summed_lines` adds it
    chars: NDArray[np.float64]  # the shared tokens' characters, one separator each


def shared_arrays(index: MatchIndex, held: Held) -> SharedArrays:
    """`summed_lines` as arrays (the same floats: np.bincount adds in the order given),
    with the characters each line shares (`search.bounded.ratio_bound`)."""
    arrays = [index.postings.array(token) for token, _, _ in held]
    masses, chars = weighted_counts(
        arrays, 0, [weight for _, _, weight in held], [len(token) + 1 for token, _, _ in held]
    )
    lines = np.flatnonzero(masses)  # an IDF is never 0: a line holding a token sums over 0
    return SharedArrays(lines, masses[lines], chars[lines])


def summed(numbered: Sequence[tuple[NDArray[np.intp], float]], size: int) -> NDArray[np.float64]:
    """Each number's sum of the weights of the arrays holding it (at least `size` of them),
    added in the order given, as a loop over them would add them."""
    arrays = [found for found, _ in numbered]
    return weighted_counts(arrays, size, [weight for _, weight in numbered])[0]


def weighted_counts(
    arrays: Sequence[NDArray[np.intp]], size: int, *weightings: Sequence[float]
) -> list[NDArray[np.float64]]:
    """For each weighting (a weight per array), each number's sum of the weights of the
    arrays holding it, added in the order given (at least `size` numbers, as many under
    every weighting); the arrays are joined once for all of them."""
    if not arrays:
        return [np.zeros(size) for _ in weightings]
    numbers = np.concatenate(arrays)
    lengths = [len(found) for found in arrays]
    return [
        np.bincount(numbers, weights=np.repeat(weights, lengths), minlength=size).astype(
            np.float64,
            copy=False,  # int 0s when every array is empty
        )
        for weights in weightings
    ]


def query_tokens(key: str) -> tuple[str, ...]:
    """A query key's informative tokens, each once."""
    return tuple(set(informative(key.split())))


def query_of(index: MatchIndex, key: str) -> tuple[tuple[str, ...], dict[int, float], float]:
    """A query key's informative tokens, the mass each message line shares with them, and
    their own mass; no tokens when the key has none or the index no line."""
    query = query_tokens(key)
    if not query or not index.entry_keys:
        return (), {}, 0.0
    return query, shared_masses(index, query), query_mass(index, query)


def query_mass(index: MatchIndex, query: Sequence[str]) -> float:
    """The IDF mass of the query's informative tokens (a token no line holds weighs most)."""
    return sum(index.idf.get(token, index.unknown_idf) for token in query)


def coverage(shared: float, mass: float, entry_mass: float) -> float:
    """Dice on IDF mass: the share of both sides' informative words the other holds."""
    return 2 * shared / (mass + entry_mass)


def by_coverage(index: MatchIndex, shared: dict[int, float], mass: float) -> list[int]:
    """The lines sharing a token with the query, highest coverage first (then by position)."""
    masses = index.entry_masses
    return sorted(shared, key=lambda e: (-coverage(shared[e], mass, masses[e]), e))
