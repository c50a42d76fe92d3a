"""The prefilter over the shipped references and the labelled lines: the shared IDF mass it
sums from the postings is what each line's own weights give, its order is by coverage, only
the best by coverage are compared, and the best reference of a line is the one comparing
every line finds."""

from __future__ import annotations

import numpy as np
import pytest
from paths import LABELLED, REFERENCES

from failref.domain.matching import rank
from failref.domain.matching.index import MatchIndex, build_index, comparison_key
from failref.domain.matching.labelled import read_labelled
from failref.domain.matching.normalize import normalize_line
from failref.domain.matching.prefilter import (
    add_to_each,
    by_coverage,
    coverage,
    held_postings,
    query_mass,
    shared_arrays,
    shared_masses,
    summed,
    walk,
    weighted_counts,
)
from failref.domain.matching.tokens import informative
from failref.domain.references.folder import read_folder

KEYS = [comparison_key(normalize_line(line.text)) for line in read_labelled(LABELLED)]
BUDGET = 8


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


def test_past_the_budget_only_the_highest_coverage_lines_are_compared(
    index: MatchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rank, "CANDIDATE_SHARE", 0.0)
    monkeypatch.setattr(rank, "CANDIDATE_MIN", BUDGET)
    cut = 0
    for key in KEYS:
        query = _query(key)
        shared = shared_masses(index, query)
        allowed = set(by_coverage(index, shared, query_mass(index, query))[:BUDGET])
        scores = rank.score_line(index, key)
        found = {line.entry for line in scores}
        if scores.healthy is not None:
            found.add(scores.healthy.entry)
        assert found <= allowed
        cut += len(shared) > BUDGET
    assert cut > 0


def test_the_best_reference_of_every_labelled_line_is_the_exhaustive_one(
    index: MatchIndex,
) -> None:
    for key in KEYS:
        fast, every = rank.score_line(index, key), rank.score_line(index, key, exhaustive=True)
        assert fast[:1] == every[:1], key


def _walked(
    bounds: list[float],
    needs: list[float],
    most: int = 100,
    tight: dict[int, float] | None = None,
) -> tuple[list[int], float]:
    """The lines `walk` compares (in order) against a need that takes `needs` in turn;
    `tight` gives some lines (by entry) a tight bound under their bound."""
    compared: list[int] = []
    asked = iter([*needs, *[needs[-1]] * 100])
    entries = [10 * n for n in range(len(bounds))]
    tights = [(tight or {}).get(entry, bound) for entry, bound in zip(entries, bounds, strict=True)]
    order = sorted(range(len(bounds)), key=bounds.__getitem__, reverse=True)
    bar = walk(entries, bounds, tights, order, compared.extend, lambda: next(asked), 2, most)
    return compared, bar


def test_the_walk_compares_highest_bound_first_until_none_left_reaches_the_need() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.0, 0.6])
    assert compared == [10, 50, 30]  # 0.9 and 0.8, then 0.7; 0.5 is under the need
    assert bar == 0.6
    assert _walked(bounds, [2.0]) == ([], 2.0)
    assert _walked(bounds, [0.0]) == ([10, 50, 30, 0, 40, 20], 0.0)


def test_the_need_is_asked_after_every_batch() -> None:
    compared, bar = _walked([0.5, 0.9, 0.1, 0.7, 0.3, 0.8], [0.0, 0.4, 0.85])
    assert compared == [10, 50, 30, 0]  # a batch of two, then of up to four over 0.4
    assert bar == 0.85  # what was found raised the need past the lines left


def test_the_walk_stops_at_most_and_says_where() -> None:
    compared, bar = _walked([0.5, 0.9, 0.1, 0.7, 0.3, 0.8], [0.0], most=3)
    assert compared == [10, 50, 30]
    assert 0.5 < bar < 0.5000001  # every line left out is under it, the best of them 0.5


def test_a_line_under_the_need_by_its_tight_bound_is_not_compared() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.6], tight={10: 0.2})
    assert compared == [50, 30]  # 0.9 is 0.2 at its tight bound
    assert bar == 0.6


def test_a_line_passed_over_is_compared_when_the_need_falls_to_it() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.6, 0.6, 0.15], tight={10: 0.2})
    assert compared == [50, 30, 10, 0, 40]  # 0.9, passed over at 0.2, comes in at 0.15
    assert bar == 0.15


def test_adding_to_each_key_sums_as_a_loop_would() -> None:
    sums = {1: 0.25, 2: 1.0}
    add_to_each(sums, frozenset({2, 3}), 0.5)
    add_to_each(sums, [3, 4], 0.125)
    add_to_each(sums, (), 9.0)
    assert sums == {1: 0.25, 2: 1.5, 3: 0.625, 4: 0.125}
