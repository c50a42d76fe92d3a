"""The evidence-check form of a reference page and of a symptom result: each check with the
marks it can take and the causes it names (by title, linked), and the causes re-ranked by
the marks a reader gave (`app.domain.matching.rerank`). The marks live in the URL, so a
re-ranked page can be shared; these shapes only arrange what the domain decided."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...domain.matching.index.card_checks import cause_titles
from ...domain.matching.judging.rerank import (
    RankedCause,
    check_field,
    check_options,
    read_marks,
    rerank,
)
from ...domain.matching.results import CandidateMatch
from ...domain.references.document import CheckOutcome, Reference

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
    check form, the checks' marks (those given, in the URL's order) for the calculator."""
    marks = {row.field for row in checks}
    inputs = set(calculator_inputs)
    return CarriedState(
        for_checks=tuple((name, value) for name, value in query.items() if name in inputs),
        for_calculator=tuple(
            (name, value) for name, value in query.items() if name in marks and value
        ),
    )


@dataclass(frozen=True, slots=True)
class CauseLink:
    """A cause a check names: its number, title and anchor on the reference page."""

    number: int
    title: str
    anchor: str


@dataclass(frozen=True, slots=True)
class OptionRow:
    """A result a reader can mark: its form value, its words, the causes it names."""

    value: str
    label: str
    causes: tuple[CauseLink, ...]
    chosen: bool


@dataclass(frozen=True, slots=True)
class CheckRow:
    """One check in the form: the results it can show, the causes it names."""

    number: int
    field: str
    html: str
    options: tuple[OptionRow, ...]
    marked: bool
    confirms: tuple[CauseLink, ...]
    rules_out: tuple[CauseLink, ...]


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
    """The reference page's checks and causes: open and confirmed ones, then ruled out."""

    checks: tuple[CheckRow, ...]
    causes: tuple[CauseRow, ...]
    ruled_out: tuple[CauseRow, ...]
    marked: bool


@dataclass(frozen=True, slots=True)
class RankedCandidate:
    """A symptom's candidate as ranked for a paste, then moved by the marks."""

    candidate: CandidateMatch
    ranked: RankedCause


@dataclass(frozen=True, slots=True)
class CandidateBoard:
    """A symptom result's candidates after the marks, and its checks for the form."""

    checks: tuple[CheckRow, ...]
    candidates: tuple[RankedCandidate, ...]
    ruled_out: tuple[RankedCandidate, ...]
    marked: bool


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
        verb = "confirms" if outcome.verdict == "confirms" else "rules out"
        numbers = [str(n) for n in outcome.causes]
        joined = numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " or " + numbers[-1]
        return f"ran it: {verb} {what}{'s' if len(numbers) > 1 else ''} {joined}"

    return tuple(
        CheckRow(
            number=number,
            field=check_field(number),
            html=check.html,
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
            confirms=links(check.confirms),
            rules_out=links(check.rules_out),
        )
        for number, check in enumerate(reference.checks, start=1)
    )


def check_board(
    reference: Reference, query: Mapping[str, str], readers: Mapping[int, int]
) -> CheckBoard:
    """The reference page's checks and causes for the marks in `query` (InvalidInput
    names a mark that makes no sense)."""
    marks = read_marks(query, reference.checks)
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
    )


def candidate_board(
    symptom: Reference, candidates: Sequence[CandidateMatch], query: Mapping[str, str]
) -> CandidateBoard:
    """A symptom result's candidates (ranked for the paste) moved by the marks in `query`
    when they are for this symptom (`?r=<id>`), with its checks for the form."""
    marked = query.get(MARKED_REFERENCE_PARAM) == symptom.id
    marks = read_marks(query, symptom.checks) if marked else {}
    by_number = {candidate.number: candidate for candidate in candidates}
    ranked = [
        RankedCandidate(by_number[cause.number], cause) for cause in rerank(list(by_number), marks)
    ]
    return CandidateBoard(
        checks=check_rows(symptom, marks),
        candidates=tuple(c for c in ranked if c.ranked.state != "ruled_out"),
        ruled_out=tuple(c for c in ranked if c.ranked.state == "ruled_out"),
        marked=bool(marks),
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
