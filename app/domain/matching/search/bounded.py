"""Score one query line of a paste against only the message lines that can change its answer.

A message line's similarity is at most its bound, `compare.similarity_bound` of its
coverage (token set is at most 1; `index.prefilter`), and a reference's score at most what
keywords, code paths and the run's context can make of that similarity
(`ScoreBounds.ceiling`, which `scoring.Scorer` gives); the lengths of a line's tokens and
of those it shares cap its token set ratio too (`ratio_bound`, a tight bound worked out
for every line at once). So `search_line` compares lines highest bound first, in growing
batches (`walk`), each once its tight bound reaches what is needed, and stops once no line
left could

- enter the paste's best `limit`: the `limit`-th best score found so far, on this line and
  the lines before it, is a floor under the final one, so a line whose ceiling is below it
  cannot count (`PasteBar`);
- change whether the line is a reference's healthy message, or which one
  (`LineScores.claimed_healthy`): that needs the best healthy line when it could reach
  HEALTHY_CLAIM or the best failure line, and the best failure line when it could pass it.

What `match_text` answers is then what comparing every line gives (`exhaustive`); the
lines left out matter only to a symptom's candidate causes (a neighbour line matching a
cause's own message), and `LineScores.best_line` compares those for the few references
asked about.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import cast

import numpy as np
from numpy.typing import NDArray

from ..index.match_index import MatchIndex
from ..index.prefilter import (
    SharedArrays,
    held_postings,
    query_mass,
    query_tokens,
    shared_arrays,
    summed_lines,
)
from ..reading.tokens import set_chars
from .bounds import CEILING_SLACK, RawScore, ScoreBounds
from .budgeted import CANDIDATE_MIN
from .compare import (
    COVERAGE_FLOOR,
    HEALTHY_CLAIM,
    NO_LINE,
    Found,
    LineScores,
    compare_lines,
    line_scores,
)
from .walk import walk

Chars = NDArray[np.intp] | NDArray[np.float64]  # characters, one count per line

# At most this share of the index's message lines, and at least MIN_LOOKED_AT, are looked
# at for one query line, highest bound first. Only a line that matches nothing well gets
# this far (a good match raises the bar past most lines): at 10,000 references such a line
# shares a token with ~8,000 lines, at 1,000 with ~800 of 2,000, and comparing them all
# costs more than the one-call baseline. Recall@5 against comparing every line, over the
# bench's queries and the labelled lines: 1.0000 and 1.0000 at 1,000 references with 256
# (0.9957 with 128), 1.0000 and 0.9979 at 10,000 with 1,500 (0.9785 and 0.9718 with 512).
# At the shipped 73 references (950 message lines) 256 left the fifth answer of one
# labelled query short of comparing every line (a line sharing only `failed` with ggml's
# `<path>:<n>: GGML_ASSERT(<word>) failed`, lifted by the run's context): 384 answers
# every labelled query as comparing every line does, at the same p99.
MAX_LOOKED_AT_SHARE = 0.075
MIN_LOOKED_AT = 384

# A line whose informative tokens the message lines hold this many times or fewer (token,
# line pairs) is compared with every line holding one, at once: cheaper than working out
# which can count.
COMPARE_ALL_BELOW = 256

# After each batch the most similar LIFTED_PER_BATCH x keep references it improved are scored
# in full to raise the bar.
LIFTED_PER_BATCH = 4


class PasteBar:
    """The score a reference must reach to be among a paste's best `keep`, from what the
    lines scored so far found (`found`, the paste's best score per reference)."""

    def __init__(
        self, scorer: ScoreBounds, keep: int, floor: float, found: Mapping[int, RawScore]
    ) -> None:
        self.scorer = scorer
        self.keep = keep
        self.floor = floor
        self.found = found

    def line(self) -> _LineBar:
        """The bar for the next line, starting from the best of the lines before it."""
        best = heapq.nlargest(self.keep, self.found.items(), key=lambda item: item[1].raw)
        return _LineBar(self, {ref: scored.raw for ref, scored in best})


class _LineBar:
    """What one line has found so far, and the bound a line left must reach to count."""

    def __init__(self, paste: PasteBar, reached: dict[int, float]) -> None:
        self.paste = paste
        self.scorer = paste.scorer
        self.reached = reached  # at most `keep` references' scores, each a floor under theirs
        self.score = paste.floor
        self.best: dict[int, Found] = {}
        self.healthy: Found = NO_LINE
        self.top = -1.0  # the best failure or diagnostic similarity so far
        self._settle()

    def compare(
        self, index: MatchIndex, key: str, entries: list[int], shared: dict[int, float], mass: float
    ) -> None:
        """Score these lines and raise the bar by what they found."""
        self.healthy, improved = compare_lines(
            index, key, entries, shared, mass, self.best, self.healthy
        )
        scorer, reached, best = self.scorer, self.reached, self.best
        lift = scorer.lift * CEILING_SLACK
        if improved:
            self.top = max(self.top, max(best[ref][0] for ref in improved))
        # Any references' scores give a floor; the most similar are the likeliest best, and
        # scoring a few keeps this cheap where thousands of weak lines came in.
        for ref in heapq.nlargest(
            LIFTED_PER_BATCH * self.paste.keep, improved, key=lambda r: best[r][0]
        ):
            similarity = best[ref][0]
            if scorer.ceiling(similarity) < self.score:
                continue
            base = scorer.base(ref, similarity)
            if base * lift < self.score:
                continue
            raw = base * (1 + scorer.offset(ref)[0])
            if raw > reached.get(ref, -1.0):
                reached[ref] = raw
        self._settle()

    def _settle(self) -> None:
        keep = self.paste.keep
        if len(self.reached) >= keep:
            kept = heapq.nlargest(keep, self.reached.items(), key=lambda item: item[1])
            self.reached = dict(kept)
            self.score = max(self.paste.floor, kept[-1][1])

    def needed(self) -> float:
        """The bound below which no line left can change this line's answer."""
        healthy = self.healthy[0]
        if healthy >= HEALTHY_CLAIM and healthy >= self.top:
            return healthy  # a healthy line, unless a line left scores as well or better
        return min(max(HEALTHY_CLAIM, self.top), self.score)


def search_line(index: MatchIndex, key: str, bar: PasteBar) -> LineScores:
    """The best message line of each reference for one query key that can count for the
    paste (best first), comparing only the lines that can change that."""
    query = query_tokens(key)
    if not query or not index.entry_keys:
        return LineScores()
    mass = query_mass(index, query)
    held = held_postings(index, query)
    if sum(len(lines) for _, lines, _ in held) <= COMPARE_ALL_BELOW:  # summed faster one by one
        return _compared_all(index, key, query, summed_lines(held), mass)
    found = shared_arrays(index, held)
    entries = found.lines.tolist()
    shared = dict(zip(entries, found.masses.tolist(), strict=True))
    tight = line_bounds(index, bar.scorer, set_chars(key, query), found, mass)
    most = max(MIN_LOOKED_AT, int(len(index.entry_keys) * MAX_LOOKED_AT_SHARE))
    # Where `most` can cut the walk short, the loose bounds (at a ratio of 1) order it: they
    # reach the most similar lines soonest (ordered by the tight ones, 20 of the bench's
    # 1,000 answers at 1,000 references lost a reference). Where every line fits, the
    # tight ones do, and fewer lines are compared.
    ordering = (
        tight
        if len(entries) <= most
        else _ceilings(index, bar.scorer, found.lines, found.masses, mass, 1.0)
    )
    order = np.argsort(-ordering, kind="stable").tolist()  # as sorted(reverse=True) orders
    line = bar.line()

    def compare(batch: list[int]) -> None:
        line.compare(index, key, batch, shared, mass)

    tight_list = tight.tolist()
    bounds = tight_list if ordering is tight else ordering.tolist()
    exact_above = walk(
        entries, bounds, tight_list, order, compare, line.needed, CANDIDATE_MIN, most
    )
    kept = _that_can_count(bar.scorer, line.best, line.score)
    scores = line_scores(index, kept, line.healthy, max(0.0, exact_above), len(query))
    scores.complete = scores.complete and len(kept) == len(line.best)
    scores.key, scores.query, scores.mass = key, query, mass
    return scores


def line_bounds(
    index: MatchIndex, scorer: ScoreBounds, query: tuple[int, int], found: SharedArrays, mass: float
) -> NDArray[np.float64]:
    """The most each line sharing a token with the query (`found`) can make its reference
    score, its token set ratio at most `ratio_bound` of the query's characters (`query`,
    from `tokens.set_chars`) and its own; for a healthy line, its similarity bound."""
    chars = index.line_arrays.chars[found.lines]
    ratios = ratio_bound(*query, chars[:, 0], chars[:, 1], found.chars)
    return _ceilings(index, scorer, found.lines, found.masses, mass, ratios)


def _compared_all(
    index: MatchIndex, key: str, query: tuple[str, ...], shared: dict[int, float], mass: float
) -> LineScores:
    """Every line sharing a token compared at once: cheaper than working out which can
    count, for a few hundred."""
    best: dict[int, Found] = {}
    healthy, _ = compare_lines(index, key, sorted(shared), shared, mass, best, NO_LINE)
    scores = line_scores(index, best, healthy, 0.0, len(query))
    scores.key, scores.query, scores.mass = key, query, mass
    return scores


def _that_can_count(scorer: ScoreBounds, best: dict[int, Found], bar: float) -> dict[int, Found]:
    """The references whose best line can reach the paste's bar, and the most similar one
    (the healthy claim weighs a healthy line against it); a weak line finds thousands of
    references that cannot, and `Scorer.ranked` would walk them all."""
    if len(best) <= CANDIDATE_MIN:
        return best
    gap = scorer.gap
    lift = scorer.lift * CEILING_SLACK
    top = max(best, key=lambda ref: best[ref][0])
    kept: dict[int, Found] = {}
    for ref, found in best.items():
        similarity = found[0]
        if (similarity + (1 - similarity) * gap(ref)) * lift >= bar or ref == top:
            kept[ref] = found
    return kept


def _ceilings(
    index: MatchIndex,
    scorer: ScoreBounds,
    lines: NDArray[np.intp],
    shared: NDArray[np.float64],
    mass: float,
    ratios: NDArray[np.float64] | float,
) -> NDArray[np.float64]:
    """The bound of each of these lines, sharing `shared` mass with the query and with a
    token set ratio of at most `ratios` (0-1): the most its reference can score on it, or
    for a healthy line (it is never scored) its similarity bound. Either is at least the
    similarity bound (at a ratio of 1)."""
    arrays = index.line_arrays
    floor, rest = COVERAGE_FLOOR, 1 - COVERAGE_FLOOR
    bound = ratios * (floor + rest * (2 * shared / (mass + arrays.masses[lines])))
    lift = scorer.lift * CEILING_SLACK
    lifted = (bound + (1 - bound) * scorer.gaps()[arrays.refs[lines]]) * lift
    return np.where(arrays.healthy[lines], bound * CEILING_SLACK, lifted)


def ratio_bound(
    whole: int, other: int, line_whole: Chars, line_other: Chars, shared: Chars
) -> NDArray[np.float64]:
    """The most rapidfuzz's `token_set_ratio` (0-1) can be between a query and lines whose
    distinct tokens measure `whole` and `line_whole` (characters and one separator each),
    `other` and `line_other` of it not informative, sharing informative tokens that
    measure `shared` (one of each per line).

    The ratio is the best of three: the tokens both hold against those and either side's
    own, 2s / (2s + 1 + d) for joined lengths s and d, which grows with s; and one side's
    own tokens against the other's, whose Indel distance is at least their difference in
    length, their lengths summing to a constant with the tokens both hold. Only how much of
    the non-informative tokens both hold is unknown: at most all of the smaller side's.
    """
    both = shared + np.minimum(other, line_other)  # the shared tokens joined, one separator
    within = 2 * (both - 1) / (both + np.minimum(whole, line_whole) - 2)
    apart = 1 - np.abs(whole - line_whole) / (whole + line_whole - 2)
    return cast(NDArray[np.float64], np.maximum(within, apart))
