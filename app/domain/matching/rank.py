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

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

from app.domain.matching.context import AGREE_STEP, MAX_LIFT, QueryContext, context_adjustment
from app.domain.matching.evidence import Level
from app.domain.matching.index import MatchIndex
from app.domain.matching.prefilter import ARRAYS_FROM, by_coverage, coverage, query_of, summed

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


def keyword_overlap(index: MatchIndex, ref: int, stems: set[str]) -> tuple[float, list[str]]:
    """How much the query shares with a reference's title, tags and summary, 0-1, and what."""
    shared = sorted(stems & index.keywords[ref])
    weight = sum(index.keyword_weights[token] for token in shared)
    return min(1.0, weight / KEYWORD_SATURATION), shared


@dataclass(frozen=True, slots=True)
class Scored:
    """A reference's score for a query, with what it rests on."""

    raw: float  # may pass 1 by context; kept for ordering
    line: LineScore | None  # None: only title, tags, summary or code paths matched
    span: tuple[int, int] | None = None
    level: Level | None = None  # the level the matching line was logged at
    line_number: int = 0  # 1-based, in the text as given


class Scorer:
    """Final scores for one query: message similarity, keywords, code paths and context."""

    def __init__(
        self,
        index: MatchIndex,
        stems: set[str],
        context: QueryContext,
        code_paths: dict[int, str] | None = None,
        offsets: dict[int, tuple[float, list[str]]] | None = None,
    ) -> None:
        self.index = index
        self.stems = stems
        self.context = context
        self.code_paths = code_paths or {}
        # Context verdicts per reference, shared by the scorers of one scan.
        self.offsets = {} if offsets is None else offsets
        # The stems some reference holds, in the order keyword_overlap sums their weights;
        # each reference's sum over them is worked out for all at once, on first need (a
        # query touches thousands of references at 10,000, and the rest overlap by 0).
        postings = index.keyword_postings
        self.held = sorted(stem for stem in stems if stem in postings)
        self._sums: list[float] | None = None
        self._gaps: NDArray[np.float64] | None = None
        # What keywords and code paths can add for any reference of this query, and the
        # most its context can lift one (each field that agrees lifts by AGREE_STEP).
        overlap = min(
            1.0, sum(index.keyword_weights[stem] for stem in self.held) / KEYWORD_SATURATION
        )
        self.gap_filled = KEYWORD_WEIGHT * overlap + (CODE_PATH_WEIGHT if self.code_paths else 0)
        self.lift = 1 + min(MAX_LIFT, AGREE_STEP * len(context.fields))

    def offset(self, ref: int) -> tuple[float, list[str]]:
        if ref not in self.offsets:
            reference = self.index.references[ref]
            self.offsets[ref] = context_adjustment(reference, self.context.fields)
        return self.offsets[ref]

    def keywords(self, ref: int) -> tuple[float, list[str]]:
        """How much the query shares with the reference's title, tags and summary, and what."""
        return keyword_overlap(self.index, ref, self.stems)

    def keyword_sums(self) -> list[float]:
        """The summed weight of the query's stems each reference holds, by index number (0
        for one holding none), as keyword_overlap sums it: in `held` order, one by one or
        (for thousands of references) with `summed`, which adds in the same order."""
        if self._sums is None:
            postings, weights = self.index.keyword_postings, self.index.keyword_weights
            size = len(self.index.references)
            if sum(len(postings[stem]) for stem in self.held) < ARRAYS_FROM:
                sums = [0.0] * size
                for stem in self.held:
                    weight = weights[stem]
                    for ref in postings[stem]:
                        sums[ref] += weight
                self._sums = sums
            else:
                held = [(postings.array(stem), weights[stem]) for stem in self.held]
                found = [(refs, weight) for refs, weight in held if refs is not None]
                self._sums = summed(found, size).tolist()
        return self._sums

    def gaps(self) -> NDArray[np.float64]:
        """`gap` of every reference at once, for bounds over thousands of lines. Without
        code paths it is the keyword share alone, read inline (a bound: rounded a hair
        differently from the score, which CEILING_SLACK covers)."""
        if self._gaps is None:
            sums = np.array(self.keyword_sums())
            if self.code_paths:
                code = np.zeros(len(sums))
                code[list(self.code_paths)] = CODE_PATH_WEIGHT
                self._gaps = KEYWORD_WEIGHT * np.minimum(1.0, sums / KEYWORD_SATURATION) + code
            else:
                per_weight = KEYWORD_WEIGHT / KEYWORD_SATURATION
                self._gaps = np.where(sums < KEYWORD_SATURATION, sums * per_weight, KEYWORD_WEIGHT)
        return self._gaps

    def overlap(self, ref: int) -> float:
        """keyword_overlap's share, the same float, read from one table for all references."""
        return min(1.0, self.keyword_sums()[ref] / KEYWORD_SATURATION)

    def gap(self, ref: int) -> float:
        """The share of the gap to 1 that keywords and code paths fill (`base`)."""
        return self.base(ref, 0.0)

    def base(self, ref: int, similarity: float) -> float:
        """Similarity, with the gap to 1 partly filled by keywords and code paths."""
        overlap = self.overlap(ref)
        code = CODE_PATH_WEIGHT if ref in self.code_paths else 0.0
        return similarity + (1 - similarity) * (KEYWORD_WEIGHT * overlap + code)

    def raw(self, ref: int, similarity: float) -> float:
        return self.base(ref, similarity) * (1 + self.offset(ref)[0])

    def ceiling(self, similarity: float) -> float:
        """The most any reference can score on a line of this similarity (a hair over:
        sums in another order may round the other way)."""
        return (similarity + (1 - similarity) * self.gap_filled) * self.lift * CEILING_SLACK

    def ranked(self, lines: Sequence[LineScore], keep: int | None, floor: float) -> list[Scored]:
        """Scores of the references that can reach the best `keep` (all when None).

        `lines` come best similarity first, and keywords, code paths and context can lift
        a score only so far, so the walk stops once no later reference can catch up: a
        query that touches thousands of references scores a handful.
        """
        found: list[Scored] = []
        best: list[float] = []  # min-heap of the `keep` best raw scores so far
        lift = self.lift * CEILING_SLACK
        for line in lines:
            bar = max(floor, best[0]) if keep is not None and len(best) >= keep else floor
            if self.ceiling(line.similarity) < bar:
                break
            base = self.base(line.ref, line.similarity)
            if base * lift < bar:
                continue  # cannot catch up even with every context field agreeing
            raw = base * (1 + self.offset(line.ref)[0])
            if raw < floor:
                continue
            found.append(Scored(raw, line))
            if keep is not None:
                heapq.heappush(best, raw)
                if len(best) > keep:
                    heapq.heappop(best)
        return found
