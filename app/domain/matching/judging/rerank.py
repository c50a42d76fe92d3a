"""Re-rank a reference's causes (a symptom's candidates) by the evidence checks a reader
ran. A check can show one of a few results, as its text names them ("**confirms**
candidate 6", "**rules out** candidate 6"); the reader marks the one it showed, and the
causes it names move up (confirmed) or fold away (ruled out).

The marks arrive as query parameters, so a re-ranked page is a URL that can be shared:
`check3=rules_out` when check 3 has one "rules out" result, `check1=confirms-1-2-3` when it
has several (the causes name which). They are read here and checked against the
reference's checks. A shared link outlives edits to the page, so a mark the page no longer
offers (a check it lost, a result the check no longer names) is set aside, with why, for
the page to say, never refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ...references.document import Check, CheckOutcome

CauseState = Literal["confirmed", "open", "contested", "ruled_out"]
# `check3`: the third evidence check of the reference, as the page's form names it.
CHECK_PARAM = re.compile(r"check([0-9]{1,3})")
# Confirmed causes first, then those no check spoke for (or checks disagree on), then the
# ruled-out ones, which the pages fold away.
STATE_ORDER: dict[CauseState, int] = {"confirmed": 0, "open": 1, "contested": 1, "ruled_out": 2}
# How much of a mark's value an ignored mark repeats: a link may carry anything.
MAX_IGNORED_VALUE_CHARS = 40


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


@dataclass(frozen=True, slots=True)
class CheckOption:
    """A result a reader can mark for a check, with the value the form sends for it."""

    value: str
    outcome: CheckOutcome


def check_options(check: Check) -> tuple[CheckOption, ...]:
    """The results a check can show, each with its value: the bare verdict when the check
    has one result of that verdict, else the verdict and the causes it names."""
    verdicts = [outcome.verdict for outcome in check.outcomes]
    return tuple(
        CheckOption(
            outcome.verdict
            if verdicts.count(outcome.verdict) == 1
            else "-".join([outcome.verdict, *map(str, outcome.causes)]),
            outcome,
        )
        for outcome in check.outcomes
    )


@dataclass(frozen=True, slots=True)
class IgnoredMark:
    """A mark of the query that this reference cannot take, and why."""

    field: str
    value: str
    why: str


@dataclass(frozen=True, slots=True)
class Marks:
    """The marks read from a query: the results given, by check number, and those set aside."""

    given: dict[int, CheckOutcome]
    ignored: tuple[IgnoredMark, ...] = ()


def read_marks(query: Mapping[str, str], checks: Sequence[Check]) -> Marks:
    """The results marked in `query`, by check number; other parameters are left alone and
    an empty value means "not run". A mark naming a check the reference does not have, or a
    result its check cannot show, is ignored, with why."""
    given: dict[int, CheckOutcome] = {}
    ignored: list[IgnoredMark] = []
    for name, value in query.items():
        found = CHECK_PARAM.fullmatch(name)
        if found is None or not value:
            continue
        shown_value = value[:MAX_IGNORED_VALUE_CHARS]
        number = int(found.group(1))
        if not 1 <= number <= len(checks):
            why = f"this page has no check {number}; it has {len(checks)}"
            ignored.append(IgnoredMark(name, shown_value, why))
            continue
        options = {option.value: option.outcome for option in check_options(checks[number - 1])}
        if value not in options:
            offered = ", ".join(options) or "no result: it names no cause by number"
            why = f"check {number} cannot show that; it can show {offered}"
            ignored.append(IgnoredMark(name, shown_value, why))
            continue
        given[number] = options[value]
    return Marks(given, tuple(ignored))


def rerank(order: Sequence[int], marks: Mapping[int, CheckOutcome]) -> list[RankedCause]:
    """The causes numbered in `order` (the author's, or ranked for a paste), re-ranked by
    the marks: confirmed first (by more checks first), then open and contested ones, then
    the ruled-out ones; each group keeps the order it came in."""
    confirmed: dict[int, list[int]] = {number: [] for number in order}
    ruled_out: dict[int, list[int]] = {number: [] for number in order}
    for check_number, outcome in sorted(marks.items()):
        into = confirmed if outcome.verdict == "confirms" else ruled_out
        for cause in outcome.causes:
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
