"""How the matcher ranks references for their own messages and for the labelled lines, so
authors see a collision before it ships (`failref check`, the editor's preview)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...references.document import Message, Reference
from ...references.graph import linked, symptom_causes
from ...references.problems import Problem
from ..index.match_index import IndexCache, MatchIndex, build_index
from ..judging.judge import ANSWERING_KINDS, QUIET_MESSAGE_LEVELS
from ..messages.match import match_text
from ..reading.evidence import line_level
from ..results import Match, MatchResult
from .labelled import LabelledLine

RULE = "matcher"


def answers(result: MatchResult, expected: str | None) -> bool:
    """True when a paste's result answers with `expected`: its first match names it; or the
    text was recognised as that page's normal output (a `healthy` block: vLLM's notice that
    it turned custom all-reduce off) and nothing matched it with confidence. A page of
    normal lines (`kind: healthy`) comes first only for a paste of warnings that no failure
    message resembles (`messages.warning_lines`)."""
    recognised = any(line.id == expected for line in result.healthy_lines) and not any(
        match.confident for match in result.matches
    )
    return recognised or (bool(result.matches) and names(result.matches[0], expected))


def names(match: Match, expected: str | None) -> bool:
    """True when a match answers with `expected`: it is that reference, or it is a symptom
    whose first candidate for this text is."""
    if match.id == expected:
        return True
    return match.kind == "symptom" and bool(match.candidates) and match.candidates[0].id == expected


@dataclass(frozen=True)
class LineVerdict:
    """Where the matcher put one line: its best reference, and whether confidently."""

    line: LabelledLine
    top: str | None
    confident: bool
    answers: bool = False  # the top match names the expected reference (or its candidate)

    @property
    def right(self) -> bool:
        return self.answers if self.confident else self.line.expected is None


def message_problems(index: MatchIndex, references: Sequence[Reference]) -> list[Problem]:
    """What each message block of `references` must do in `index`: a failure ranks its own
    reference first and confidently (a failure line logged at INFO or DEBUG, or one a
    line cannot judge, first), a diagnostic ranks it first, and a healthy block is
    recognised as normal output and matches no failure confidently. A failure that also
    matches another reference confidently is a collision, allowed only between a symptom
    and one of its causes."""
    links = symptom_causes(index.references)
    problems: list[Problem] = []
    for reference in references:
        for message in reference.messages:
            result = match_text(index, message.text, limit=3)
            found = _block_problems(reference, message, result, links)
            problems.extend(Problem(reference.path, message.line, RULE, text) for text in found)
    return problems


def _block_problems(
    reference: Reference, message: Message, result: MatchResult, links: dict[str, frozenset[str]]
) -> list[str]:
    ranked = result.matches
    if message.kind == "healthy":
        loud = [m for m in ranked if m.confident]
        if loud:
            return [f"healthy block matches {loud[0].id} as a failure ({loud[0].score:.2f})"]
        if not any(line.id == reference.id for line in result.healthy_lines):
            return ["healthy block is not recognised as normal output (a failure line is closer)"]
        return []
    problems: list[str] = []
    top = ranked[0] if ranked else None
    # A failure line logged at INFO, or one line cannot judge, is a lead, never confident
    # (`judging.judge`).
    quiet = line_level(message.text.splitlines()[0]) in QUIET_MESSAGE_LEVELS
    wanted_confident = message.kind in ANSWERING_KINDS and not quiet and not message.judged_across
    if top is None or top.id != reference.id or (wanted_confident and not top.confident):
        best = f"{top.id} ({top.score:.2f})" if top else "nothing"
        how = " with confidence" if wanted_confident else ""
        problems.append(f"message does not rank its own reference first{how}: {best}")
    for other in ranked:
        if (
            other.id != reference.id
            and other.confident
            and not linked(links, reference.id, other.id)
        ):
            problems.append(f"message also matches {other.id} confidently ({other.score:.2f})")
    return problems


def judge_lines(index: MatchIndex, lines: Sequence[LabelledLine]) -> list[LineVerdict]:
    """Where the matcher puts each labelled line."""
    verdicts = []
    for line in lines:
        result = match_text(index, line.text, limit=1)
        top = result.matches[0] if result.matches else None
        verdicts.append(
            LineVerdict(
                line,
                top.id if top else None,
                bool(top and top.confident),
                answers(result, line.expected),
            )
        )
    return verdicts


def index_with_edit(
    references: Sequence[Reference], edited: Reference, cache: IndexCache | None = None
) -> MatchIndex:
    """The match index as it would be after saving `edited` (updated from a fork of
    `cache`, when given, which stays as it was)."""
    edited_refs = [r for r in references if r.id != edited.id] + [edited]
    return build_index(edited_refs, cache.fork() if cache else None)
