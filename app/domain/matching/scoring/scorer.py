"""The score of each reference for one query: its best line's similarity (the search room
found it), the gap to 1 partly filled by title/tag/summary keywords and code paths, then
moved a few per cent by the run's context. `Scorer` also bounds what that can make of a
similarity, per reference and for all at once: it is the `search.bounds.ScoreBounds` the
bounded search asks.

base = similarity + (1 - similarity) x (KEYWORD_WEIGHT x keyword overlap + CODE_PATH_WEIGHT
when a frame runs through one of its code paths); score = base x (1 + context offset), the
offset within [-MAX_DROP, +MAX_LIFT] (`index.context_terms`). Keywords and code paths fill
part of the gap and context moves a score by a few per cent, so none makes a match on its
own; a reference that only shares rare title words is reported with a low score.
References are walked best similarity first and the walk stops once no later one can reach
the top `limit`, so a query touching thousands of references scores few.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..index.context_terms import AGREE_STEP, MAX_LIFT, ContextVerdict
from ..index.match_index import MatchIndex
from ..index.prefilter import ARRAYS_FROM, summed
from ..reading.context import QueryContext
from ..reading.evidence import Level
from ..search.bounds import CEILING_SLACK
from ..search.compare import LineScore

# Share of the gap to 1 that a traceback through one of the reference's code paths fills.
# Like keywords, never enough on its own for a confident match.
CODE_PATH_WEIGHT = 0.25


# Below this a reference is not reported at all. Low on purpose: a reference that only
# shares a rare title word is still a lead when nothing else matches; `confident`, not
# presence, is what says a match is good.
MIN_REPORT_SCORE = 0.05


# Share of the gap to 1 that title/tags/summary overlap may fill.
KEYWORD_WEIGHT = 0.30


# Rare shared keywords (each weighs 0-1 by its rarity among references) that count as
# full title/tags/summary overlap.
KEYWORD_SATURATION = 3.0


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
        offsets: dict[int, ContextVerdict] | None = None,
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
        self.lift = 1 + min(MAX_LIFT, AGREE_STEP * context.count())

    def offset(self, ref: int) -> ContextVerdict:
        found = self.offsets.get(ref)
        if found is None:
            given, inferred = self.context.key
            found = self.offsets[ref] = self.index.verdicts.of(ref, given, inferred)
        return found

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
                self._sums = summed(held, size).tolist()
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
        """The share of the gap to 1 that keywords and code paths fill (`base` of a
        similarity of 0, the same float, read inline: the bounded search asks it of
        thousands of references)."""
        code = CODE_PATH_WEIGHT if ref in self.code_paths else 0.0
        return KEYWORD_WEIGHT * min(1.0, self.keyword_sums()[ref] / KEYWORD_SATURATION) + code

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

    def without_a_line(
        self, refs: Iterable[int], found: Mapping[int, Scored], keep: int, floor: float
    ) -> dict[int, Scored]:
        """Scores of references no line matched, that come in on title words or code paths
        alone, among those that can reach the best `keep` of what lines `found`."""
        kept = heapq.nlargest(keep, (scored.raw for scored in found.values()))
        lowest = kept[-1] if len(kept) == keep else floor
        ceiling = self.lift * CEILING_SLACK
        scores: dict[int, Scored] = {}
        for ref in refs:
            if self.gap(ref) * ceiling < lowest:
                continue  # cannot be among the best `keep`: its context verdict costs ~30 us
            raw = self.raw(ref, 0.0)
            if raw >= floor:
                scores[ref] = Scored(raw, None)
        return scores

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
