"""The budgeted search for one query line: every message line sharing an informative token
with it can match (`index.prefilter`), and the CANDIDATE_SHARE of the index with the
highest coverage are compared (`compare`), or with `exhaustive` all of them. Benchmarks
and tests hold the bounded search (`bounded`) to what this finds; `logs.scan` compares a
log's templates this way."""

from __future__ import annotations

import math

from ..index.match_index import MatchIndex
from ..index.prefilter import by_coverage, coverage, query_of
from .compare import (
    NO_LINE,
    Found,
    LineScores,
    compare_lines,
    line_scores,
    similarity_bound,
)

# At most this share of the index (and at least CANDIDATE_MIN lines) is compared with one
# query line, highest coverage first; with 0.4 the prefilter keeps recall@5 >= 0.99
# against an exhaustive scan (bench/).
CANDIDATE_SHARE = 0.4


CANDIDATE_MIN = 64


def score_line(index: MatchIndex, key: str, exhaustive: bool = False) -> LineScores:
    """The best message line of each reference for one query key, best first.

    Only lines sharing an informative token with the key can match (`index.prefilter`); the
    CANDIDATE_SHARE of the index with the highest coverage are compared, or with
    `exhaustive` all of them. `bounded.search_line` compares only what can change an answer.
    """
    query, shared, mass = query_of(index, key)
    if not query:
        return LineScores()
    entries = sorted(shared)
    exact_above = 0.0
    budget = max(CANDIDATE_MIN, int(len(index.entry_keys) * CANDIDATE_SHARE))
    if not exhaustive and len(entries) > budget:
        ordered = by_coverage(index, shared, mass)
        entries = sorted(ordered[:budget])
        first_left = coverage(shared[ordered[budget]], mass, index.entry_masses[ordered[budget]])
        exact_above = math.nextafter(similarity_bound(first_left), math.inf)
    best: dict[int, Found] = {}
    healthy, _ = compare_lines(index, key, entries, shared, mass, best, NO_LINE)
    scores = line_scores(index, best, healthy, exact_above, len(query))
    scores.key, scores.query, scores.mass = key, query, mass
    return scores
