"""Comparing one query line with message lines: the one place a line's similarity to a
message line is worked out, for whichever lines the searches of this room choose.

A message line's similarity is token set x (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) x
coverage): one vectorised `rapidfuzz.process.extract` call gives the token set ratio of
every line (a line holding the whole template, or a template holding the whole line,
scores high; below SET_CUTOFF it is no match), and coverage is the Dice overlap of both
sides' IDF-weighted informative tokens (`index.prefilter.coverage`), so a short generic
line is not a perfect match for every template that contains its words. A message line of
one telling word (`Fabric`'s `Status : <word>`, faulthandler's `Timeout`) is contained in
every line that says the word, so its token set says nothing: coverage alone counts
(`entry_bound`, never above `similarity_bound`, so the searches' bounds still hold). The
best message line per reference counts (`LineScores`).

Healthy message lines are compared too, and kept apart: `LineScores.claimed_healthy` says
when a line is normal output.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from ..index.match_index import MatchIndex
from ..index.prefilter import coverage

# A line matching a reference's healthy message at least this well (and better than any
# failure message) is normal output: it is set aside and matches no failure. Real healthy
# lines score 0.8-1.0 against the block written for them; 0.6 leaves room for wording.
HEALTHY_CLAIM = 0.6


# token_set_ratio (0-100) below this is not a message match; rapidfuzz skips it early.
SET_CUTOFF = 35.0


# Weight of token set alone in the similarity; the rest is coverage. Lower floors make
# a generic line (`step 5 loss 2.3 lr 1e-4`) score lower against a template that holds
# those words among many others (0.50 at 0.4 against 0.72 at 0.7).
COVERAGE_FLOOR = 0.4


# A message line matching below this is noise; the reference may still come in on its
# title, tags or summary.
MIN_MESSAGE_SIMILARITY = 0.1


@dataclass(frozen=True, slots=True)
class LineScore:
    """How well one query line matched one reference's best message line."""

    ref: int
    entry: int
    similarity: float
    token_set: float
    coverage: float
    words: int = 0  # the informative words of the query line (0: not counted)


class LineScores(list[LineScore]):
    """The best failure or diagnostic message line of each reference for one query line,
    best first, and the best healthy message line of any reference (`healthy`).

    Every message line whose similarity reaches `exact_above` was compared (0: every line
    sharing a token); a reference listed at or above it is at its best line, and when
    `complete` every reference with a line is listed at its best. `key`,
    `query` and `mass` are the query line's, for comparing a reference's lines later
    (`best_line`)."""

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

    def best_line(self, index: MatchIndex, ref: int) -> LineScore | None:
        """A reference's best failure or diagnostic line for the query line these scores
        are of, as comparing every line lists it; compared here when the search left it out
        (a symptom's candidate causes ask for lines that could not change the answer)."""
        listed = self.of(ref)
        if self.complete or (listed is not None and listed.similarity >= self.exact_above):
            return listed
        weights, kinds = index.entry_weights, index.entry_kinds
        best = NO_LINE
        first = bisect_left(index.entry_refs, ref)
        for entry in range(first, bisect_right(index.entry_refs, ref, first)):
            if kinds[entry] == "healthy":
                continue
            held = weights[entry]
            shared = 0.0
            for token in self.query:
                if token in held:
                    shared += index.idf[token]
            if not shared:
                continue  # no token in common: never compared
            found = _compared_one(index, self, entry, shared)
            if found is not None and better(found, best):
                best = found
        if best[1] < 0:
            return None
        similarity, entry, token_set, line_coverage = best
        return LineScore(ref, entry, similarity, token_set, line_coverage, len(self.query))


# A message line's (similarity, entry, token set, coverage); NO_LINE is no line.
Found = tuple[float, int, float, float]
NO_LINE: Found = (-1.0, -1, 0.0, 0.0)


def similarity_bound(line_coverage: float) -> float:
    """The most a line of this coverage can score: its similarity with token set at 1."""
    return COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * line_coverage


def entry_bound(line_coverage: float, telling_words: int) -> float:
    """What token set is multiplied by for a message line of this many telling words: a
    line of one word is contained in every line that says it, so only coverage counts."""
    return line_coverage if telling_words == 1 else similarity_bound(line_coverage)


def line_scores(
    index: MatchIndex, best: dict[int, Found], healthy: Found, exact_above: float, words: int
) -> LineScores:
    """The scores `compare_lines` found, best first, for a query line of `words`
    informative words."""
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    scores = LineScores(
        LineScore(ref, entry, sim, token_set, cov, words)
        for ref, (sim, entry, token_set, cov) in ranked
    )
    scores.exact_above = exact_above
    scores.complete = exact_above <= 0.0
    similarity, entry, token_set, found_coverage = healthy
    if entry >= 0:
        scores.healthy = LineScore(
            index.entry_refs[entry], entry, similarity, token_set, found_coverage, words
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
    weights = index.entry_weights
    improved: list[int] = []
    for _, token_set, position in found:
        entry = entries[position]
        line_coverage = coverage(shared[entry], mass, masses[entry])
        similarity = token_set / 100 * entry_bound(line_coverage, len(weights[entry]))
        if similarity < MIN_MESSAGE_SIMILARITY:
            continue
        line = (similarity, entry, token_set / 100, line_coverage)
        if kinds[entry] == "healthy":
            if better(line, healthy):
                healthy = line
            continue
        ref = refs[entry]
        if better(line, best.get(ref, NO_LINE)):
            best[ref] = line
            improved.append(ref)
    return healthy, improved


def better(line: Found, than: Found) -> bool:
    """Whether `line` beats `than`: more similar, or as similar with a higher token set,
    or the same with an earlier line."""
    if line[0] != than[0]:
        return line[0] > than[0]
    return line[2] > than[2] or (line[2] == than[2] and line[1] < than[1])


def _compared_one(index: MatchIndex, scores: LineScores, entry: int, shared: float) -> Found | None:
    token_set = fuzz.token_set_ratio(
        scores.key, index.entry_keys[entry], processor=None, score_cutoff=SET_CUTOFF
    )
    if token_set < SET_CUTOFF:
        return None
    line_coverage = coverage(shared, scores.mass, index.entry_masses[entry])
    similarity = token_set / 100 * entry_bound(line_coverage, len(index.entry_weights[entry]))
    if similarity < MIN_MESSAGE_SIMILARITY:
        return None
    return similarity, entry, token_set / 100, line_coverage
