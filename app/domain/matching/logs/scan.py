"""A whole log: grouped by normalised line, each distinct line scored once (error-looking
lines first, at most FUZZY_TEMPLATE_CAP of them), hits counted per reference."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import merge
from itertools import islice

from ....config import DEFAULT_MAX_LOG_LINES, SCAN_LINE_CAP
from ....errors import LogTooLarge
from ...references.values import read_values
from ..index.context_terms import ContextVerdict
from ..index.match_index import MatchIndex
from ..index.pieces import comparison_key
from ..judging.candidates import (
    MAX_EVIDENCE_CHARS,
    NEIGHBOUR_SIMILARITY,
    PasteEvidence,
    rank_candidates,
)
from ..judging.failure_words import lines_above
from ..judging.judge import (
    ANSWERING_KINDS,
    CONFIDENT_THRESHOLD,
    diagnostic_verdict,
    disagrees,
    gates_for,
    is_confident,
    message_of,
    message_reasons,
)
from ..judging.unmatched import unrecognised_lines
from ..reading.context import QueryContext, RunContext, infer_context, read_context
from ..reading.evidence import Level, code_path_hits, line_level, normal_output
from ..reading.grouping import LINE_NUMBER_TYPE, TemplateGroup
from ..reading.lines import ReadingFacts, count_lines, reading_notes, telling
from ..reading.normalize import MAX_LINE_CHARS
from ..reading.teardown import failure_statements
from ..reading.tokens import keyword_stems
from ..results import (
    CandidateMatch,
    CheckHint,
    Diagnosis,
    ScanHit,
    ScanResult,
)
from ..scoring.scorer import Scored, Scorer
from ..search.budgeted import score_line
from ..search.compare import LineScore, LineScores
from .fields import failing_fields
from .logread import LogRead, read_log
from .ranks import Attribution, LineLabels, attribute, log_ranks
from .story import diagnose

# A whole log has thousands of lines: only message matches this good become hits.
SCAN_MIN_SCORE = CONFIDENT_THRESHOLD
# Why a hit on a warning block is listed and never one of the log's failures.
WARNING_REASON = "a warning: the run went on in a degraded mode, so it is listed, not a failure"


# Distinct templates of one log that reach the fuzzy stage. A high-entropy paste (every
# line distinct) would otherwise cost a fuzzy search per line; the cap keeps the scan
# within a small multiple of normalising the log, and the result says it was reached.
FUZZY_TEMPLATE_CAP = 5_000
# The lines stating a failure (the first ones, by line) a scan looks at for where the log
# went wrong: the earliest of them in time can be far down a log of ranks pasted in turn.
FIRST_FAILURES = 64


# A diagnostic block's values are read from its first matching line and the lines after
# it, as many as the block has plus a few for wrapped output.
VALUE_WINDOW_EXTRA_LINES = 4


@dataclass(slots=True)
class _HitSoFar:
    raw: float
    best: LineScore
    example_line: int
    line_numbers: list[array[int]] = field(default_factory=list)  # each group's, ascending


def scan_log(
    index: MatchIndex,
    log: str,
    context: RunContext | None = None,
    max_lines: int = DEFAULT_MAX_LOG_LINES,
    line_cap: int = SCAN_LINE_CAP,
) -> ScanResult:
    """Find the references a whole log shows, with counts and line numbers per reference.

    Lines that are a reference's healthy message are counted apart and match nothing."""
    if log.strip():
        line_count = count_lines(log)
        if line_count > max_lines:
            raise LogTooLarge(f"{line_count} lines is over the {max_lines}-line limit")
    return scan_read(index, read_log(log), context, line_cap)


def scan_read(
    index: MatchIndex,
    read: LogRead,
    context: RunContext | None = None,
    line_cap: int = SCAN_LINE_CAP,
) -> ScanResult:
    """`scan_log` of a log already read (at once or a chunk at a time)."""
    if not read.facts.has_text:
        return ScanResult(
            lines=0,
            templates=0,
            fuzzy_templates=0,
            fuzzy_cap=FUZZY_TEMPLATE_CAP,
            capped=False,
            inferred_context={},
            context_ignored=list(read_context(context).ignored),
            context_read=read_context(context).fields.shown(),
            hits=[],
            diagnosis=_nothing_read(read.facts),
        )
    lines, groups = read.lines, read.groups
    eligible = [group for group in groups if not group.noise]
    flags = telling([group.template for group in eligible])
    eligible = [group for group, flag in zip(eligible, flags, strict=True) if flag] + [
        group for group, flag in zip(eligible, flags, strict=True) if not flag
    ]
    scored = eligible[:FUZZY_TEMPLATE_CAP]
    inferred = infer_context(read.head)
    query = QueryContext.of(context, inferred)
    offsets: dict[int, ContextVerdict] = {}
    hits: dict[int, _HitSoFar] = {}
    neighbours: dict[int, tuple[float, int]] = {}
    healthy = 0
    unmatched: list[tuple[str, array[int]]] = []
    for group in scored:
        key = comparison_key(group.template)
        scores = score_line(index, key)
        if scores.claimed_healthy() is not None:
            healthy += len(group.line_numbers)
            continue
        if not scores:  # no message line to rank: most lines of a high-entropy paste
            unmatched.append((group.template, group.line_numbers))
            continue
        level = line_level(lines[group.line_numbers[0] - 1])
        _remember_neighbours(index, scores, group, neighbours, level)
        scorer = Scorer(index, keyword_stems(key.split()), query, None, offsets)
        if not _scan_group(scorer, scores, group, hits):
            unmatched.append((group.template, group.line_numbers))
    found = _Found(index, query, lines, read.head, neighbours, offsets, read.labels).hits(
        hits, line_cap
    )
    not_compared = len(eligible) - len(scored)
    firsts = ((g.line_numbers[0], g.line_numbers, lines[g.line_numbers[0] - 1]) for g in eligible)
    labels = read.labels
    diagnosis = diagnose(
        index,
        found,
        lines,
        log_ranks(labels),
        unrecognised_lines(unmatched, lines, line_cap),
        failure_statements(firsts, FIRST_FAILURES),
        lambda numbers: attribute(labels, numbers),
        reading_notes(read.facts, not_compared),
    )
    return ScanResult(
        lines=len(lines),
        templates=len(groups),
        fuzzy_templates=len(scored),
        fuzzy_cap=FUZZY_TEMPLATE_CAP,
        capped=not_compared > 0,
        inferred_context=inferred.shown(),
        context_read=query.given.shown(),
        context_ignored=list(query.ignored),
        hits=found,
        healthy_lines=healthy,
        diagnosis=diagnosis,
    )


def _nothing_read(facts: ReadingFacts) -> Diagnosis:
    """The diagnosis of a log with no text: nothing but what was skipped."""
    return Diagnosis(
        verdict="quiet",
        roots=[],
        unrecognised=[],
        unrecognised_lines=0,
        ranks=[],
        hosts=[],
        all_ranks=False,
        notes=reading_notes(facts, 0),
    )


def _remember_neighbours(
    index: MatchIndex,
    scores: LineScores,
    group: TemplateGroup,
    neighbours: dict[int, tuple[float, int]],
    level: Level | None,
) -> None:
    """Keep, per reference, the best failure-line similarity in the log and where (only
    those good enough to count for a symptom's candidate: the scores come best first; a
    line logged at INFO resembling a message that is not, normal output, never counts)."""
    for line in scores:
        if line.similarity < NEIGHBOUR_SIMILARITY:
            break
        better = line.similarity > neighbours.get(line.ref, (0.0, 0))[0]
        counts = not normal_output(level, index.entry_levels[line.entry])
        if better and counts and index.entry_kinds[line.entry] in ANSWERING_KINDS:
            neighbours[line.ref] = (line.similarity, group.line_numbers[0])


def _scan_group(
    scorer: Scorer,
    scores: Sequence[LineScore],
    group: TemplateGroup,
    hits: dict[int, _HitSoFar],
) -> bool:
    """Add one template's lines to every reference it matches well enough; False when it
    matched none."""
    matched = False
    for scored in scorer.ranked(scores, None, SCAN_MIN_SCORE):
        matched = True
        line = scored.line
        assert line is not None  # ranked() only returns message matches
        hit = hits.get(line.ref)
        if hit is None:
            hit = hits[line.ref] = _HitSoFar(scored.raw, line, group.line_numbers[0])
        elif scored.raw > hit.raw:
            hit.raw, hit.best, hit.example_line = scored.raw, line, group.line_numbers[0]
        hit.line_numbers.append(group.line_numbers)
    return matched


@dataclass(frozen=True, slots=True)
class _Found:
    """What turns a scan's raw hits into answers: the log and the run's context."""

    index: MatchIndex
    query: QueryContext
    lines: Sequence[str]
    head: str  # the log's first MAX_EVIDENCE_CHARS, all that evidence is read from
    neighbours: dict[int, tuple[float, int]]
    offsets: dict[int, ContextVerdict]
    labels: LineLabels
    snippet_lines: dict[str, int | None] = field(default_factory=dict)
    group_labels: dict[int, Attribution] = field(default_factory=dict)

    def hits(self, hits: dict[int, _HitSoFar], line_cap: int) -> list[ScanHit]:
        # What a symptom's candidates are ranked on is read from the log once per scan,
        # and only when a symptom was found.
        evidence: tuple[dict[int, str], str] | None = None
        found = []
        for ref, hit in hits.items():
            if self.index.references[ref].kind == "symptom" and evidence is None:
                head = self.head[:MAX_EVIDENCE_CHARS]
                evidence = (code_path_hits(head, self.index.code_paths), head.lower())
            found.append(self._hit(ref, hit, line_cap, evidence))
        found.sort(key=lambda h: (not h.confident, -h.score, -h.count, h.id))
        return found

    def _hit(
        self, ref: int, hit: _HitSoFar, line_cap: int, evidence: tuple[dict[int, str], str] | None
    ) -> ScanHit:
        groups = hit.line_numbers
        # The first line_cap numbers merged, never every number: a hit can cover most of a
        # million-line log.
        shown = list(islice(merge(*groups), max(0, line_cap)))
        reference = self.index.references[ref]
        message = message_of(self.index, hit.best)
        size = message.text.count("\n") + 1 + VALUE_WINDOW_EXTRA_LINES if message else 1
        fields = failing_fields(message, self.lines, merge(*groups), size) if message else None
        example_line = hit.example_line
        if fields is not None:  # status output: the failing fields are the hit's lines
            example_line, shown = fields.lines[0], fields.lines[: max(0, line_cap)]
            groups = [array(LINE_NUMBER_TYPE, fields.lines)]
        example = self.lines[example_line - 1]
        scored = Scored(hit.raw, hit.best, None, line_level(example), example_line)
        window = "\n".join(self.lines[example_line - 1 : example_line - 1 + size])
        verdict = fields.verdict if fields is not None else diagnostic_verdict(message, window)
        before = lines_above(self.lines, example_line)
        gates = gates_for(self.index, reference, self.query, scored, example, before)
        score = round(min(1.0, hit.raw), 3)
        candidates: list[CandidateMatch] = []
        checks: list[CheckHint] = []
        if reference.kind == "symptom" and evidence is not None:
            pasted = self._evidence(hit, evidence, window)
            candidates, checks = rank_candidates(self.index, ref, pasted)
        reasons = [*message_reasons(scored, message, verdict), *self.offsets.get(ref, (0.0, ()))[1]]
        warned = message is not None and message.kind == "warning"
        if warned:
            reasons.append(WARNING_REASON)
        shown_on = attribute(self.labels, fields.lines) if fields else self._attribution(hit)
        return ScanHit(
            id=reference.id,
            title=reference.title,
            kind=reference.kind,
            score=score,
            confident=is_confident(score, message, verdict, gates) and not warned,
            count=sum(len(numbers) for numbers in groups),
            first_line=min(numbers[0] for numbers in groups),
            last_line=max(numbers[-1] for numbers in groups),
            line_numbers=shown,
            example=example[:MAX_LINE_CHARS],
            matched_message=message.text if message else "",
            reasons=[*reasons, *gates],
            message_kind=message.kind if message else None,
            verdict=verdict,
            context_disagrees=disagrees(gates),
            candidates=candidates,
            checks=checks,
            next_checks=self.index.checks[ref].next_checks(candidates),
            ranks=list(shown_on.ranks),
            hosts=list(shown_on.hosts),
        )

    def _attribution(self, hit: _HitSoFar) -> Attribution:
        """The ranks and hosts of a hit's lines, read once per template (one template's
        lines often hit several references)."""
        ranks: set[int] = set()
        hosts: set[str] = set()
        for numbers in hit.line_numbers:
            group = self.group_labels.get(numbers[0])
            if group is None:
                group = self.group_labels[numbers[0]] = attribute(self.labels, numbers)
            ranks.update(group.ranks)
            hosts.update(group.hosts)
        return Attribution(tuple(sorted(ranks)), tuple(sorted(hosts)))

    def _evidence(
        self, hit: _HitSoFar, read: tuple[dict[int, str], str], window: str
    ) -> PasteEvidence:
        reference = self.index.references[hit.best.ref]
        slots = [slot for message in reference.messages for slot in message.slots]
        others = {ref: seen for ref, seen in self.neighbours.items() if ref != hit.best.ref}
        code_paths, lowered = read
        return PasteEvidence(
            text=self.head,
            lowered_text=lowered,
            values=read_values(window, slots),
            messages=others,
            code_paths=code_paths,
            given=self.query.given,
            inferred=self.query.inferred,
            snippet_lines=self.snippet_lines,
        )
