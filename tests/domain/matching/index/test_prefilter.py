"""The prefilter over the shipped references and the labelled lines: the shared IDF mass it
sums from the postings is what each line's own weights give, and its order is by coverage."""

from __future__ import annotations

import numpy as np
import pytest
from paths import LABELLED, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.index.pieces import comparison_key
from failref.domain.matching.index.prefilter import (
    add_to_each,
    by_coverage,
    coverage,
    held_postings,
    query_mass,
    shared_arrays,
    shared_masses,
    summed,
    weighted_counts,
)
from failref.domain.matching.reading.normalize import normalize_line
from failref.domain.matching.reading.tokens import informative
from failref.domain.references.folder import read_folder

KEYS = [comparison_key(normalize_line(line.text)) for line in read_labelled(LABELLED)]


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


def _query(key: str) -> tuple[str, ...]:
    return tuple(set(informative(key.split())))


def test_the_shared_mass_is_what_each_lines_own_weights_give(index: MatchIndex) -> None:
    for key in KEYS:
        query = _query(key)
        own = {
            entry: sum(filter(None, map(weights.get, query)))
            for entry, weights in enumerate(index.entry_weights)
        }
        assert shared_masses(index, query) == {e: mass for e, mass in own.items() if mass}


def test_the_shared_arrays_hold_the_same_floats_in_line_order(index: MatchIndex) -> None:
    for key in KEYS:
        query = _query(key)
        found = shared_arrays(index, held_postings(index, query))
        shared = shared_masses(index, query)
        assert found.lines.tolist() == sorted(shared)
        assert found.masses.tolist() == [shared[e] for e in sorted(shared)]  # equal, not close
        for entry, chars in zip(found.lines.tolist(), found.chars.tolist(), strict=True):
            held = set(query) & index.entry_weights.token_sets[entry]
            assert chars == sum(len(token) + 1 for token in held)


def test_weighted_counts_add_each_weighting_as_summing_it_alone_does() -> None:
    arrays = [np.array([3, 0], dtype=np.intp), np.array([], dtype=np.intp), np.array([3])]
    masses, chars = weighted_counts(arrays, 6, [0.1, 5.0, 0.2], [4, 9, 2])
    assert masses.tolist() == [0.1, 0, 0, 0.1 + 0.2, 0, 0]  # added in the order given
    assert chars.tolist() == [4.0, 0, 0, 6.0, 0, 0]
    assert chars.dtype == np.float64
    assert summed(list(zip(arrays, [0.1, 5.0, 0.2], strict=True)), 6).tolist() == masses.tolist()
    (empty,) = weighted_counts(arrays[1:2], 2, [1.0])  # np.bincount gives int 0s here
    assert empty.tolist() == [0.0, 0.0]
    assert empty.dtype == np.float64
    assert weighted_counts([], 3, [], [])[1].tolist() == [0.0, 0.0, 0.0]


def test_lines_come_highest_coverage_first_then_by_position(index: MatchIndex) -> None:
    for key in KEYS:
        query = _query(key)
        shared, mass = shared_masses(index, query), query_mass(index, query)
        order = by_coverage(index, shared, mass)
        assert sorted(order) == sorted(shared)
        coverages = [coverage(shared[e], mass, index.entry_masses[e]) for e in order]
        assert all(
            (coverages[n], -order[n]) > (coverages[n + 1], -order[n + 1])
            for n in range(len(order) - 1)
        )


def test_adding_to_each_key_sums_as_a_loop_would() -> None:
    sums = {1: 0.25, 2: 1.0}
    add_to_each(sums, frozenset({2, 3}), 0.5)
    add_to_each(sums, [3, 4], 0.125)
    add_to_each(sums, (), 9.0)
    assert sums == {1: 0.25, 2: 1.5, 3: 0.625, 4: 0.125}
