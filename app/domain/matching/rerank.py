"""Re-rank a reference's causes (a symptom's candidates) by the evidence checks a reader
ran: "ran it: confirms" confirms the causes the check says it confirms, "ran it: rules
out" rules out the ones it says it rules out.

The marks arrive as query parameters (`check3=rules_out`), so a re-ranked page is a URL
that can be shared; they are read here, checked against the reference's checks, and a
mark the check cannot give (a "rules out" on a check that rules nothing out) is an error
naming its field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.references.document import Check
from app.errors import InvalidInput

CheckMark = Literal["confirms", "rules_out"]
CHECK_MARKS: tuple[CheckMark, ...] = ("confirms", "rules_out")
CauseState = Literal["confirmed", "open", "contested", "ruled_out"]
# `check3`: the third evidence check of the reference, as the page's form names it.
CHECK_PARAM = re.compile(r"check([0-9]{1,3})")
# Confirmed causes first, then those no check spoke for (or checks disagree on), then the
# ruled-out ones, which the pages fold away.
STATE_ORDER: dict[CauseState, int] = {"confirmed": 0, "open": 1, "contested": 1, "ruled_out": 2}


@dataclass(frozen=True, slots=True)
class RankedCause:
    """One cause after the marks: its number in the reference's list and why it moved."""

    number: int
    state: CauseState
    confirmed_by: tuple[int, ...] = ()
    ruled_out_by: tuple[int, ...] = ()


def check_field(number: int) -> str:
    """The form field (and query parameter) of check `number`, 1-based."""
    return f"check{number}"


def read_marks(query: Mapping[str, str], checks: Sequence[Check]) -> dict[int, CheckMark]:
    """The marks in `query` by check number; other parameters are left alone and an empty
    value means "not run". InvalidInput names a field that makes no sense."""
    marks: dict[int, CheckMark] = {}
    for name, value in query.items():
        found = CHECK_PARAM.fullmatch(name)
        if found is None or not value:
            continue
        number = int(found.group(1))
        if not 1 <= number <= len(checks):
            raise InvalidInput(
                f"{name}: there is no evidence check {number} (this reference has {len(checks)})",
                field=name,
            )
        if value not in CHECK_MARKS:
            raise InvalidInput(
                f"{name}: must be confirms or rules_out, not {value[:40]!r}", field=name
            )
        mark: CheckMark = "confirms" if value == "confirms" else "rules_out"
        if mark not in marks_possible(checks[number - 1]):
            says = "confirms" if mark == "confirms" else "rules out"
            raise InvalidInput(f"{name}: evidence check {number} {says} no cause", field=name)
        marks[number] = mark
    return marks


def marks_possible(check: Check) -> tuple[CheckMark, ...]:
    """The marks a check can take: those whose causes it names."""
    possible: list[CheckMark] = []
    if check.confirms:
        possible.append("confirms")
    if check.rules_out:
        possible.append("rules_out")
    return tuple(possible)


def rerank(
    order: Sequence[int], checks: Sequence[Check], marks: Mapping[int, CheckMark]
) -> list[RankedCause]:
    """The causes numbered in `order` (the author's, or ranked for a paste), re-ranked by
    the marks: confirmed first (by more checks first), then open and contested ones, then
    the ruled-out ones; each group keeps the order it came in."""
    confirmed: dict[int, list[int]] = {number: [] for number in order}
    ruled_out: dict[int, list[int]] = {number: [] for number in order}
    for check_number, mark in sorted(marks.items()):
        check = checks[check_number - 1]
        named, into = (
            (check.confirms, confirmed) if mark == "confirms" else (check.rules_out, ruled_out)
        )
        for cause in named:
            if cause in into:
                into[cause].append(check_number)
    causes = [
        RankedCause(
            number=number,
            state=_state(confirmed[number], ruled_out[number]),
            confirmed_by=tuple(confirmed[number]),
            ruled_out_by=tuple(ruled_out[number]),
        )
        for number in order
    ]
    place = {number: position for position, number in enumerate(order)}
    return sorted(
        causes,
        key=lambda c: (
            STATE_ORDER[c.state],
            -len(c.confirmed_by) * (c.state == "confirmed"),
            place[c.number],
        ),
    )


def _state(confirmed_by: Sequence[int], ruled_out_by: Sequence[int]) -> CauseState:
    if confirmed_by and ruled_out_by:
        return "contested"
    if confirmed_by:
        return "confirmed"
    return "ruled_out" if ruled_out_by else "open"
