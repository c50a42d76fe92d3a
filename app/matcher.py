"""Rank references against a pasted message or a whole log (pure: no database, no HTTP).

One query line is compared with the reference messages in three steps:

1. **Prefilter.** An inverted index maps each informative token (not a placeholder, not
   a stop word) to the message lines that hold it. The query's tokens are taken rarest
   first until the candidates would pass `CANDIDATE_SHARE` of the index; only message
   lines that share one of those tokens go on. Cheap set unions, no Python loop over
   references.
2. **Fuzzy rerank.** One vectorised `rapidfuzz.process.extract` call scores the
   survivors with `token_set_ratio` (a line that holds the whole template, or a template
   that holds the whole line, scores high) with `score_cutoff=SET_CUTOFF`.
3. **Score.** similarity = token_set × (COVERAGE_FLOOR + (1 − COVERAGE_FLOOR) × coverage),
   where coverage is the IDF-weighted share of both sides' informative tokens that the
   other side holds, so a short generic line is not a perfect match for everything it
   is a subset of. Then base = similarity + (1 − similarity) × KEYWORD_WEIGHT × keyword
   overlap (title, tags, summary), and score = base × (1 + context offset). Keywords
   and context only fill part of the gap or move a score a few per cent: neither can
   make a match on its own.

A whole log is grouped by normalised template first; each distinct template is scored
once, at most `FUZZY_TEMPLATE_CAP` of them, error-looking lines first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from app.context import STOPWORDS, RunContext, context_adjustment, infer_context, merge_context
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

# Chosen on the labelled set (tests/data/labelled, see test_labelled_set.py): the lowest
# score of a correct top-1 line sits above it and nearly all unrelated lines below.
CONFIDENT_THRESHOLD = 0.80
# Below this a reference is not reported at all. Low on purpose: a reference that only
# shares a rare title word is still a lead when nothing else matches; `confident`, not
# presence, is what says a match is good.
MIN_REPORT_SCORE = 0.05
# A whole log has thousands of lines: only message matches this good become hits.
SCAN_MIN_SCORE = 0.50
# token_set_ratio below this (0-100) cannot reach MIN_REPORT_SCORE, so rapidfuzz may
# skip it early.
SET_CUTOFF = 35.0
# How many message lines the fuzzy stage passes to the final score per query line.
RERANK_LIMIT = 40
# Candidates may take this share of the index before rarer tokens alone decide.
CANDIDATE_SHARE = 0.25
COVERAGE_FLOOR = 0.70
KEYWORD_WEIGHT = 0.30
# Rare shared keywords (each weighs 0-1 by its rarity among references) that count as
# full title/tags/summary overlap.
KEYWORD_SATURATION = 3.0
# A keyword held by more than this share of references does not nominate candidates.
KEYWORD_CANDIDATE_SHARE = 0.20
# A pasted single message gets at most this many of its lines scored (a traceback's
# telling lines); the rest are frames, echoes or repeats.
MAX_QUERY_LINES = 16
# A single-message paste beyond this is a log: use scan_log.
MAX_MATCH_CHARS = 2 * 1024 * 1024
# Distinct templates of one log that reach the fuzzy stage. A high-entropy paste (every
# line distinct) would otherwise cost a fuzzy search per line; the cap keeps the scan
# within a small multiple of normalising the log, and the result says it was reached.
FUZZY_TEMPLATE_CAP = 5_000
DEFAULT_MAX_LINES = 100_000

STEM_SUFFIXES = ("ing", "ed", "es", "s")
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
    """The best message line of each reference for one query key, best first."""
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
        limit=RERANK_LIMIT,
    )
    best: dict[int, LineScore] = {}
    for _, token_set, position in found:
        entry = entries[position]
        coverage = _coverage(index, tokens, index.entry_weights[entry])
        if not coverage:
            continue  # sharing only placeholders and stop words is not a match
        similarity = token_set / 100 * (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * coverage)
        ref = index.entry_refs[entry]
        if ref not in best or similarity > best[ref].similarity:
            best[ref] = LineScore(ref, entry, similarity, token_set / 100, coverage)
    return sorted(best.values(), key=lambda s: (-s.similarity, s.ref))


def _candidates(index: MatchIndex, tokens: set[str]) -> list[int]:
    """Entries sharing one of the query's rarer tokens, in index order."""
    lists = sorted(
        (index.postings[t] for t in tokens if t in index.postings),
        key=len,
    )
    budget = max(64, int(len(index.entry_keys) * CANDIDATE_SHARE))
    chosen: list[frozenset[int]] = []
    total = 0
    for ids in lists:
        if chosen and total + len(ids) > budget:
            break
        chosen.append(ids)
        total += len(ids)
    return sorted(frozenset().union(*chosen))


def _coverage(index: MatchIndex, query: set[str], entry: Mapping[str, float]) -> float:
    """IDF-weighted share of each side's tokens the other holds, averaged."""
    query_mass = sum(index.idf.get(t, index.unknown_idf) for t in query)
    shared_mass = sum(weight for t, weight in entry.items() if t in query)
    entry_mass = sum(entry.values())
    if not query_mass or not entry_mass:
        return 0.0
    return (shared_mass / query_mass + shared_mass / entry_mass) / 2


def stem(word: str) -> str:
    """A crude English stem, enough for `experts` to meet `expert` in a title."""
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM_CHARS:
            return word[: -len(suffix)]
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
    limit = max(1, int(len(index.references) * KEYWORD_CANDIDATE_SHARE))
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
    reasons: list[str]
    line: LineScore | None  # None: only title, tags or summary matched
    span: tuple[int, int] | None


def _final_score(
    index: MatchIndex,
    ref: int,
    line: LineScore | None,
    stems: set[str],
    context: Mapping[int, tuple[float, list[str]]],
) -> tuple[float, list[str]]:
    """The raw score and the reasons behind it."""
    similarity = line.similarity if line is not None else 0.0
    overlap, shared = keyword_overlap(index, ref, stems)
    base = similarity + (1 - similarity) * KEYWORD_WEIGHT * overlap
    offset, context_reasons = context[ref]
    reasons = [_message_reason(index, line) if line is not None else "no message matched"]
    if shared:
        reasons.append(f"title, tags or summary share: {', '.join(shared[:6])}")
    reasons.extend(context_reasons)
    return base * (1 + offset), reasons


def _message_reason(index: MatchIndex, line: LineScore) -> str:
    reference = index.references[line.ref]
    number = index.entry_messages[line.entry]
    return (
        f"message {number + 1} (line {reference.messages[number].line} of {reference.path}) "
        f"matched {line.similarity:.0%}: token set {line.token_set:.0%}, "
        f"coverage {line.coverage:.0%}"
    )


class _ContextCache(dict[int, tuple[float, list[str]]]):
    """Context offsets per reference, computed on first use."""

    def __init__(self, index: MatchIndex, fields: dict[str, str]) -> None:
        super().__init__()
        self.index = index
        self.fields = fields

    def __missing__(self, ref: int) -> tuple[float, list[str]]:
        value = context_adjustment(self.index.references[ref], self.fields)
        self[ref] = value
        return value


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
    if len(text) > MAX_MATCH_CHARS:
        raise LogTooLarge(
            f"{len(text)} characters is over the {MAX_MATCH_CHARS} limit for one message; "
            "scan it as a log instead"
        )
    inferred = infer_context(text) if text.strip() else {}
    lines = query_lines(text)
    if not lines:
        return MatchResult(normalized="", inferred_context=inferred, matches=[])
    cache = _ContextCache(index, merge_context(context, inferred))
    tokens = {t for _, _, normalized in lines for t in _informative(_key_tokens(normalized))}
    stems = keyword_stems(tokens)
    best: dict[int, _Scored] = {}
    for span, _, normalized in lines:
        for line in score_line(index, comparison_key(normalized), exhaustive):
            raw, reasons = _final_score(index, line.ref, line, stems, cache)
            if line.ref not in best or raw > best[line.ref].raw:
                best[line.ref] = _Scored(raw, reasons, line, span)
    for ref in keyword_candidates(index, stems) - best.keys():
        raw, reasons = _final_score(index, ref, None, stems, cache)
        best[ref] = _Scored(raw, reasons, None, None)
    ranked = sorted(
        ((ref, scored) for ref, scored in best.items() if scored.raw >= MIN_REPORT_SCORE),
        key=lambda item: (-item[1].raw, item[0]),
    )
    matches = [_match(index, ref, scored) for ref, scored in ranked[: max(0, limit)]]
    normalized_text = "\n".join(normalized for _, _, normalized in lines)
    return MatchResult(normalized=normalized_text, inferred_context=inferred, matches=matches)


def _key_tokens(normalized: str) -> list[str]:
    return comparison_key(normalized).split()


def _match(index: MatchIndex, ref: int, scored: _Scored) -> Match:
    reference = index.references[ref]
    score = round(min(1.0, scored.raw), 3)
    message = None
    reasons = scored.reasons
    if scored.line is not None:
        message = reference.messages[index.entry_messages[scored.line.entry]].text
    if scored.span is not None:
        reasons = [*reasons, f"matched characters {scored.span[0]}-{scored.span[1]} of the text"]
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
    for raw in text.splitlines(keepends=True):
        start, offset = offset, offset + len(raw)
        line = raw.rstrip("\r\n")
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
    line_count = log.count("\n") + (0 if log.endswith("\n") else 1)
    if line_count > max_lines:
        raise LogTooLarge(f"{line_count} lines is over the {max_lines}-line limit")
    lines = log.splitlines()
    groups = group_log_lines(lines)
    eligible = [group for group in groups if not group.noise]
    eligible.sort(key=lambda group: not TELLING_RE.search(group.template))
    scored = eligible[:FUZZY_TEMPLATE_CAP]
    inferred = infer_context(log)
    cache = _ContextCache(index, merge_context(context, inferred))
    hits: dict[int, _HitSoFar] = {}
    for group in scored:
        _scan_group(index, group, cache, hits)
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
    index: MatchIndex,
    group: TemplateGroup,
    cache: _ContextCache,
    hits: dict[int, _HitSoFar],
) -> None:
    key = comparison_key(group.template)
    stems = keyword_stems(key.split())
    for line in score_line(index, key):
        raw, reasons = _final_score(index, line.ref, line, stems, cache)
        if raw < SCAN_MIN_SCORE:
            continue
        hit = hits.get(line.ref)
        if hit is None:
            hit = hits[line.ref] = _HitSoFar(raw, line, group.line_numbers[0], reasons)
        elif raw > hit.raw:
            hit.raw, hit.best, hit.example_line, hit.reasons = raw, line, group.line_numbers[0], reasons
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
