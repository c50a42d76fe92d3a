"""The evidence-check form of a reference page and of a symptom result: each check with the
results it can show (one choice per check) and the causes it names (by title, linked, each
once), and the causes re-ranked by the marks a reader gave (`app.domain.matching.rerank`).
The marks live in the URL, so a re-ranked page can be shared; a mark the page no longer
offers is set aside and said. These shapes only arrange what the domain decided."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...domain.matching.index.card_checks import (
    cause_titles,
    check_hint,
    naming_checks,
    separating_check,
)
from ...domain.matching.judging.rerank import (
    IgnoredMark,
    RankedCause,
    check_field,
    check_options,
    read_marks,
    rerank,
)
from ...domain.matching.results import CandidateMatch, CheckHint
from ...domain.references.document import CheckOutcome, Reference
from .check_names import CauseLink, NamedCauses, first_sentence, named_causes

# The query parameter that says which symptom of a result the marks are for.
MARKED_REFERENCE_PARAM = "r"


@dataclass(frozen=True, slots=True)
class CarriedState:
    """What each form of a reference page carries of the other's state as hidden inputs,
    so submitting one keeps the other's values in the URL: the check marks ride along with
    the calculator's inputs and the calculator's inputs with the marks."""

    for_checks: tuple[tuple[str, str], ...]
    for_calculator: tuple[tuple[str, str], ...]


def carried_state(
    query: Mapping[str, str], checks: Iterable[CheckRow], calculator_inputs: Iterable[str]
) -> CarriedState:
    """The parameters of `query` each form must carry: the calculator's inputs for the
    check form, the checks' marks (those the checks can show, in the URL's order) for the
    calculator."""
    marks = {(row.field, option.value) for row in checks for option in row.options}
    inputs = set(calculator_inputs)
    return CarriedState(
        for_checks=tuple((name, value) for name, value in query.items() if name in inputs),
        for_calculator=tuple(
            (name, value) for name, value in query.items() if (name, value) in marks
        ),
    )


@dataclass(frozen=True, slots=True)
class OptionRow:
    """A result a reader can mark: its form value, its words, the causes it names."""

    value: str
    label: str
    causes: tuple[CauseLink, ...]
    chosen: bool


@dataclass(frozen=True, slots=True)
class CheckRow:
    """One check in the form: what it says (whole, and its first sentence), the results it
    can show, the causes it names."""

    number: int
    field: str
    html: str
    summary: str
    options: tuple[OptionRow, ...]
    marked: bool
    named: NamedCauses


@dataclass(frozen=True, slots=True)
class CauseRow:
    """A cause of the reference page, where the marks put it, with its readers' count."""

    number: int
    title: str
    html: str
    anchor: str
    ranked: RankedCause
    readers: int


@dataclass(frozen=True, slots=True)
class CheckBoard:
    """The reference page's checks and causes: open and confirmed ones, then ruled out;
    and the marks of the link it cannot take."""

    checks: tuple[CheckRow, ...]
    causes: tuple[CauseRow, ...]
    ruled_out: tuple[CauseRow, ...]
    marked: bool
    ignored: tuple[IgnoredMark, ...]


@dataclass(frozen=True, slots=True)
class RankedCandidate:
    """A symptom's candidate as ranked for a paste, then moved by the marks."""

    candidate: CandidateMatch
    ranked: RankedCause


@dataclass(frozen=True, slots=True)
class CandidateBoard:
    """A symptom result's candidates after the marks, its checks for the form, the marks
    of the link it cannot take, and the checks for the top two as the marks left them: the
    one that tells them apart (`apart`) and those that name them (`naming`), never one
    already run."""

    checks: tuple[CheckRow, ...]
    candidates: tuple[RankedCandidate, ...]
    ruled_out: tuple[RankedCandidate, ...]
    marked: bool
    ignored: tuple[IgnoredMark, ...]
    apart: tuple[CheckHint, ...]
    naming: tuple[CheckHint, ...]


def anchor_prefix(reference: Reference) -> str:
    """What the reference page's cause anchors start with: `candidate-` or `cause-`."""
    return "candidate-" if reference.kind == "symptom" else "cause-"


def check_rows(reference: Reference, marks: Mapping[int, CheckOutcome]) -> tuple[CheckRow, ...]:
    """Every check of `reference` for the form, with the result marked for it, if any."""
    titles = cause_titles(reference)
    prefix = anchor_prefix(reference)
    what = "candidate" if reference.kind == "symptom" else "cause"

    def links(numbers: Sequence[int]) -> tuple[CauseLink, ...]:
        return tuple(CauseLink(n, titles[n], f"{prefix}{n}") for n in numbers if n in titles)

    def label(outcome: CheckOutcome) -> str:
        confirms = outcome.verdict == "confirms"
        verb = "confirms" if confirms else "rules out"
        if len(outcome.causes) == 1:
            (number,) = outcome.causes
            title = titles.get(number)
            return f"{verb} {what} {number}" + (f": {title}" if title else "")
        numbers = [str(n) for n in outcome.causes]
        last = (" or " if confirms else " and ") + numbers[-1]
        return f"{verb} {what}s {', '.join(numbers[:-1])}{last}"

    return tuple(
        CheckRow(
            number=number,
            field=check_field(number),
            html=check.html,
            summary=first_sentence(check.html),
            options=tuple(
                OptionRow(
                    option.value,
                    label(option.outcome),
                    links(option.outcome.causes),
                    marks.get(number) == option.outcome,
                )
                for option in check_options(check)
            ),
            marked=number in marks,
            named=named_causes(links(check.confirms), links(check.rules_out)),
        )
        for number, check in enumerate(reference.checks, start=1)
    )


def check_board(
    reference: Reference, query: Mapping[str, str], readers: Mapping[int, int]
) -> CheckBoard:
    """The reference page's checks and causes for the marks in `query` (those it cannot
    take set aside)."""
    read = read_marks(query, reference.checks)
    marks = read.given
    items = reference.candidates if reference.kind == "symptom" else reference.causes
    prefix = anchor_prefix(reference)
    order = range(1, len(items) + 1)
    rows = [
        CauseRow(
            number=ranked.number,
            title=items[ranked.number - 1].title,
            html=items[ranked.number - 1].html,
            anchor=f"{prefix}{ranked.number}",
            ranked=ranked,
            readers=readers.get(ranked.number, 0),
        )
        for ranked in rerank(order, marks)
    ]
    return CheckBoard(
        checks=check_rows(reference, marks),
        causes=tuple(row for row in rows if row.ranked.state != "ruled_out"),
        ruled_out=tuple(row for row in rows if row.ranked.state == "ruled_out"),
        marked=bool(marks),
        ignored=read.ignored,
    )


def candidate_board(
    symptom: Reference, candidates: Sequence[CandidateMatch], query: Mapping[str, str]
) -> CandidateBoard:
    """A symptom result's candidates (ranked for the paste) moved by the marks in `query`
    when they are for this symptom (`?r=<id>`), with its checks for the form and those for
    the top two after the marks."""
    marked = query.get(MARKED_REFERENCE_PARAM) == symptom.id
    read = read_marks(query, symptom.checks) if marked else None
    marks = read.given if read else {}
    by_number = {candidate.number: candidate for candidate in candidates}
    ranked = [
        RankedCandidate(by_number[cause.number], cause) for cause in rerank(list(by_number), marks)
    ]
    standing = tuple(c for c in ranked if c.ranked.state != "ruled_out")
    top = [c.candidate.number for c in standing[:2]]
    ran = {number - 1 for number in marks}
    apart = separating_check(symptom, top, ran)
    return CandidateBoard(
        checks=check_rows(symptom, marks),
        candidates=standing,
        ruled_out=tuple(c for c in ranked if c.ranked.state == "ruled_out"),
        marked=bool(marks),
        ignored=read.ignored if read else (),
        apart=() if apart is None else (check_hint(symptom, apart + 1),),
        naming=tuple(check_hint(symptom, p + 1) for p in naming_checks(symptom, top, ran)),
    )


def symptom_boards(
    references: Mapping[str, Reference],
    results: Iterable[tuple[str, Sequence[CandidateMatch]]],
    query: Mapping[str, str],
) -> dict[str, CandidateBoard]:
    """The candidate board of every symptom among `results` (id and ranked candidates)."""
    boards: dict[str, CandidateBoard] = {}
    for reference_id, candidates in results:
        symptom = references.get(reference_id)
        if symptom is not None and symptom.kind == "symptom" and reference_id not in boards:
            boards[reference_id] = candidate_board(symptom, candidates, query)
    return boards
