"""Rank references against one pasted message (pure: no database, no HTTP).

One query line is compared with the reference message lines in four steps:

1. **Prefilter.** An inverted index maps each informative token (not a placeholder, not
   a stop word) to the message lines that hold it. The query's tokens are taken rarest
   first until the candidates would pass `CANDIDATE_SHARE` of the index; only message
   lines sharing one of them go on. Set unions in C, no Python loop over references.
2. **Fuzzy stage.** One vectorised `rapidfuzz.process.extract` call scores the survivors
   with `token_set_ratio` (a line holding the whole template, or a template holding the
   whole line, scores high), `score_cutoff=SET_CUTOFF`, best `RERANK_LIMIT` kept.
3. **Similarity.** similarity = token_set x (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) x
   coverage), coverage being the Dice overlap of both sides' IDF-weighted informative
   tokens, so a short generic line is not a perfect match for every template that
   contains its words. The best message line per reference counts.
4. **Score.** base = similarity + (1 - similarity) x KEYWORD_WEIGHT x keyword overlap
   (title, tags, summary); score = base x (1 + context offset), the offset within
   [-MAX_DROP, +MAX_LIFT] of `context`. Keywords fill at most 30% of the gap and
   context moves a score by a few per cent, so neither makes a match on its own; a
   reference that only shares rare title words is reported with a low score.
   References are walked best similarity first and the walk stops once no later one
   can reach the top `limit`, so a query touching thousands of references scores few.

A pasted block (a traceback, an NCCL error block) is split into lines; frames, source
echoes and `Exception raised from` lines are dropped and each remaining line is scored,
the best line per reference counting. A whole log goes through `scan` instead.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from app.config import DEFAULT_MATCH_LIMIT
from app.domain.matching.context import (
    MAX_LIFT,
    RunContext,
    context_adjustment,
    infer_context,
    merge_context,
)
from app.domain.matching.index import MatchIndex, comparison_key
from app.domain.matching.lines import count_lines, query_lines
from app.domain.matching.results import Match, MatchResult
from app.domain.matching.tokens import informative, keyword_stems
from app.errors import LogTooLarge

# When a match is confident. Chosen on the labelled set (tests/data/labelled: 107 lines of
# 15 references, 29 unrelated lines; tests/content/test_labelled_set.py). The best score of
# every unrelated line is at most 0.40, and of a wrong top-1 at most 0.34 but for one
# metrics line two references share (0.84). Lines between 0.4 and 0.7 are partial matches (a
# neighbouring line of the failure, a metric name): leads, not proof. 0.70 keeps a 0.30
# margin over every unrelated line, leaves 84 of 99 correct top-1 lines confident, and gives
# the shipped references no confident collision (0.65 would flag one: a bare `GPU KV cache
# size` line against kv-cache-exhaustion).
CONFIDENT_THRESHOLD = 0.70


# Below this a reference is not reported at all. Low on purpose: a reference that only
# shares a rare title word is still a lead when nothing else matches; `confident`, not
# presence, is what says a match is good.
MIN_REPORT_SCORE = 0.05


# token_set_ratio (0-100) below this is not a message match; rapidfuzz skips it early.
SET_CUTOFF = 35.0


# Message lines the fuzzy stage passes on to the full similarity per query line. The
# final order (token set x coverage) differs from token set alone, so this is generous.
RERANK_LIMIT = 3000


# Candidates may take this share of the index before rarer tokens alone decide; with
# 0.4 the prefilter keeps recall@5 >= 0.99 against an exhaustive scan (bench/).
CANDIDATE_SHARE = 0.4


# Weight of token set alone in the similarity; the rest is coverage. Lower floors make
# a generic line (`step 5 loss 2.3 lr 1e-4`) score lower against a template that holds
# those words among many others (0.50 at 0.4 against 0.72 at 0.7).
COVERAGE_FLOOR = 0.4


# Share of the gap to 1 that title/tags/summary overlap may fill.
KEYWORD_WEIGHT = 0.30


# Rare shared keywords (each weighs 0-1 by its rarity among references) that count as
# full title/tags/summary overlap.
KEYWORD_SATURATION = 3.0


# A keyword held by more than this share of references, or by more than this many, does
# not nominate candidates: it says too little, and scoring hundreds of references on
# keywords alone would cost more than the message search.
KEYWORD_CANDIDATE_SHARE = 0.20


KEYWORD_CANDIDATE_MAX = 32


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


def score_line(index: MatchIndex, key: str, exhaustive: bool = False) -> list[LineScore]:
    """The best message line of each reference for one query key, best first.

    `exhaustive` skips the prefilter and gives every message line past `SET_CUTOFF` its
    full similarity; otherwise the best `RERANK_LIMIT` by token set among the candidates do.
    """
    tokens = set(informative(key.split()))
    if not tokens or not index.entry_keys:
        return []
    if exhaustive:
        entries: Sequence[int] = range(len(index.entry_keys))
        choices: Sequence[str] = index.entry_keys
    else:
        entries = _candidates(index, tokens)
        choices = [index.entry_keys[entry] for entry in entries]
    found = process.extract(
        key,
        choices,
        scorer=fuzz.token_set_ratio,
        processor=None,
        score_cutoff=SET_CUTOFF,
        limit=None if exhaustive else RERANK_LIMIT,
    )
    query_mass = sum(index.idf.get(t, index.unknown_idf) for t in tokens)
    query = tuple(tokens)
    weights, masses, refs = index.entry_weights, index.entry_masses, index.entry_refs
    best: dict[int, tuple[float, int, float, float]] = {}
    for _, token_set, position in found:
        entry = entries[position]
        shared = sum(filter(None, map(weights[entry].get, query)))
        if not shared:
            continue  # sharing only placeholders and stop words is not a match
        # Dice on IDF mass: the share of both sides' informative words the other holds.
        coverage = 2 * shared / (query_mass + masses[entry])
        similarity = token_set / 100 * (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * coverage)
        ref = refs[entry]
        if similarity >= MIN_MESSAGE_SIMILARITY and similarity > best.get(ref, _NONE)[0]:
            best[ref] = (similarity, entry, token_set / 100, coverage)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    return [
        LineScore(ref, entry, sim, token_set, cov) for ref, (sim, entry, token_set, cov) in ranked
    ]


_NONE = (-1.0, -1, 0.0, 0.0)


def _candidates(index: MatchIndex, tokens: set[str]) -> list[int]:
    """Entries sharing one of the query's rarer tokens, in index order."""
    lists = sorted((index.postings[t] for t in tokens if t in index.postings), key=len)
    budget = max(64, int(len(index.entry_keys) * CANDIDATE_SHARE))
    chosen: list[frozenset[int]] = []
    total = 0
    for ids in lists:
        if chosen and total + len(ids) > budget:
            break
        chosen.append(ids)
        total += len(ids)
    return sorted(frozenset().union(*chosen))


def keyword_overlap(index: MatchIndex, ref: int, stems: set[str]) -> tuple[float, list[str]]:
    """How much the query shares with a reference's title, tags and summary, 0-1, and what."""
    shared = sorted(stems & index.keywords[ref])
    weight = sum(index.keyword_weights[token] for token in shared)
    return min(1.0, weight / KEYWORD_SATURATION), shared


def keyword_candidates(index: MatchIndex, stems: set[str]) -> set[int]:
    """References whose title, tags or summary hold one of the query's rarer words."""
    limit = min(KEYWORD_CANDIDATE_MAX, max(1, int(len(index.references) * KEYWORD_CANDIDATE_SHARE)))
    found: set[int] = set()
    for token in stems:
        refs = index.keyword_postings.get(token)
        if refs is not None and len(refs) <= limit:
            found.update(refs)
    return found


@dataclass(frozen=True, slots=True)
class _Scored:
    """A reference's score for a query, with what it rests on."""

    raw: float  # may pass 1 by context; kept for ordering
    line: LineScore | None  # None: only title, tags or summary matched
    span: tuple[int, int] | None


class Scorer:
    """Final scores for one query: message similarity, keywords and context per reference."""

    def __init__(
        self,
        index: MatchIndex,
        stems: set[str],
        fields: dict[str, str],
        context: dict[int, tuple[float, list[str]]] | None = None,
    ) -> None:
        self.index = index
        self.stems = stems
        self.fields = fields
        # Context verdicts per reference, shared by the scorers of one scan.
        self.context = {} if context is None else context

    def offset(self, ref: int) -> tuple[float, list[str]]:
        if ref not in self.context:
            self.context[ref] = context_adjustment(self.index.references[ref], self.fields)
        return self.context[ref]

    def raw(self, ref: int, similarity: float) -> float:
        overlap, _ = keyword_overlap(self.index, ref, self.stems)
        base = similarity + (1 - similarity) * KEYWORD_WEIGHT * overlap
        return base * (1 + self.offset(ref)[0])

    def ranked(self, lines: Sequence[LineScore], keep: int | None, floor: float) -> list[_Scored]:
        """Scores of the references that can reach the best `keep` (all when None).

        `lines` come best similarity first, and keywords and context can lift a score
        only so far, so the walk stops once no later reference can catch up: a query
        that touches thousands of references scores a handful.
        """
        found: list[_Scored] = []
        best: list[float] = []  # min-heap of the `keep` best raw scores so far
        lift = 1 + MAX_LIFT
        for line in lines:
            ceiling = (line.similarity + (1 - line.similarity) * KEYWORD_WEIGHT) * lift
            bar = max(floor, best[0]) if keep is not None and len(best) >= keep else floor
            if ceiling < bar:
                break
            overlap, _ = keyword_overlap(self.index, line.ref, self.stems)
            base = line.similarity + (1 - line.similarity) * KEYWORD_WEIGHT * overlap
            if base * lift < bar:
                continue  # cannot catch up even with every context field agreeing
            raw = base * (1 + self.offset(line.ref)[0])
            if raw < floor:
                continue
            found.append(_Scored(raw, line, None))
            if keep is not None:
                heapq.heappush(best, raw)
                if len(best) > keep:
                    heapq.heappop(best)
        return found

    def reasons(self, scored: _Scored, ref: int) -> list[str]:
        _, shared = keyword_overlap(self.index, ref, self.stems)
        line = scored.line
        reasons = [
            _message_reason(self.index, line)
            if line is not None
            else "matched on title, tags or summary only"
        ]
        if shared:
            reasons.append(f"title, tags or summary share: {', '.join(shared[:6])}")
        reasons.extend(self.offset(ref)[1])
        if scored.span is not None:
            reasons.append(f"matched characters {scored.span[0]}-{scored.span[1]} of the text")
        return reasons


def _message_reason(index: MatchIndex, line: LineScore) -> str:
    reference = index.references[line.ref]
    number = index.entry_messages[line.entry]
    return (
        f"message {number + 1} (line {reference.messages[number].line} of {reference.path}) "
        f"matched {line.similarity:.0%}: token set {line.token_set:.0%}, "
        f"coverage {line.coverage:.0%}"
    )


def match_text(
    index: MatchIndex,
    text: str,
    context: RunContext | None = None,
    limit: int = DEFAULT_MATCH_LIMIT,
    exhaustive: bool = False,
) -> MatchResult:
    """Rank references for a pasted message (one line or a block such as a traceback).

    `exhaustive` skips the prefilter; benchmarks and tests compare the two.
    """
    line_count = count_lines(text)
    if len(text) > MAX_MATCH_CHARS or line_count > MAX_MATCH_LINES:
        raise LogTooLarge(
            f"{len(text)} characters in {line_count} lines is over the limit for one message "
            f"({MAX_MATCH_CHARS} characters, {MAX_MATCH_LINES} lines); scan it as a log instead"
        )
    inferred = infer_context(text) if text.strip() else {}
    lines = query_lines(text)
    if not lines or limit <= 0:
        normalized_text = "\n".join(normalized for _, _, normalized in lines)
        return MatchResult(normalized=normalized_text, inferred_context=inferred, matches=[])
    tokens = {t for _, _, normalized in lines for t in informative(_key_tokens(normalized))}
    scorer = Scorer(index, keyword_stems(tokens), merge_context(context, inferred))
    best: dict[int, _Scored] = {}
    # The best `limit` over all lines are among the best `limit` of some line.
    for span, _, normalized in lines:
        scores = score_line(index, comparison_key(normalized), exhaustive)
        for scored in scorer.ranked(scores, limit, MIN_REPORT_SCORE):
            if scored.line is None:
                continue
            ref = scored.line.ref
            if ref not in best or scored.raw > best[ref].raw:
                best[ref] = _Scored(scored.raw, scored.line, span)
    for ref in keyword_candidates(index, scorer.stems) - best.keys():
        raw = scorer.raw(ref, 0.0)
        if raw >= MIN_REPORT_SCORE:
            best[ref] = _Scored(raw, None, None)
    ranked = sorted(best.items(), key=lambda item: (-item[1].raw, item[0]))[:limit]
    matches = [_match(index, ref, scored, scorer.reasons(scored, ref)) for ref, scored in ranked]
    normalized_text = "\n".join(normalized for _, _, normalized in lines)
    return MatchResult(normalized=normalized_text, inferred_context=inferred, matches=matches)


def _key_tokens(normalized: str) -> list[str]:
    return comparison_key(normalized).split()


def _match(index: MatchIndex, ref: int, scored: _Scored, reasons: list[str]) -> Match:
    reference = index.references[ref]
    score = round(min(1.0, scored.raw), 3)
    message = None
    if scored.line is not None:
        message = reference.messages[index.entry_messages[scored.line.entry]].text
    return Match(
        id=reference.id,
        title=reference.title,
        summary=reference.summary,
        score=score,
        confident=score >= CONFIDENT_THRESHOLD,
        reasons=reasons,
        matched_message=message,
        matched_span=scored.span,
    )
