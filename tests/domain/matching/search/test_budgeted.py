"""The budgeted search over the shipped references and the labelled lines: past the budget
only the best lines by coverage are compared, and the best reference of a line is the one
comparing every line finds."""

from __future__ import annotations

import pytest
from paths import LABELLED, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.index.pieces import comparison_key
from failref.domain.matching.index.prefilter import by_coverage, query_mass, shared_masses
from failref.domain.matching.reading.normalize import normalize_line
from failref.domain.matching.reading.tokens import informative
from failref.domain.matching.search import budgeted
from failref.domain.references.folder import read_folder

KEYS = [comparison_key(normalize_line(line.text)) for line in read_labelled(LABELLED)]
BUDGET = 8


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


def _query(key: str) -> tuple[str, ...]:
    return tuple(set(informative(key.split())))


def test_past_the_budget_only_the_highest_coverage_lines_are_compared(
    index: MatchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budgeted, "CANDIDATE_SHARE", 0.0)
    monkeypatch.setattr(budgeted, "CANDIDATE_MIN", BUDGET)
    cut = 0
    for key in KEYS:
        query = _query(key)
        shared = shared_masses(index, query)
        allowed = set(by_coverage(index, shared, query_mass(index, query))[:BUDGET])
        scores = budgeted.score_line(index, key)
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
        fast, every = (
            budgeted.score_line(index, key),
            budgeted.score_line(index, key, exhaustive=True),
        )
        assert fast[:1] == every[:1], key
