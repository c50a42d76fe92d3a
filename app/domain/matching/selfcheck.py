"""How the matcher ranks references for their own messages and for the labelled lines, so
authors see a collision before it ships (`failref check`, the editor's preview)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.matching.index import MatchIndex, build_index
from app.domain.matching.labelled import LabelledLine
from app.domain.matching.rank import match_text
from app.domain.references.document import Reference
from app.domain.references.problems import Problem

RULE = "matcher"


@dataclass(frozen=True)
class LineVerdict:
    """Where the matcher put one line: its best reference, and whether confidently."""

    line: LabelledLine
    top: str | None
    confident: bool

    @property
    def right(self) -> bool:
        return self.top == self.line.expected if self.confident else self.line.expected is None


def message_problems(index: MatchIndex, references: Sequence[Reference]) -> list[Problem]:
    """Each message of `references` must rank its own reference first and confidently in
    `index`; a message that also matches another reference confidently is a collision."""
    problems = []
    for reference in references:
        for message in reference.messages:
            result = match_text(index, message.text, limit=3)
            ranked = result.matches
            if not ranked or ranked[0].id != reference.id or not ranked[0].confident:
                best = f"{ranked[0].id} ({ranked[0].score:.2f})" if ranked else "nothing"
                text = f"message does not rank its own reference first with confidence: {best}"
                problems.append(Problem(reference.path, message.line, RULE, text))
            for other in ranked:
                if other.id != reference.id and other.confident:
                    text = f"message also matches {other.id} confidently ({other.score:.2f})"
                    problems.append(Problem(reference.path, message.line, RULE, text))
    return problems


def judge_lines(index: MatchIndex, lines: Sequence[LabelledLine]) -> list[LineVerdict]:
    """Where the matcher puts each labelled line."""
    verdicts = []
    for line in lines:
        matches = match_text(index, line.text, limit=1).matches
        top = matches[0] if matches else None
        verdicts.append(LineVerdict(line, top.id if top else None, bool(top and top.confident)))
    return verdicts


def index_with_edit(references: Sequence[Reference], edited: Reference) -> MatchIndex:
    """The match index as it would be after saving `edited`."""
    return build_index([r for r in references if r.id != edited.id] + [edited])
