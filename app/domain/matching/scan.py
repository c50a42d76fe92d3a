"""A whole log: grouped by normalised line, each distinct line scored once (error-looking
lines first, at most FUZZY_TEMPLATE_CAP of them), hits counted per reference."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.config import DEFAULT_MAX_LOG_LINES, SCAN_LINE_CAP
from app.domain.matching.context import RunContext, infer_context, merge_context
from app.domain.matching.index import MatchIndex, comparison_key
from app.domain.matching.lines import NOISE_RE, TELLING_RE, count_lines, split_lines
from app.domain.matching.normalize import MAX_LINE_CHARS, normalize_line
from app.domain.matching.rank import CONFIDENT_THRESHOLD, LineScore, Scorer, score_line
from app.domain.matching.results import ScanHit, ScanResult
from app.domain.matching.tokens import keyword_stems
from app.errors import LogTooLarge

# A whole log has thousands of lines: only message matches this good become hits.
SCAN_MIN_SCORE = CONFIDENT_THRESHOLD


# Distinct templates of one log that reach the fuzzy stage. A high-entropy paste (every
# line distinct) would otherwise cost a fuzzy search per line; the cap keeps the scan
# within a small multiple of normalising the log, and the result says it was reached.
FUZZY_TEMPLATE_CAP = 5_000


DIGITS_RE = re.compile(r"\d+")


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
    max_lines: int = DEFAULT_MAX_LOG_LINES,
    line_cap: int = SCAN_LINE_CAP,
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
        scorer = Scorer(index, keyword_stems(key.split()), fields, verdicts)
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
    scorer: Scorer,
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
