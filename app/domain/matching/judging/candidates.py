"""Rank a symptom's candidate causes for one paste, with the checks naming the top two
(`index.card_checks.naming_checks`).

A symptom (a watchdog timeout, a CUDA OOM) is printed for many causes; which one it is
shows in the rest of the paste. Each candidate starts from its place in the author's list
(most common first) and gains or loses by what the paste holds: its telling lines
(`Lines:`), another line matching its own cause page's messages, a traceback through its
code paths, the numbers of the symptom's message (`When:`), and the run's phase. The
numbers below are the weight of each kind of evidence against the list order; none of
them is a probability, and the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...references.document import Candidate
from ...references.values import (
    Value,
    ValueType,
    holds,
    rule_text,
    slot_kinds,
)
from ..index.context_terms import broad, contradicts
from ..index.match_index import MatchIndex
from ..reading.context import NO_FIELDS, ContextFields
from ..results import CandidateMatch, CheckHint
from .gates import context_gates

# The author's order is worth this much for the first candidate, less for each later one.
PRIOR_WEIGHT = 0.25
SNIPPET_WEIGHT = 0.35
MAX_SNIPPETS_COUNTED = 2
OWN_MESSAGE_WEIGHT = 0.5
CODE_PATH_WEIGHT = 0.3
WHEN_TRUE_WEIGHT = 0.4
WHEN_FALSE_WEIGHT = -0.2
PHASE_FITS_WEIGHT = 0.1
CONTEXT_DISAGREES_WEIGHT = -0.3
# A neighbour line must match a cause's message at least this well to count for it.
NEIGHBOUR_SIMILARITY = 0.5
# Snippets are looked for in this much of the paste (a log's telling lines are already in
# it; a larger paste is a log and goes through the scan).
MAX_EVIDENCE_CHARS = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PasteEvidence:
    """What a paste holds beyond the symptom's own line, for ranking its candidates."""

    text: str
    lowered_text: str = ""
    values: Mapping[str, Value] = field(default_factory=dict)
    # Best similarity of any line to each reference's failure messages, with its line number.
    messages: Mapping[int, tuple[float, int]] = field(default_factory=dict)
    code_paths: Mapping[int, str] = field(default_factory=dict)
    given: ContextFields = NO_FIELDS
    inferred: ContextFields = NO_FIELDS
    # Where each snippet was found (1-based line, None: absent); a scan shares one for all
    # its symptom hits, and a paste's `Judge` for all its symptoms, so each snippet is
    # looked for in the text once.
    snippet_lines: dict[str, int | None] = field(default_factory=dict)

    def line_of(self, snippet: str, lowered: str) -> int | None:
        """The line of the paste that holds `snippet`, if one does."""
        if snippet not in self.snippet_lines:
            position = lowered.find(snippet)
            found = None if position < 0 else lowered.count("\n", 0, position) + 1
            self.snippet_lines[snippet] = found
        return self.snippet_lines[snippet]

    def lowered(self) -> str:
        """The text snippets are looked for in, lower-case (a scan or a judge passes it in,
        read once)."""
        return self.lowered_text or evidence_text(self.text)


def evidence_text(text: str) -> str:
    """The part of a paste snippets are looked for in, lower-case."""
    return text[:MAX_EVIDENCE_CHARS].lower()


def rank_candidates(
    index: MatchIndex, ref: int, evidence: PasteEvidence
) -> tuple[list[CandidateMatch], list[CheckHint]]:
    """The candidates of symptom `ref` (by index number) ranked for this paste, and the
    checks for the top two."""
    symptom = index.references[ref]
    lowered = evidence.lowered()
    kinds = {name: kind for m in symptom.messages for name, kind in slot_kinds(m.slots).items()}
    scored = []
    total = len(symptom.candidates)
    for number, candidate in enumerate(symptom.candidates):
        prior = PRIOR_WEIGHT * (total - number) / total
        weight, reasons = _evidence(index, candidate, evidence, lowered, kinds)
        if not reasons:
            reasons = [_no_evidence(number)]
        score = round(min(1.0, max(0.0, prior + weight)), 3)
        scored.append((score, -number, number, candidate, reasons))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    ranked = [
        CandidateMatch(
            id=candidate.cause_id if index.position(candidate.cause_id) is not None else None,
            title=candidate.title,
            score=score,
            reasons=reasons,
            number=number + 1,
        )
        for score, _, number, candidate, reasons in scored
    ]
    top = [number + 1 for _, _, number, _, _ in scored[:2]]
    return ranked, index.checks[ref].naming(top)


def _evidence(
    index: MatchIndex,
    candidate: Candidate,
    evidence: PasteEvidence,
    lowered: str,
    kinds: Mapping[str, ValueType],
) -> tuple[float, list[str]]:
    weight = 0.0
    reasons: list[str] = []
    found = [(s, evidence.line_of(s, lowered)) for s in candidate.lines]
    for snippet, line in [(s, n) for s, n in found if n is not None][:MAX_SNIPPETS_COUNTED]:
        weight += SNIPPET_WEIGHT
        reasons.append(f"line {line} mentions “{snippet}”")
    cause = index.position(candidate.cause_id)
    if cause is not None:
        weight += _cause_evidence(index, cause, evidence, reasons)
    for rule in candidate.when:
        result = holds(rule, evidence.values)
        shown = rule_text(rule, evidence.values, kinds)
        if result is True:
            weight += WHEN_TRUE_WEIGHT
            reasons.append(f"the message's numbers fit: {shown}")
        elif result is False:
            weight += WHEN_FALSE_WEIGHT
            reasons.append(f"the message's numbers argue against it: not {shown}")
    phases = evidence.given.phases or evidence.inferred.phases
    if phases and candidate.phases:
        fitting = [p for p in phases if broad(p) in {broad(q) for q in candidate.phases}]
        if fitting:
            weight += PHASE_FITS_WEIGHT
            reasons.append(f"phase {', '.join(fitting)} fits")
        elif evidence.given.phases and contradicts(evidence.given.phases, candidate.phases):
            weight += CONTEXT_DISAGREES_WEIGHT
            reasons.append(f"context disagrees: it happens in {', '.join(candidate.phases)}")
    return weight, reasons


def _cause_evidence(
    index: MatchIndex, cause: int, evidence: PasteEvidence, reasons: list[str]
) -> float:
    weight = 0.0
    similarity, line = evidence.messages.get(cause, (0.0, 0))
    if similarity >= NEIGHBOUR_SIMILARITY:
        weight += OWN_MESSAGE_WEIGHT * similarity
        reasons.append(f"line {line} looks like this cause's own message")
    if cause in evidence.code_paths:
        weight += CODE_PATH_WEIGHT
        reasons.append(f"a frame or log prefix passes through {evidence.code_paths[cause]}")
    gates = context_gates(index.references[cause], evidence.given)
    if gates:
        weight += CONTEXT_DISAGREES_WEIGHT
        reasons.extend(gates[:1])
    return weight


def _no_evidence(number: int) -> str:
    place = "the most common cause" if number == 0 else f"number {number + 1} by how common"
    return f"nothing in the paste points to it or away from it; listed as {place}"
