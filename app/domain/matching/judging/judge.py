"""From a reference's score to what the answer says about it: whether it is confident,
what its message kind and verdict are, its candidate causes when it is a symptom, and why,
in plain words.

Confidence takes more than a high score. A line logged at INFO is not the warning or
error a message describes; a context that contradicts the reference (a training run
against a serving failure) removes confidence and says so; a diagnostic line is a
failure only when its values say failing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ...references.document import Message, Reference
from ...references.values import (
    Value,
    read_values,
    rule_text,
    slot_kinds,
    value_text,
    verdict,
)
from ..index.match_index import MatchIndex
from ..reading.context import QueryContext
from ..reading.evidence import line_level, normal_output, quieter
from ..results import (
    CandidateMatch,
    CheckHint,
    HealthyLine,
    Match,
    MessageMatch,
    ValueVerdict,
)
from ..scoring.scorer import Scored, Scorer
from ..search.compare import LineScore, LineScores
from .candidates import PasteEvidence, evidence_text, rank_candidates
from .failure_words import lines_before, says_less
from .gates import context_gates
from .spans import span_gate
from .specific import narrower_matches
from .telling import families_differ

# When a match is confident. Chosen on the labelled set (tests/data/labelled: 107 lines of
# 15 references, 29 unrelated lines; tests/content/test_labelled_set.py). The best score of
# every unrelated line is at most 0.40, and of a wrong top-1 at most 0.34 but for one
# metrics line two references share (0.84). Lines between 0.4 and 0.7 are partial matches (a
# neighbouring line of the failure, a metric name): leads, not proof. 0.70 keeps a 0.30
# margin over every unrelated line, leaves 84 of 99 correct top-1 lines confident, and gives
# the shipped references no confident collision (0.65 would flag one: a bare `GPU KV cache
# size` line against kv-cache-exhaustion).
CONFIDENT_THRESHOLD = 0.70
# Message lines whose raw text a telling-span comparison looked up, remembered.
MESSAGE_LINES_KEPT = 4096
_WORDS_RE = re.compile(r"[a-z0-9_]+")
# A failure message logged at these levels (NCCL's `INFO NET/Socket : Using`) is what many
# healthy runs print too: it is a lead for its page, never a confident answer.
QUIET_MESSAGE_LEVELS = frozenset({"info", "debug"})
# Why a message that is one telling word does not answer a line saying more (`leads` reads
# it: such a resemblance rests on one word, a poorer lead than a longer message's).
ONE_TELLING_WORD = "shares only one telling word with its message"


# Message kinds a close match answers with confidently: a failure, and a warning pasted
# alone (in a log a warning is never a failure: `logs.scan`).
ANSWERING_KINDS = frozenset({"failure", "warning"})
# A line of this many informative words or fewer that matches a longer message (`local_rank:
# 3` inside torchrun's summary line) says too little to be a confident answer.
FEW_WORDS = 2
# How closely a line matched, in the words reasons use.
CLOSE_MATCH = 0.85
PARTIAL_MATCH = 0.6
# A healthy line is quoted this long.
HEALTHY_TEXT_CHARS = 300
MESSAGE_QUOTE_CHARS = 90


class Judge:
    """Turns scored references of one paste into matches."""

    def __init__(
        self,
        index: MatchIndex,
        scorer: Scorer,
        text: str,
        neighbours: Sequence[tuple[int, LineScores]],
        ranked: Sequence[tuple[int, Scored]] = (),
    ) -> None:
        self.index = index
        self.scorer = scorer
        self.text = text
        self.neighbours = neighbours
        # References a more fitting message on the same line outdoes (`judging.specific`).
        self.narrower = narrower_matches(index, ranked, neighbours)
        # The text lowered and where each candidate's snippet is in it, for every symptom.
        self._snippet_lines: dict[str, int | None] = {}
        self._lowered = ""

    def match(self, ref: int, scored: Scored) -> Match:
        reference = self.index.references[ref]
        line = scored.line
        message = message_of(self.index, line)
        score = round(min(1.0, scored.raw), 3)
        span = scored.span
        pasted = self.text[span[0] : span[1]] if span is not None else ""
        before = lines_before(self.text, span[0]) if span is not None else ""
        gates = gates_for(self.index, reference, self.scorer.context, scored, pasted, before)
        if ref in self.narrower:
            gates.append(self.narrower[ref])
        found = diagnostic_verdict(message, self.text)
        candidates: list[CandidateMatch] = []
        checks: list[CheckHint] = []
        if reference.kind == "symptom":
            evidence = self._evidence(reference, scored)
            candidates, checks = rank_candidates(self.index, ref, evidence)
        return Match(
            id=reference.id,
            title=reference.title,
            summary=reference.summary,
            kind=reference.kind,
            score=score,
            confident=is_confident(score, message, found, gates),
            reasons=self._reasons(ref, scored, message, found, gates),
            matched_message=message.text if message else None,
            matched_span=scored.span,
            message_kind=message.kind if message else None,
            message_match=strength(line),
            verdict=found,
            context_disagrees=disagrees(gates),
            held_back=gates,
            candidates=candidates,
            checks=checks,
            next_checks=self.index.checks[ref].next_checks(candidates),
        )

    def _evidence(self, symptom: Reference, scored: Scored) -> PasteEvidence:
        slots = [slot for message in symptom.messages for slot in message.slots]
        causes = sorted(
            {
                ref
                for candidate in symptom.candidates
                if (ref := self.index.position(candidate.cause_id)) is not None
            }
        )
        messages: dict[int, tuple[float, int]] = {}
        pasted = self.text.splitlines()
        for number, scores in self.neighbours:
            if number == scored.line_number:
                continue  # the symptom's own line says nothing about its cause
            level = line_level(pasted[number - 1]) if number <= len(pasted) else None
            for ref in causes:
                line = scores.best_line(self.index, ref)
                if line is None or self.index.entry_kinds[line.entry] not in ANSWERING_KINDS:
                    continue
                if normal_output(level, self.index.entry_levels[line.entry]):
                    continue
                if line.similarity > messages.get(ref, (0.0, 0))[0]:
                    messages[ref] = (line.similarity, number)
        if not self._lowered:
            self._lowered = evidence_text(self.text)
        return PasteEvidence(
            text=self.text,
            lowered_text=self._lowered,
            snippet_lines=self._snippet_lines,
            values=read_values(self.text, slots),
            messages=messages,
            code_paths=self.scorer.code_paths,
            given=self.scorer.context.given,
            inferred=self.scorer.context.inferred,
        )

    def _reasons(
        self,
        ref: int,
        scored: Scored,
        message: Message | None,
        value_verdict: ValueVerdict | None,
        gates: list[str],
    ) -> list[str]:
        reasons = message_reasons(scored, message, value_verdict)
        _, shared = self.scorer.keywords(ref)
        if shared:
            reasons.append(f"its title or tags share words with your text: {', '.join(shared[:6])}")
        if ref in self.scorer.code_paths:
            path = self.scorer.code_paths[ref]
            reasons.append(f"a frame or log prefix passes through {path}, a code path it names")
        reasons.extend(self.scorer.offset(ref)[1])
        reasons.extend(gates)
        return reasons


def message_of(index: MatchIndex, line: LineScore | None) -> Message | None:
    """The reference message a line score rests on."""
    if line is None:
        return None
    return index.references[line.ref].messages[index.entry_messages[line.entry]]


def gates_for(
    index: MatchIndex,
    reference: Reference,
    context: QueryContext,
    scored: Scored,
    text: str,
    before: str = "",
) -> list[str]:
    """Why a match may not be confident whatever its score: the run's context disagrees,
    the line (`text`, with `before`, the lines above it, which a wrapped line continues) says
    nothing failed where its message does, the line was logged below the level of the
    failure it resembles, it holds too few
    words to tell, its message is one telling word the line says more than (`NCCL timeout`
    against faulthandler's `Timeout (0:30:00)!`), its message is normal output at INFO, or
    the telling span of the line (`text`, the matched line as pasted) names something else
    than the message's."""
    gates = context_gates(reference, context.given)
    line = scored.line
    if line is None:
        return gates
    # Only a match that could be confident is worth the telling-span comparison.
    could_be = bool(text) and scored.raw >= CONFIDENT_THRESHOLD
    meant = message_line(index, reference, line.entry) if could_be else ""
    libraries = families_differ(text, meant) if could_be else None
    if libraries is not None:
        gates.append(
            f"line {scored.line_number} is an error from {libraries[0]}, where its message "
            f"is one from {libraries[1]}"
        )
    if could_be and says_less(f"{before}\n{text}", meant):
        gates.append(
            f"line {scored.line_number} says nothing failed where its message does: a "
            "settings or status line that shares its words"
        )
    spans = span_gate(index, line.ref, text, meant) if could_be else None
    if spans is not None:
        gates.append(f"line {scored.line_number} {spans}")
    if quieter(scored.level, index.entry_levels[line.entry]):
        gates.append(f"line {scored.line_number} is logged at {scored.level}, not as a failure")
    elif 0 < line.words <= FEW_WORDS < len(index.entry_weights[line.entry]):
        gates.append(
            f"line {scored.line_number} holds {line.words} of its message's "
            f"{len(index.entry_weights[line.entry])} telling words: too few to tell"
        )
    elif len(index.entry_weights[line.entry]) == 1 < line.words:
        gates.append(f"line {scored.line_number} {ONE_TELLING_WORD}, and says more than it")
    elif index.entry_levels[line.entry] in QUIET_MESSAGE_LEVELS:
        level = index.entry_levels[line.entry]
        gates.append(
            f"its message is logged at {level}: normal output on most runs, which only its "
            "checks can show to be this failure"
        )
    return gates


def message_line(index: MatchIndex, reference: Reference, entry: int) -> str:
    """The line of a reference's message that a message line (an index entry) is."""
    return _line_of(reference.messages[index.entry_messages[entry]].text, index.entry_keys[entry])


@lru_cache(maxsize=MESSAGE_LINES_KEPT)
def _line_of(text: str, key: str) -> str:
    """The line of a message block sharing the most words with one of its comparison keys
    (the key is the line normalised: its words are the line's, lower case)."""
    wanted = set(key.split())
    lines = text.splitlines() or [""]
    return max(lines, key=lambda line: len(wanted.intersection(_WORDS_RE.findall(line.lower()))))


def diagnostic_verdict(message: Message | None, text: str) -> ValueVerdict | None:
    """A diagnostic message read with the values of `text`; None for other kinds."""
    if message is None or message.kind != "diagnostic":
        return None
    return value_verdict(message, read_values(text, message.slots))


def is_confident(
    score: float, message: Message | None, found: ValueVerdict | None, gates: list[str]
) -> bool:
    """Confident: a high score on a failure message (or a diagnostic read as failing), and
    nothing in the context or the line's level against it. A message one line cannot judge
    (`judged_across`: a per-rank count, a warning that names a risk) never is."""
    if score < CONFIDENT_THRESHOLD or gates or message is None or message.judged_across:
        return False
    return message.kind in ANSWERING_KINDS or (found is not None and found.state == "failing")


def disagrees(gates: list[str]) -> bool:
    """True when one of the gates is the run's context."""
    return any(gate.startswith("context disagrees") for gate in gates)


def message_reasons(
    scored: Scored, message: Message | None, found: ValueVerdict | None
) -> list[str]:
    """Which line matched which message, and a diagnostic's reading, in words."""
    reasons = [_message_reason(scored, message)]
    if message is not None and message.judged_across:
        reasons.append(
            f"one line of this cannot show the failure; judged only across lines: "
            f"{message.judged_across}"
        )
    elif found is not None:
        reasons.append(_verdict_reason(found))
    return reasons


def strength(line: LineScore | None) -> MessageMatch | None:
    """How closely a line matched its message, in words."""
    if line is None:
        return None
    if line.similarity >= CLOSE_MATCH:
        return "close"
    return "partial" if line.similarity >= PARTIAL_MATCH else "loose"


def _message_reason(scored: Scored, message: Message | None) -> str:
    if message is None or scored.line is None:
        return "no line matched one of its messages; only its title, tags or code paths did"
    quoted = _quote(message.text)
    where = f"line {scored.line_number}" if scored.line_number else "your text"
    close = strength(scored.line)
    if close == "close":
        return f"{where} matches its message “{quoted}”"
    if close == "partial":
        return f"{where} matches part of its message “{quoted}”"
    return f"{where} only loosely resembles its message “{quoted}”"


def _verdict_reason(found: ValueVerdict) -> str:
    read = ", ".join(f"{name} {value}" for name, value in found.values.items()) or "no value"
    rule = " or ".join(found.rule)
    if found.state == "unknown":
        return f"this is the output of a check; read {read}, not enough to judge ({rule})"
    return f"this is the output of a check; read {read}: {found.state} (failing when {rule})"


def _quote(text: str) -> str:
    first = text.strip().split("\n", 1)[0]
    return first if len(first) <= MESSAGE_QUOTE_CHARS else first[: MESSAGE_QUOTE_CHARS - 1] + "…"


def value_verdict(message: Message, values: dict[str, Value]) -> ValueVerdict:
    """A diagnostic message read with the values found: failing, healthy or unknown."""
    kinds = slot_kinds(message.slots)
    return ValueVerdict(
        state=verdict(message.failing_when, message.healthy_when, values),
        values={name: value_text(value, kinds.get(name, "n")) for name, value in values.items()},
        rule=[rule_text(rule, values, kinds) for rule in message.failing_when],
    )


def healthy_line(index: MatchIndex, raw: str, line: LineScore) -> HealthyLine:
    """A pasted line set aside as normal output."""
    reference = index.references[line.ref]
    message = reference.messages[index.entry_messages[line.entry]]
    return HealthyLine(
        text=raw.strip()[:HEALTHY_TEXT_CHARS],
        id=reference.id,
        title=reference.title,
        message=message.text,
    )
