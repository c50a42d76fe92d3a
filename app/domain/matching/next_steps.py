"""What to run next for a match: a cause's most telling evidence checks, or the one check
that tells a symptom's top two candidates apart.

A reader at a result card should be able to act without opening the reference, so each
card carries a few checks with their commands. Which ones is read from the data the
parser keeps for each check (the causes it confirms and rules out, by number), never
from its prose.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.matching.results import CandidateMatch, CheckHint
from app.domain.references.document import Check, Reference

# Two or three checks are what a card has room for; the reference page lists them all.
MAX_TELLING_CHECKS = 3


def check_hint(reference: Reference, number: int) -> CheckHint:
    """Check `number` (1-based) of `reference`, with the titles of the causes it names."""
    check = reference.checks[number - 1]
    titles = cause_titles(reference)
    return CheckHint(
        text=check.markdown,
        html=check.html,
        commands=list(check.commands),
        confirms=[titles[n] for n in check.confirms if n in titles],
        rules_out=[titles[n] for n in check.rules_out if n in titles],
        number=number,
        confirms_numbers=list(check.confirms),
        rules_out_numbers=list(check.rules_out),
    )


def cause_titles(reference: Reference) -> dict[int, str]:
    """The titles of a reference's causes (a symptom's candidates), by 1-based number."""
    items = reference.candidates if reference.kind == "symptom" else reference.causes
    return {number: title for number, title in enumerate((i.title for i in items), start=1)}


def telling_checks(reference: Reference, limit: int = MAX_TELLING_CHECKS) -> list[CheckHint]:
    """A cause's most telling checks: one with a command before one without, then the one
    naming the likelier cause, then one that both confirms and rules out, then the
    author's order."""

    def telling(position: int) -> tuple[bool, int, bool, int]:
        check = reference.checks[position]
        named = set(check.confirms) | set(check.rules_out)
        # A check naming no cause by number goes after every one that does.
        likeliest = min(named) if named else len(cause_titles(reference)) + 1
        decisive = bool(check.confirms) and bool(check.rules_out)
        return (not check.commands, likeliest, not decisive, position)

    chosen = sorted(range(len(reference.checks)), key=telling)[:limit]
    return [check_hint(reference, position + 1) for position in chosen]


def separating_check(symptom: Reference, top: Sequence[int]) -> list[CheckHint]:
    """The one check that tells the top two candidates (by number) apart: one that
    confirms one and rules out the other, else one that names only one of them; none when
    no check does."""
    if len(top) < 2:
        return []
    first, second = top[0], top[1]

    def splits(check: Check) -> int | None:
        confirms, rules_out = set(check.confirms), set(check.rules_out)
        if (first in confirms and second in rules_out) or (
            second in confirms and first in rules_out
        ):
            return 0
        named = (confirms | rules_out) & {first, second}
        return 1 if len(named) == 1 else None

    found = [
        (kind, position)
        for position, check in enumerate(symptom.checks)
        if (kind := splits(check)) is not None
    ]
    return [check_hint(symptom, min(found)[1] + 1)] if found else []


def next_checks(reference: Reference, candidates: Sequence[CandidateMatch]) -> list[CheckHint]:
    """What a result card offers to run next, for a cause or for a ranked symptom."""
    if reference.kind == "symptom":
        return separating_check(reference, [c.number for c in candidates[:2]])
    return telling_checks(reference)
