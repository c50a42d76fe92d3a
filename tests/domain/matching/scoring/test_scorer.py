"""A reference's score for one query over the shipped references and the labelled lines:
the keyword sums and gaps read for all references at once are the ones worked out for
each, no score passes its ceiling, and a context's verdicts are worked out once per index."""

from __future__ import annotations

import pytest
from labelled_queries import CONTEXTS, KEYS
from paths import REFERENCES

from failref.domain.matching.index.context_terms import context_adjustment
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.reading.context import (
    NO_FIELDS,
    ContextFields,
    QueryContext,
    RunContext,
)
from failref.domain.matching.reading.tokens import informative, keyword_stems
from failref.domain.matching.scoring import scorer as scoring
from failref.domain.matching.search.bounds import CEILING_SLACK
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


@pytest.mark.parametrize("context", CONTEXTS, ids=["no-context", "serving", "training"])
@pytest.mark.parametrize("arrays_from", [0, scoring.ARRAYS_FROM], ids=["bincount", "as-shipped"])
def test_ceilings_are_over_every_score(
    index: MatchIndex, context: RunContext | None, arrays_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Keyword sums added up one by one or with np.bincount: the same floats either way.
    monkeypatch.setattr(scoring, "ARRAYS_FROM", arrays_from)
    query = QueryContext.of(context, NO_FIELDS)
    for key in KEYS[::3]:
        stems = keyword_stems(informative(key.split()))
        scorer = scoring.Scorer(index, stems, query, {0: "torch/distributed", 5: "vllm/worker"})
        for ref in range(len(index.references)):
            assert scorer.overlap(ref) == scoring.keyword_overlap(index, ref, stems)[0]
            assert scorer.gap(ref) == scorer.base(ref, 0.0) == scorer.gaps()[ref]
            plain = scoring.Scorer(index, stems, query)  # no code paths: the share read inline
            assert plain.gaps()[ref] == pytest.approx(plain.gap(ref), rel=1e-12, abs=0)
            assert plain.gap(ref) <= plain.gaps()[ref] * CEILING_SLACK
            assert plain.gap(ref) == plain.base(ref, 0.0)  # the same float, read inline
            for similarity in (0.0, 0.1, 0.35, 0.5, 0.77, 1.0):
                assert scorer.raw(ref, similarity) <= scorer.ceiling(similarity)


@pytest.mark.parametrize("context", CONTEXTS, ids=["no-context", "serving", "training"])
def test_a_contexts_verdicts_are_worked_out_once_per_index(
    index: MatchIndex, context: RunContext | None
) -> None:
    query = QueryContext.of(context, ContextFields(frameworks=("pytorch",)))
    first, second = (scoring.Scorer(index, set(), query) for _ in range(2))
    for ref, reference in enumerate(index.references):
        assert first.offset(ref) == context_adjustment(reference, query.given, query.inferred)
        assert second.offset(ref) is first.offset(ref)  # the index's, not worked out again


def test_references_no_line_matched_come_in_on_title_words_alone(index: MatchIndex) -> None:
    stems = keyword_stems(informative(["nccl", "watchdog", "timeout", "collective", "allreduce"]))
    scorer = scoring.Scorer(index, stems, QueryContext.of(None, NO_FIELDS))
    refs = range(len(index.references))
    found = scorer.without_a_line(refs, {}, 5, 0.05)
    expected = {ref: raw for ref in refs if (raw := scorer.raw(ref, 0.0)) >= 0.05}
    assert expected  # the words are some references' title words
    assert {ref: scored.raw for ref, scored in found.items()} == expected
    assert all(scored.line is None for scored in found.values())
    # Five references already found at 1.0: none on words alone can join them.
    best = {ref: scoring.Scored(1.0, None) for ref in refs if ref not in expected}
    assert scorer.without_a_line(expected, best, min(5, len(best)), 0.05) == {}
