"""Rank references against a pasted message or a whole log (pure: no database, no HTTP).

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
   [-MAX_DROP, +MAX_LIFT] of app.context. Keywords fill at most 30% of the gap and
   context moves a score by a few per cent, so neither makes a match on its own; a
   reference that only shares rare title words is reported with a low score.
   References are walked best similarity first and the walk stops once no later one
   can reach the top `limit`, so a query touching thousands of references scores few.

A pasted block (a traceback, an NCCL error block) is split into lines; frames, source
echoes and `Exception raised from` lines are dropped and each remaining line is scored,
the best line per reference counting. A whole log is grouped by normalised template
first; each distinct template is scored once, at most `FUZZY_TEMPLATE_CAP` of them,
error-looking lines first.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from app.context import (
    MAX_LIFT,
    STOPWORDS,
    RunContext,
    context_adjustment,
    infer_context,
    merge_context,
)
from app.document import Reference
from app.normalize import MAX_LINE_CHARS, normalize_line, normalize_template, strip_prefixes

__all__ = [
    "CONFIDENT_THRESHOLD",
    "LogTooLarge",
    "Match",
    "MatchIndex",
    "MatchResult",
    "RunContext",
    "ScanHit",
    "ScanResult",
    "build_index",
    "group_log_lines",
    "match_text",
    "scan_log",
]

# When a match is confident. Chosen on the labelled set (tests/data/labelled: 107 lines
# of 15 references, 29 unrelated lines; test_labelled_set.py). The best score of every
# unrelated line is at most 0.40, and of a wrong top-1 at most 0.34 but for one metrics
# line two references share (0.84). Lines between 0.4 and 0.7 are partial matches (a
# neighbouring line of the failure, a metric name): leads, not proof. 0.70 keeps a 0.30
# margin over every unrelated line, leaves 84 of 99 correct top-1 lines confident, and
# gives the shipped references no confident collision (0.65 would flag one: a bare
# `GPU KV cache size` line against kv-cache-exhaustion).
CONFIDENT_THRESHOLD = 0.70
# Below this a reference is not reported at all. Low on purpose: a reference that only
# shares a rare title word is still a lead when nothing else matches; `confident`, not
# presence, is what says a match is good.
MIN_REPORT_SCORE = 0.05
# A whole log has thousands of lines: only message matches this good become hits.
SCAN_MIN_SCORE = CONFIDENT_THRESHOLD
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
# A pasted single message gets at most this many of its lines scored (a traceback's
# telling lines); the rest are frames, echoes or repeats.
MAX_QUERY_LINES = 16
# A single-message paste beyond these is a log: use scan_log.
MAX_MATCH_CHARS = 2 * 1024 * 1024
MAX_MATCH_LINES = 2_000
# Distinct templates of one log that reach the fuzzy stage. A high-entropy paste (every
# line distinct) would otherwise cost a fuzzy search per line; the cap keeps the scan
# within a small multiple of normalising the log, and the result says it was reached.
FUZZY_TEMPLATE_CAP = 5_000
DEFAULT_MAX_LINES = 100_000

STEM_SUFFIXES = ("ions", "ion", "ing", "ed", "es", "s")
MIN_STEM_CHARS = 4
STANDARD_PLACEHOLDERS = frozenset(
    {"<n>", "<hex>", "<path>", "<ip>", "<host>", "<uuid>", "<shape>", "<url>"}
)
TOKEN_RE = re.compile(r"<[a-z][a-z_-]*>|[a-z0-9]+")
DIGITS_RE = re.compile(r"\d+")
# Lines of a traceback or c10 error block that say where, not what.
NOISE_RE = re.compile(
    r'File "[^"]*", line <n>'
    r"|Traceback \(most recent call last\)"
    r"|frame #<n>"
    r"|Exception raised from "
    r"|During handling of the above exception"
    r"|The above exception was the direct cause"
    r"|[\^~]+$"
)
TELLING_RE = re.compile(
    r"error|exception|fail|fatal|timed? ?out|watchdog|warn|abort|killed|out of memory|oom\b"
    r"|\bnan\b|\binf\b|unable|cannot|can't|could not|not found|invalid|illegal|mismatch"
    r"|refused|denied|crash|segmentation|core dumped|xid|slow|straggl|deadlock|hang|stuck"
    r"|throttl|exceed|overflow|preempt|evict",
    re.IGNORECASE,
)


class LogTooLarge(ValueError):
    """A paste over the line or size limit."""


class Match(BaseModel):
    """One reference that explains the text, with why."""

    id: str
    title: str
    summary: str
    score: float = Field(ge=0, le=1)
    confident: bool
    reasons: list[str]
    matched_message: str | None = Field(description="The reference message that matched best.")
    matched_span: tuple[int, int] | None = Field(
        description="Start and end offsets, in the text as given, of the line that matched."
    )


class MatchResult(BaseModel):
    """Ranked references for a pasted message."""

    normalized: str
    inferred_context: dict[str, str]
    matches: list[Match]


class ScanHit(BaseModel):
    """One reference found in a log, with where."""

    id: str
    title: str
    score: float = Field(ge=0, le=1)
    confident: bool
    count: int = Field(description="Lines that matched this reference.")
    first_line: int
    last_line: int
    line_numbers: list[int] = Field(description="1-based, the first `line_cap` of them.")
    example: str = Field(description="One matching line as it appears in the log.")
    matched_message: str
    reasons: list[str]


class ScanResult(BaseModel):
    """What a whole-log scan found."""

    lines: int
    templates: int = Field(description="Distinct normalised lines.")
    fuzzy_templates: int = Field(description="Templates that reached the fuzzy stage.")
    fuzzy_cap: int
    capped: bool = Field(description="True when more templates qualified than the cap.")
    inferred_context: dict[str, str]
    hits: list[ScanHit]


@dataclass(frozen=True, slots=True)
class MatchIndex:
    """Message lines of every reference, tokenised and inverted; built once, never changed."""

    references: tuple[Reference, ...]
    entry_keys: tuple[str, ...]
    entry_refs: tuple[int, ...]
    entry_messages: tuple[int, ...]
    entry_weights: tuple[Mapping[str, float], ...]
    entry_masses: tuple[float, ...]
    postings: Mapping[str, frozenset[int]]
    idf: Mapping[str, float]
    keywords: tuple[frozenset[str], ...]
    keyword_postings: Mapping[str, frozenset[int]]
    keyword_weights: Mapping[str, float]
    unknown_idf: float


@dataclass(frozen=True, slots=True)
class LineScore:
    """How well one query line matched one reference's best message line."""

    ref: int
    entry: int
    similarity: float
    token_set: float
    coverage: float


@dataclass(slots=True)
class TemplateGroup:
    """Log lines that share one normalised form."""

    template: str
    line_numbers: list[int]
    noise: bool = False
    keys: int = 1


@dataclass(slots=True)
class _HitSoFar:
    raw: float
    best: LineScore
    example_line: int
    reasons: list[str]
    line_numbers: list[list[int]] = field(default_factory=list)


def build_index(references: Sequence[Reference]) -> MatchIndex:
    """Index every reference's message lines for matching."""
    refs = tuple(references)
    keys: list[str] = []
    entry_refs: list[int] = []
    entry_messages: list[int] = []
    seen: set[tuple[int, str]] = set()
    for ref_number, reference in enumerate(refs):
        for message_number, message in enumerate(reference.messages):
            for key in _message_keys(message.text):
                if (ref_number, key) not in seen:
                    seen.add((ref_number, key))
                    keys.append(key)
                    entry_refs.append(ref_number)
                    entry_messages.append(message_number)
    token_sets = [frozenset(_informative(key.split())) for key in keys]
    postings = _invert(token_sets)
    total = max(1, len(keys))
    idf = {token: math.log(1 + total / len(ids)) for token, ids in postings.items()}
    keywords = tuple(frozenset(keyword_stems(_reference_words(ref))) for ref in refs)
    keyword_postings = _invert(keywords)
    return MatchIndex(
        references=refs,
        entry_keys=tuple(keys),
        entry_refs=tuple(entry_refs),
        entry_messages=tuple(entry_messages),
        entry_weights=tuple(MappingProxyType({t: idf[t] for t in ts}) for ts in token_sets),
        entry_masses=tuple(sum(idf[t] for t in ts) for ts in token_sets),
        postings=MappingProxyType(postings),
        idf=MappingProxyType(idf),
        keywords=keywords,
        keyword_postings=MappingProxyType(keyword_postings),
        keyword_weights=MappingProxyType(_rarity(keyword_postings, len(refs))),
        unknown_idf=math.log(1 + total),
    )


def _invert(token_sets: Sequence[frozenset[str]]) -> dict[str, frozenset[int]]:
    inverted: dict[str, set[int]] = {}
    for number, tokens in enumerate(token_sets):
        for token in tokens:
            inverted.setdefault(token, set()).add(number)
    return {token: frozenset(ids) for token, ids in inverted.items()}


def _rarity(postings: Mapping[str, frozenset[int]], total: int) -> dict[str, float]:
    """IDF scaled to 0-1: a word only one reference has weighs 1."""
    top = math.log(1 + max(total, 1))
    return {token: math.log(1 + total / len(ids)) / top for token, ids in postings.items()}


def _message_keys(text: str) -> list[str]:
    lines = normalize_template(text).splitlines()
    telling = [line for line in lines if not NOISE_RE.match(line)] or lines
    keys = (comparison_key(line, template=True) for line in telling)
    return [key for key in keys if any(True for _ in _informative(key.split()))]


def _reference_words(reference: Reference) -> list[str]:
    texts = (reference.title, reference.summary, *reference.tags, *reference.frameworks)
    return [token for text in texts for token in TOKEN_RE.findall(text.lower())]


def comparison_key(normalized: str, template: bool = False) -> str:
    """The tokens a normalised line is compared by, lower-case, space-separated.

    In a template, placeholders other than the standard ones (`<word>`, `<model>`) stand
    for any word: they are dropped, so the real word in a line is one extra token.
    """
    tokens = TOKEN_RE.findall(normalized.lower())
    if template:
        tokens = [t for t in tokens if t[0] != "<" or t in STANDARD_PLACEHOLDERS]
    return " ".join(tokens)


def _informative(tokens: Iterable[str]) -> Iterable[str]:
    return (t for t in tokens if len(t) > 1 and t[0] != "<" and t not in STOPWORDS)


def score_line(index: MatchIndex, key: str, exhaustive: bool = False) -> list[LineScore]:
    """The best message line of each reference for one query key, best first.

    `exhaustive` skips the prefilter and gives every message line past `SET_CUTOFF` its
    full similarity; otherwise the best `RERANK_LIMIT` by token set among the candidates do.
    """
    tokens = set(_informative(key.split()))
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


def stem(word: str) -> str:
    """A crude English stem, enough for `preempted` to meet `preemption` in a title."""
    for _ in range(2):  # `partitioning` -> `partition` -> `partit`, as `partitions` goes
        for suffix in STEM_SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM_CHARS:
                word = word[: -len(suffix)]
                break
    return word


def keyword_stems(tokens: Iterable[str]) -> set[str]:
    """Stems of the informative words in some tokens, `moe_grouped_gemm` split at `_`."""
    return {stem(part) for token in tokens for part in _informative(token.split("_"))}


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


class _Scorer:
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
    limit: int = 5,
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
    tokens = {t for _, _, normalized in lines for t in _informative(_key_tokens(normalized))}
    scorer = _Scorer(index, keyword_stems(tokens), merge_context(context, inferred))
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


def query_lines(text: str) -> list[tuple[tuple[int, int], str, str]]:
    """The telling lines of a paste: (span in the text, raw line, normalised line).

    Frames, source echoes and repeats go; error-looking lines go first, and of a long
    paste the last MAX_QUERY_LINES of them are kept (a traceback ends with its error).
    """
    found: list[tuple[tuple[int, int], str, str]] = []
    seen: set[str] = set()
    offset = 0
    after_frame = False
    for raw in text.split("\n"):
        start, offset = offset, offset + len(raw) + 1
        line = raw.removesuffix("\r")
        echo = after_frame and line[:1] in (" ", "\t")
        normalized = normalize_line(line)
        noise = bool(NOISE_RE.match(normalized))
        after_frame = noise and normalized.startswith("File ")
        if echo or noise or not normalized or normalized in seen:
            continue
        seen.add(normalized)
        found.append(((start + _prefix_length(line), start + len(line.rstrip())), line, normalized))
    telling = [item for item in found if TELLING_RE.search(item[2])]
    others = [item for item in found if not TELLING_RE.search(item[2])]
    kept = telling[-MAX_QUERY_LINES:] + others[: max(0, MAX_QUERY_LINES - len(telling))]
    return sorted(kept, key=lambda item: item[0])


def count_lines(text: str) -> int:
    """Lines as an editor numbers them: `\n` ends a line, a last line may lack one."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def split_lines(text: str) -> list[str]:
    """The lines `count_lines` counts, without their `\r\n` or `\n`."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _prefix_length(line: str) -> int:
    """Characters of log prefix before the message, when offsets can be trusted."""
    if "\x1b" in line or "\r" in line or len(line) > MAX_LINE_CHARS:
        return len(line) - len(line.lstrip())
    return len(line) - len(strip_prefixes(line))


def group_log_lines(lines: Sequence[str]) -> list[TemplateGroup]:
    """Normalise and deduplicate: one group per distinct normalised line, in first-seen order.

    Lines are first bucketed on a cheap key (digits collapsed) so the full normalisation
    runs once per bucket, not once per line.
    """
    buckets: dict[str, list[int]] = {}
    for number, line in enumerate(lines, 1):
        key = DIGITS_RE.sub("0", line[:MAX_LINE_CHARS])
        bucket = buckets.get(key)
        if bucket is None:
            buckets[key] = [number]
        else:
            bucket.append(number)
    groups: dict[str, TemplateGroup] = {}
    for numbers in buckets.values():
        template = normalize_line(lines[numbers[0] - 1])
        if not template:
            continue
        group = groups.get(template)
        if group is None:
            groups[template] = TemplateGroup(template, numbers, bool(NOISE_RE.match(template)))
        else:
            group.line_numbers.extend(numbers)
            group.keys += 1
    result = list(groups.values())
    for group in result:
        if group.keys > 1:
            group.line_numbers.sort()
    _mark_source_echoes(result, lines)
    return result


def _mark_source_echoes(groups: list[TemplateGroup], lines: Sequence[str]) -> None:
    """Mark as noise the indented source lines a traceback prints under each frame."""
    echo_lines = {
        number + 1
        for group in groups
        if group.noise and group.template.startswith("File ")
        for number in group.line_numbers
        if number < len(lines) and lines[number][:1] in (" ", "\t")
    }
    if not echo_lines:
        return
    for group in groups:
        if not group.noise and all(n in echo_lines for n in group.line_numbers):
            group.noise = True


def scan_log(
    index: MatchIndex,
    log: str,
    context: RunContext | None = None,
    max_lines: int = DEFAULT_MAX_LINES,
    line_cap: int = 20,
) -> ScanResult:
    """Find the references a whole log shows, with counts and line numbers per reference."""
    if not log.strip():
        return ScanResult(
            lines=0,
            templates=0,
            fuzzy_templates=0,
            fuzzy_cap=FUZZY_TEMPLATE_CAP,
            capped=False,
            inferred_context={},
            hits=[],
        )
    line_count = count_lines(log)
    if line_count > max_lines:
        raise LogTooLarge(f"{line_count} lines is over the {max_lines}-line limit")
    lines = split_lines(log)
    groups = group_log_lines(lines)
    eligible = [group for group in groups if not group.noise]
    eligible.sort(key=lambda group: not TELLING_RE.search(group.template))
    scored = eligible[:FUZZY_TEMPLATE_CAP]
    inferred = infer_context(log)
    fields = merge_context(context, inferred)
    verdicts: dict[int, tuple[float, list[str]]] = {}
    hits: dict[int, _HitSoFar] = {}
    for group in scored:
        key = comparison_key(group.template)
        scorer = _Scorer(index, keyword_stems(key.split()), fields, verdicts)
        _scan_group(scorer, score_line(index, key), group, hits)
    return ScanResult(
        lines=len(lines),
        templates=len(groups),
        fuzzy_templates=len(scored),
        fuzzy_cap=FUZZY_TEMPLATE_CAP,
        capped=len(eligible) > FUZZY_TEMPLATE_CAP,
        inferred_context=inferred,
        hits=_scan_hits(index, hits, lines, line_cap),
    )


def _scan_group(
    scorer: _Scorer,
    scores: Sequence[LineScore],
    group: TemplateGroup,
    hits: dict[int, _HitSoFar],
) -> None:
    """Add one template's lines to every reference it matches well enough."""
    for scored in scorer.ranked(scores, None, SCAN_MIN_SCORE):
        line = scored.line
        assert line is not None  # ranked() only returns message matches
        hit = hits.get(line.ref)
        if hit is None or scored.raw > hit.raw:
            reasons = scorer.reasons(scored, line.ref)
            if hit is None:
                hit = hits[line.ref] = _HitSoFar(scored.raw, line, group.line_numbers[0], reasons)
            else:
                hit.raw, hit.best, hit.example_line, hit.reasons = (
                    scored.raw,
                    line,
                    group.line_numbers[0],
                    reasons,
                )
        hit.line_numbers.append(group.line_numbers)


def _scan_hits(
    index: MatchIndex,
    hits: dict[int, _HitSoFar],
    lines: Sequence[str],
    line_cap: int,
) -> list[ScanHit]:
    found = []
    for ref, hit in hits.items():
        numbers = sorted(n for numbers in hit.line_numbers for n in numbers)
        reference = index.references[ref]
        score = round(min(1.0, hit.raw), 3)
        found.append(
            ScanHit(
                id=reference.id,
                title=reference.title,
                score=score,
                confident=score >= CONFIDENT_THRESHOLD,
                count=len(numbers),
                first_line=numbers[0],
                last_line=numbers[-1],
                line_numbers=numbers[: max(0, line_cap)],
                example=lines[hit.example_line - 1][:MAX_LINE_CHARS],
                matched_message=reference.messages[index.entry_messages[hit.best.entry]].text,
                reasons=hit.reasons,
            )
        )
    found.sort(key=lambda h: (not h.confident, -h.score, -h.count, h.id))
    return found
