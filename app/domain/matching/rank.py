"""Rank references against one pasted message (pure: no database, no HTTP).

One query line is compared with the reference message lines in four steps:

1. **Prefilter.** An inverted index maps each informative token (not a placeholder, not
   a stop word) to the message lines that hold it; only lines sharing one can match, and
   their coverage (step 3) bounds their similarity (`prefilter.py`). Those with the
   highest coverage go on, at most `CANDIDATE_SHARE` of the index.
2. **Fuzzy stage.** One vectorised `rapidfuzz.process.extract` call scores them with
   `token_set_ratio` (a line holding the whole template, or a template holding the whole
   line, scores high), `score_cutoff=SET_CUTOFF`.
3. **Similarity.** similarity = token_set x (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) x
   coverage), coverage being the Dice overlap of both sides' IDF-weighted informative
   tokens, so a short generic line is not a perfect match for every template that
   contains its words. The best message line per reference counts.
4. **Score.** base = similarity + (1 - similarity) x (KEYWORD_WEIGHT x keyword overlap
   + CODE_PATH_WEIGHT when a frame runs through one of its code paths); score = base x
   (1 + context offset), the offset within [-MAX_DROP, +MAX_LIFT] of `context`.
   Keywords and code paths fill part of the gap and context moves a score by a few per
   cent, so none makes a match on its own; a reference that only shares rare title
   words is reported with a low score.
   References are walked best similarity first and the walk stops once no later one
   can reach the top `limit`, so a query touching thousands of references scores few.

Healthy message lines are indexed too, and kept apart: `LineScores.claimed_healthy` says
when a line is normal output. Whether a score is confident is the judge's call (`judge`);
`match` puts one paste through all of this and `scan` a whole log.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from .index import MatchIndex
from .prefilter import by_coverage, coverage, query_of

# When a match is confident. Chosen on the labelled set (tests/data/labelled: 107 lines of
# 15 references, 29 unrelated lines; tests/content/test_labelled_set.py). The best score of
# every unrelated line is at most 0.40, and of a wrong top-1 at most 0.34 but for one
# metrics line two references share (0.84). Lines between 0.4 and 0.7 are partial matches (a
# neighbouring line of the failure, a metric name): leads, not proof. 0.70 keeps a 0.30
# margin over every unrelated line, leaves 84 of 99 correct top-1 lines confident, and gives
# the shipped references no confident collision (0.65 would flag one: a bare `GPU KV cache
# size` line against kv-cache-exhaustion).
CONFIDENT_THRESHOLD = 0.70


# A line matching a reference's healthy message at least this well (and better than any
# failure message) is normal output: it is set aside and matches no failure. Real healthy
# lines score 0.8-1.0 against the block written for them; 0.6 leaves room for wording.
HEALTHY_CLAIM = 0.6


# Share of the gap to 1 that a traceback through one of the reference's code paths fills.
# Like keywords, never enough on its own for a confident match.
CODE_PATH_WEIGHT = 0.25


# Below this a reference is not reported at all. Low on purpose: a reference that only
# shares a rare title word is still a lead when nothing else matches; `confident`, not
# presence, is what says a match is good.
MIN_REPORT_SCORE = 0.05


# token_set_ratio (0-100) below this is not a message match; rapidfuzz skips it early.
SET_CUTOFF = 35.0


# At most this share of the index (and at least CANDIDATE_MIN lines) is compared with one
# query line, highest coverage first; with 0.4 the prefilter keeps recall@5 >= 0.99
# against an exhaustive scan (bench/).
CANDIDATE_SHARE = 0.4


CANDIDATE_MIN = 64


# Weight of token set alone in the similarity; the rest is coverage. Lower floors make
# a generic line (`step 5 loss 2.3 lr 1e-4`) score lower against a template that holds
# those words among many others (0.50 at 0.4 against 0.72 at 0.7).
COVERAGE_FLOOR = 0.4


# Bounds on a score are taken this much loose (relative), so a
# sum rounded another way never puts a reference that counts under one.
CEILING_SLACK = 1 + 1e-9


# Share of the gap to 1 that title/tags/summary overlap may fill.
KEYWORD_WEIGHT = 0.30


# Rare shared keywords (each weighs 0-1 by its rarity among references) that count as
# full title/tags/summary overlap.
KEYWORD_SATURATION = 3.0


# A message line matching below this is noise; the reference may still come in on its
# title, tags or summary.
MIN_MESSAGE_SIMILARITY = 0.1


# A single-message paste beyond these is a log: use scan_log.
MAX_MATCH_CHARS = 2 * 1024 * 1024


MAX_MATCH_LINES = 2_000


@dataclass(frozen=True, slots=True)
class LineScore:
    """How well one query line matched one reference's best message line."""

    ref: int
    entry: int
    similarity: float
    token_set: float
    coverage: float


class LineScores(list[LineScore]):
    """The best failure or diagnostic message line of each reference for one query line,
    best first, and the best healthy message line of any reference (`healthy`).

    Every message line whose similarity reaches `exact_above` was compared (0: every line
    sharing a token); a reference listed at or above it is at its best line, and when
    `complete` every reference with a line is listed at its best. `key`,
    `query` and `mass` are the query line's, for scoring a reference's lines later
    (`bounded.best_line`)."""

    healthy: LineScore | None = None
    exact_above: float = 0.0
    complete: bool = True
    key: str = ""
    query: tuple[str, ...] = ()
    mass: float = 0.0

    _by_ref: dict[int, LineScore] | None = None

    def of(self, ref: int) -> LineScore | None:
        """The line listed for a reference, if any."""
        if self._by_ref is None:
            self._by_ref = {line.ref: line for line in self}
        return self._by_ref.get(ref)

    def claimed_healthy(self) -> LineScore | None:
        """The healthy message this line is, when it matches one well and better than any
        failure: then it is normal output and matches no failure at all."""
        healthy = self.healthy
        if healthy is None or healthy.similarity < HEALTHY_CLAIM:
            return None
        return healthy if not self or healthy.similarity >= self[0].similarity else None


# A message line's (similarity, entry, token set, coverage); _NONE is no line.
Found = tuple[float, int, float, float]
_NONE: Found = (-1.0, -1, 0.0, 0.0)


def score_line(index: MatchIndex, key: str, exhaustive: bool = False) -> LineScores:
    """The best message line of each reference for one query key, best first.

    Only lines sharing an informative token with the key can match (`prefilter`); the
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
    healthy, _ = compare_lines(index, key, entries, shared, mass, best, _NONE)
    return line_scores(index, best, healthy, exact_above)


def similarity_bound(line_coverage: float) -> float:
    """The most a line of this coverage can score: its similarity with token set at 1."""
    return COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * line_coverage


def line_scores(
    index: MatchIndex, best: dict[int, Found], healthy: Found, exact_above: float
) -> LineScores:
    """The scores `compare_lines` found, best first."""
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    scores = LineScores(
        LineScore(ref, entry, sim, token_set, cov) for ref, (sim, entry, token_set, cov) in ranked
    )
    scores.exact_above = exact_above
    scores.complete = exact_above <= 0.0
    similarity, entry, token_set, found_coverage = healthy
    if entry >= 0:
        scores.healthy = LineScore(
            index.entry_refs[entry], entry, similarity, token_set, found_coverage
        )
    return scores


def compare_lines(
    index: MatchIndex,
    key: str,
    entries: Sequence[int],
    shared: Mapping[int, float],
    mass: float,
    best: dict[int, Found],
    healthy: Found,
) -> tuple[Found, list[int]]:
    """Score some message lines against the key: the best of each reference into `best`.
    Returns the best healthy line so far and the references whose best line got better.

    Of two lines that score the same, the one with the higher token set wins, then the
    earlier one: the order `process.extract` gives lines in, so lines compared in any
    order and in any batches end where comparing them all at once does."""
    found = process.extract(
        key,
        [index.entry_keys[entry] for entry in entries],
        scorer=fuzz.token_set_ratio,
        processor=None,
        score_cutoff=SET_CUTOFF,
        limit=None,
    )
    masses, refs, kinds = index.entry_masses, index.entry_refs, index.entry_kinds
    improved: list[int] = []
    for _, token_set, position in found:
        entry = entries[position]
        line_coverage = coverage(shared[entry], mass, masses[entry])
        similarity = token_set / 100 * similarity_bound(line_coverage)
        if similarity < MIN_MESSAGE_SIMILARITY:
            continue
        line = (similarity, entry, token_set / 100, line_coverage)
        if kinds[entry] == "healthy":
            if better(line, healthy):
                healthy = line
            continue
        ref = refs[entry]
        if better(line, best.get(ref, _NONE)):
            best[ref] = line
            improved.append(ref)
    return healthy, improved


def better(line: Found, than: Found) -> bool:
    """Whether `line` beats `than`: more similar, or as similar with a higher token set,
    or the same with an earlier line."""
    if line[0] != than[0]:
        return line[0] > than[0]
    return line[2] > than[2] or (line[2] == than[2] and line[1] < than[1])
