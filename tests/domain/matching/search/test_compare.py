"""Comparing a query line with message lines: which of two lines is better, when a line is
healthy output, the similarity bound of a coverage, and a reference's best line asked of
the scores (listed when the search compared every line, compared anew when it left the
reference's lines out)."""

from __future__ import annotations

import pytest
from paths import REFERENCES
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.index.pieces import comparison_key
from failref.domain.matching.index.prefilter import query_of
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.normalize import normalize_line
from failref.domain.matching.search.budgeted import score_line
from failref.domain.matching.search.compare import (
    COVERAGE_FLOOR,
    HEALTHY_CLAIM,
    NO_LINE,
    LineScore,
    LineScores,
    better,
    entry_bound,
    similarity_bound,
)
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


@pytest.mark.parametrize(
    ("line", "than", "wins"),
    [
        pytest.param((0.8, 5, 0.9, 0.5), (0.7, 1, 1.0, 0.9), True, id="more-similar"),
        pytest.param((0.8, 5, 0.9, 0.5), (0.8, 1, 0.8, 0.9), True, id="higher-token-set"),
        pytest.param((0.8, 1, 0.9, 0.5), (0.8, 5, 0.9, 0.9), True, id="earlier-line"),
        pytest.param((0.8, 5, 0.9, 0.5), (0.8, 1, 0.9, 0.9), False, id="later-line"),
        pytest.param((0.1, 9, 0.4, 0.0), NO_LINE, True, id="any-line-beats-none"),
    ],
)
def test_which_of_two_lines_is_better(
    line: tuple[float, int, float, float], than: tuple[float, int, float, float], wins: bool
) -> None:
    assert better(line, than) is wins


def test_the_similarity_bound_runs_from_the_floor_to_one() -> None:
    assert similarity_bound(0.0) == COVERAGE_FLOOR
    assert similarity_bound(1.0) == 1.0
    assert similarity_bound(0.5) == pytest.approx(COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) / 2)


def test_a_message_line_of_one_telling_word_counts_by_coverage_alone() -> None:
    assert entry_bound(0.3, telling_words=1) == 0.3
    assert entry_bound(0.3, telling_words=2) == similarity_bound(0.3)
    for coverage in (0.0, 0.25, 1.0):  # never above the bound the searches prune with
        assert entry_bound(coverage, telling_words=1) <= similarity_bound(coverage)


def test_a_one_word_message_line_is_not_a_match_for_every_line_saying_the_word() -> None:
    table = made_reference(
        id="table", messages=[made_message("Fabric\n    Status : <word:status>", "diagnostic")]
    )
    runner = made_reference(
        id="runner", messages=[made_message("Error: llama runner process has terminated: <word>")]
    )
    found = match_text(
        build_index([table, runner]), "Error: llama runner process has terminated: exit status 2"
    ).matches
    assert [m.id for m in found][:1] == ["runner"]
    assert all(m.score < 0.5 for m in found if m.id == "table")


def _scores(failure: float | None, healthy: float | None) -> LineScores:
    scores = LineScores([LineScore(0, 0, failure, 1.0, 1.0)] if failure is not None else [])
    if healthy is not None:
        scores.healthy = LineScore(1, 1, healthy, 1.0, 1.0)
    return scores


@pytest.mark.parametrize(
    ("failure", "healthy", "claimed"),
    [
        pytest.param(None, HEALTHY_CLAIM, True, id="healthy-alone"),
        pytest.param(0.9, 0.9, True, id="as-good-as-a-failure"),
        pytest.param(0.95, 0.9, False, id="a-failure-is-closer"),
        pytest.param(None, HEALTHY_CLAIM - 0.01, False, id="under-the-claim"),
        pytest.param(0.5, None, False, id="no-healthy-line"),
    ],
)
def test_a_line_is_healthy_output_when_a_healthy_message_claims_it(
    failure: float | None, healthy: float | None, claimed: bool
) -> None:
    assert (_scores(failure, healthy).claimed_healthy() is not None) is claimed


def test_a_references_best_line_is_the_one_comparing_every_line_lists(
    index: MatchIndex,
) -> None:
    key = comparison_key(normalize_line("NCCL watchdog timeout: collective operation timed out"))
    every = score_line(index, key, exhaustive=True)
    assert every.complete
    assert every
    for ref in range(len(index.references)):
        assert every.best_line(index, ref) == every.of(ref)
    # Scores that say lines were left out compare the reference's lines anew.
    partial = LineScores(every[:1])
    partial.complete, partial.exact_above = False, 2.0
    query, _, mass = query_of(index, key)
    partial.key, partial.query, partial.mass = key, query, mass
    for ref in range(len(index.references)):
        assert partial.best_line(index, ref) == every.of(ref)
