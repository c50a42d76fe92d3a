"""The bounded search over the shipped references and the labelled lines: with batches
small enough that it leaves most lines out, `match_text` answers exactly what comparing
every line answers (single lines, pastes of several, with and without a run context),
the bounds it stops on are never under a score, and a reference's line it left out is
scored as comparing every line scores it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from labelled_queries import CONTEXTS, KEYS, LINES
from paths import REFERENCES
from rapidfuzz import fuzz

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.index.prefilter import (
    held_postings,
    query_mass,
    shared_arrays,
    shared_masses,
)
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.context import (
    NO_FIELDS,
    QueryContext,
    RunContext,
)
from failref.domain.matching.reading.tokens import informative, keyword_stems, set_chars
from failref.domain.matching.scoring import scorer as scoring
from failref.domain.matching.search import bounded, budgeted
from failref.domain.matching.search.bounds import CEILING_SLACK
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 4 and no comparing everything at once: at the shipped size the search
    then stops early on most lines, as it does at 10,000 references."""
    monkeypatch.setattr(bounded, "COMPARE_ALL_BELOW", 0)
    monkeypatch.setattr(bounded, "CANDIDATE_MIN", 4)


def _pastes() -> list[str]:
    rng = random.Random(20)
    return ["\n".join(rng.sample(LINES, rng.randint(2, 6))) for _ in range(40)]


def _compared(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the lines the bounded search compares."""
    counted: list[int] = []
    compare = bounded.compare_lines

    def counting(*args: object) -> object:
        counted.append(len(args[2]))  # type: ignore[arg-type]
        return compare(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bounded, "compare_lines", counting)
    return counted


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("context", CONTEXTS, ids=["no-context", "serving", "training"])
def test_every_answer_is_the_exhaustive_one(
    index: MatchIndex, context: RunContext | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = _compared(monkeypatch)
    for text in LINES:
        fast = match_text(index, text, context)
        assert fast == match_text(index, text, context, exhaustive=True), text
    every = sum(len(shared_masses(index, tuple(set(informative(k.split()))))) for k in KEYS)
    assert sum(compared) < every  # some were left out (few: most lines match little here)
    for text in _pastes():
        assert match_text(index, text, context) == match_text(
            index, text, context, exhaustive=True
        ), text


@pytest.mark.usefixtures("small_batches")
def test_a_bound_under_the_scores_changes_answers(
    index: MatchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test above has teeth: ceilings a fifth too low leave out lines that count.
    monkeypatch.setattr(bounded, "CEILING_SLACK", 0.8)
    monkeypatch.setattr(scoring, "CEILING_SLACK", 0.8)
    differ = sum(match_text(index, t) != match_text(index, t, exhaustive=True) for t in LINES)
    assert differ > 0


def _ratio_bound(index: MatchIndex, key: str, entry: int) -> float:
    """`ratio_bound` for a key and a line, each side measured from its own tokens."""
    distinct = set(key.split())
    query = frozenset(informative(distinct))
    whole = sum(len(token) + 1 for token in distinct)
    other = whole - sum(len(token) + 1 for token in query)
    assert (whole, other) == set_chars(key, tuple(query))
    line = set(index.entry_keys[entry].split())
    held = index.entry_weights.token_sets[entry]
    line_whole = sum(len(token) + 1 for token in line)
    line_other = line_whole - sum(len(token) + 1 for token in held)
    assert (line_whole, line_other) == index.entry_chars[entry]
    shared = sum(len(token) + 1 for token in query & held)
    return _one_bound(whole, other, line_whole, line_other, shared)


def _one_bound(whole: int, other: int, line_whole: int, line_other: int, shared: int) -> float:
    """`ratio_bound` of one line."""
    one = (np.array([count]) for count in (line_whole, line_other, shared))
    return float(bounded.ratio_bound(whole, other, *one)[0])


def test_the_ratio_bound_is_over_every_token_set_ratio(index: MatchIndex) -> None:
    under = pairs = 0
    for key in KEYS:
        query = tuple(set(informative(key.split())))
        for entry in shared_masses(index, query):
            ratio = fuzz.token_set_ratio(key, index.entry_keys[entry], processor=None) / 100
            bound = _ratio_bound(index, key, entry)
            assert ratio <= bound * CEILING_SLACK, (key, index.entry_keys[entry])
            under += bound < 0.9
            pairs += 1
    assert under > pairs / 4  # it has teeth: most lines share little with most lines


def test_the_ratio_bound_holds_for_repeated_and_uninformative_tokens() -> None:
    rng = random.Random(7)
    words = ["nccl", "timeout", "rank", "<n>", "<hex>", "the", "of", "a", "x", "cuda", "oom"]
    for _ in range(3_000):
        one = " ".join(rng.choices(words, k=rng.randint(1, 12)))
        two = " ".join(rng.choices(words, k=rng.randint(1, 12)))
        a, b = set(one.split()), set(two.split())
        a_held, b_held = frozenset(informative(a)), frozenset(informative(b))
        if not a_held & b_held:
            continue  # never compared: no informative token in common
        whole, line_whole = (sum(len(t) + 1 for t in side) for side in (a, b))
        other = whole - sum(len(t) + 1 for t in a_held)
        line_other = line_whole - sum(len(t) + 1 for t in b_held)
        shared = sum(len(t) + 1 for t in a_held & b_held)
        bound = _one_bound(whole, other, line_whole, line_other, shared)
        assert fuzz.token_set_ratio(one, two) / 100 <= bound * CEILING_SLACK, (one, two)


def test_the_ratio_bound_of_many_lines_is_each_ones(index: MatchIndex) -> None:
    for key in KEYS[::5]:
        query = tuple(set(informative(key.split())))
        found = shared_arrays(index, held_postings(index, query))
        chars = index.line_arrays.chars[found.lines]
        many = bounded.ratio_bound(*set_chars(key, query), chars[:, 0], chars[:, 1], found.chars)
        one = [_ratio_bound(index, key, entry) for entry in found.lines.tolist()]
        assert many.tolist() == one  # the same floats, not just close


@pytest.mark.parametrize("code_paths", [{}, {0: "torch/distributed", 5: "vllm/worker"}])
def test_each_lines_bounds_are_over_its_score(
    index: MatchIndex, code_paths: dict[int, str]
) -> None:
    for key in KEYS:
        stems = keyword_stems(informative(key.split()))
        scorer = scoring.Scorer(index, stems, QueryContext.of(CONTEXTS[1], NO_FIELDS), code_paths)
        query = tuple(set(informative(key.split())))
        shared, mass = shared_masses(index, query), query_mass(index, query)
        entries = list(shared)
        found = shared_arrays(index, held_postings(index, query))
        assert found.lines.tolist() == sorted(entries)
        tight = bounded.line_bounds(index, scorer, set_chars(key, query), found, mass)
        bounds = dict(zip(found.lines.tolist(), tight.tolist(), strict=True))
        loose = dict(
            zip(
                found.lines.tolist(),
                bounded._ceilings(index, scorer, found.lines, found.masses, mass, 1.0).tolist(),
                strict=True,
            )
        )
        for line in budgeted.score_line(index, key, exhaustive=True):
            assert line.similarity <= bounds[line.entry]
            assert scorer.raw(line.ref, line.similarity) <= bounds[line.entry]
            assert bounds[line.entry] <= loose[line.entry]


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small batches, and a cap of 8 lines looked at: the walk is cut short on most lines,
    as a weak line's is at 10,000 references."""
    monkeypatch.setattr(bounded, "COMPARE_ALL_BELOW", 0)
    monkeypatch.setattr(bounded, "CANDIDATE_MIN", 4)
    monkeypatch.setattr(bounded, "MIN_LOOKED_AT", 8)
    monkeypatch.setattr(bounded, "MAX_LOOKED_AT_SHARE", 0.0)


def _walks(index: MatchIndex, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """For each labelled line, the lines the walk was given and whether they were ordered by
    their tight bounds (else by the loose ones, each at least its tight bound)."""
    seen: list[tuple[int, bool]] = []
    walk = bounded.walk

    def watched(entries: list[int], bounds: list[float], tight: list[float], *rest: Any) -> float:
        assert all(loose >= low for loose, low in zip(bounds, tight, strict=True))
        seen.append((len(entries), bounds is tight))
        return walk(entries, bounds, tight, *rest)

    monkeypatch.setattr(bounded, "walk", watched)
    paste = bounded.PasteBar(
        scoring.Scorer(index, set(), QueryContext.of(None, NO_FIELDS)), 5, 0.05, {}
    )
    for key in KEYS:
        bounded.search_line(index, key, paste)
    return seen


@pytest.mark.usefixtures("small_batches")
def test_the_tight_bounds_order_a_walk_the_cap_cannot_cut(
    index: MatchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = _walks(index, monkeypatch)
    most = max(bounded.MIN_LOOKED_AT, int(len(index.entry_keys) * bounded.MAX_LOOKED_AT_SHARE))
    assert any(lines <= most for lines, _ in walks)
    assert all(by_tight for lines, by_tight in walks if lines <= most)


@pytest.mark.usefixtures("small_cap")
def test_the_loose_bounds_order_a_walk_the_cap_can_cut(
    index: MatchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = _walks(index, monkeypatch)
    assert all(by_tight == (lines <= 8) for lines, by_tight in walks)
    assert sum(not by_tight for _, by_tight in walks) > len(walks) / 2


@pytest.mark.parametrize("batches", ["small_batches", "small_cap"])
def test_a_line_left_out_is_scored_as_comparing_every_line_scores_it(
    index: MatchIndex, batches: str, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue(batches)
    assert list(index.entry_refs) == sorted(index.entry_refs)  # best_line bisects them
    paste = bounded.PasteBar(
        scoring.Scorer(index, set(), QueryContext.of(None, NO_FIELDS)), 5, 0.05, {}
    )
    left_out = 0
    for key in KEYS:
        fast = bounded.search_line(index, key, paste)
        every = budgeted.score_line(index, key, exhaustive=True)
        listed = {line.ref: line for line in every}
        for ref in range(len(index.references)):
            assert fast.best_line(index, ref) == listed.get(ref), (key, ref)
        left_out += len(fast) < len(every)
    assert left_out > 0
