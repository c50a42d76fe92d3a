"""What to run next for a match: a cause's most telling evidence checks, or the one check
that tells a symptom's top two candidates apart; and the checks that name those two,
shown under its ranked candidates.

A reader at a result card should be able to act without opening the reference, so each
card carries a few checks with their commands. Which ones is read from the data the
parser keeps for each check (the causes it confirms and rules out, by number), never
from its prose. What depends on the reference alone, its hints and a cause's telling
ones, is worked out once per index (`CardChecks`, read through `MatchIndex.checks`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from ...references.document import Check, Reference
from ..results import CandidateMatch, CheckHint

# Two or three checks are what a card has room for; the reference page lists them all.
MAX_TELLING_CHECKS = 3
# Checks shown under a symptom's ranked candidates, naming the top two.
MAX_CHECK_HINTS = 2


def check_hint(reference: Reference, number: int) -> CheckHint:
    """Check `number` (1-based) of `reference`, with the titles of the causes it names."""
    return _hint(reference.checks[number - 1], number, cause_titles(reference))


def check_hints(reference: Reference) -> tuple[CheckHint, ...]:
    """Every check of `reference` as `check_hint` gives it, its causes' titles read once."""
    titles = cause_titles(reference)
    return tuple(_hint(check, n, titles) for n, check in enumerate(reference.checks, start=1))


def _hint(check: Check, number: int, titles: Mapping[int, str]) -> CheckHint:
    return CheckHint(
        text=check.markdown,
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


def telling_order(reference: Reference) -> list[int]:
    """A cause's checks (0-based), most telling first: one with a command before one
    without, then the one naming the likelier cause, then one that both confirms and
    rules out, then the author's order."""
    # A check naming no cause by number goes after every one that does.
    unnamed = len(cause_titles(reference)) + 1

    def telling(position: int) -> tuple[bool, int, bool, int]:
        check = reference.checks[position]
        named = set(check.confirms) | set(check.rules_out)
        decisive = bool(check.confirms) and bool(check.rules_out)
        return (not check.commands, min(named, default=unnamed), not decisive, position)

    return sorted(range(len(reference.checks)), key=telling)


def separating_check(
    symptom: Reference, top: Sequence[int], skip: Set[int] = frozenset()
) -> int | None:
    """The one check (0-based) that tells the top two candidates (by number) apart: one
    that confirms one and rules out the other, else one that names only one of them; None
    when no check does. Checks in `skip` (0-based: those a reader already ran) are not
    offered again."""
    if len(top) < 2:
        return None
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
        if position not in skip and (kind := splits(check)) is not None
    ]
    return min(found)[1] if found else None


def naming_checks(
    symptom: Reference, top: Sequence[int], skip: Set[int] = frozenset()
) -> list[int]:
    """The checks (0-based) naming the top candidates (by number), those naming more of
    them first, then one that splits them, then the author's order; MAX_CHECK_HINTS. Checks
    in `skip` (0-based) are left out."""
    if not top:
        return []
    wanted = set(top)
    ranked = []
    for position, check in enumerate(symptom.checks):
        if position in skip:
            continue
        confirmed, ruled_out = set(check.confirms) & wanted, set(check.rules_out) & wanted
        overlap = len(confirmed | ruled_out)
        if not overlap:
            continue
        splits = any(a != b for a in confirmed for b in ruled_out)
        ranked.append((-(2 * overlap + splits), position))
    ranked.sort()
    return [position for _, position in ranked[:MAX_CHECK_HINTS]]


@dataclass(frozen=True, slots=True)
class CardChecks:
    """A reference's checks as result cards offer them: every check as a hint, in the
    author's order, and a cause's most telling ones. The hints are shared by every
    answer that shows them (`CheckHint` is frozen)."""

    reference: Reference
    hints: tuple[CheckHint, ...]
    telling: tuple[CheckHint, ...]
    # What a symptom's top candidates (by number) get, worked out the first time they
    # come top: a symptom's candidates come top in few orders, and answers share them.
    _for_top: dict[tuple[int, ...], _TopChecks] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def of(cls, reference: Reference) -> CardChecks:
        """The card checks of one reference."""
        hints = check_hints(reference)
        telling = tuple(hints[p] for p in telling_order(reference)[:MAX_TELLING_CHECKS])
        return cls(reference, hints, telling)

    def next_checks(self, candidates: Sequence[CandidateMatch]) -> list[CheckHint]:
        """What a result card offers to run next, for a cause or for a ranked symptom."""
        if self.reference.kind != "symptom":
            return list(self.telling)
        return list(self._top([candidate.number for candidate in candidates[:2]]).separating)

    def naming(self, top: Sequence[int]) -> list[CheckHint]:
        """The hints of `naming_checks` for these top candidates (by number)."""
        return list(self._top(top).naming)

    def _top(self, top: Sequence[int]) -> _TopChecks:
        key = tuple(top)
        found = self._for_top.get(key)
        if found is None:
            position = separating_check(self.reference, key)
            found = self._for_top[key] = _TopChecks(
                naming=tuple(self.hints[p] for p in naming_checks(self.reference, key)),
                separating=() if position is None else (self.hints[position],),
            )
        return found


@dataclass(frozen=True, slots=True)
class _TopChecks:
    """A symptom's checks for one pair of top candidates: those naming them, and the one
    that tells them apart (none or one)."""

    naming: tuple[CheckHint, ...]
    separating: tuple[CheckHint, ...]
