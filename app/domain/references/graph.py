"""How symptoms and causes link across files.

A symptom's `## Candidate causes` list is the source of truth for which causes produce it.
A wrapper's list may also hold the symptoms it wraps (torchrun's summary over an OOM).
A cause may also name symptoms in its front matter (`symptoms: [...]`), but only those that
do not list it already (a symptom page that does not exist yet, or one that stops at the
common causes); the two directions are merged here and checked against each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .document import Reference
from .problems import Problem

RULE = "symptoms"
# The tag of a page about a line printed on top of the real error.
WRAPPER_TAG = "wrapper"


def symptom_causes(references: Sequence[Reference]) -> dict[str, frozenset[str]]:
    """Each symptom's causes, by id: its linked candidates plus the causes that name it."""
    known = {reference.id: reference for reference in references}
    linked: dict[str, set[str]] = {}
    for reference in references:
        if reference.kind == "symptom":
            found = linked.setdefault(reference.id, set())
            found.update(c.cause_id for c in reference.candidates if c.cause_id in known)
    for reference in references:
        for symptom in reference.symptoms:
            if symptom in linked:
                linked[symptom].add(reference.id)
    return {symptom: frozenset(causes) for symptom, causes in linked.items()}


def linked(links: Mapping[str, frozenset[str]], first: str, second: str) -> bool:
    """True when one of the two is a symptom the other is a cause of."""
    return second in links.get(first, frozenset()) or first in links.get(second, frozenset())


def link_problems(references: Sequence[Reference]) -> list[Problem]:
    """Candidates that link nowhere or to a symptom (but the ones a wrapper wraps), and
    `symptoms:` entries that are unknown, not symptoms, or said twice (the symptom already
    lists the cause)."""
    known = {reference.id: reference for reference in references}
    problems: list[Problem] = []
    for reference in references:
        problems.extend(_candidate_problems(reference, known))
        problems.extend(_declared_problems(reference, known))
    return problems


def _candidate_problems(reference: Reference, known: Mapping[str, Reference]) -> list[Problem]:
    problems = []
    for candidate in reference.candidates:
        target = known.get(candidate.cause_id or "")
        if candidate.cause_id is not None and target is None:
            message = (
                f"candidate links to unknown reference '{candidate.cause_id}'; "
                "it is ranked as an inline cause until that page exists"
            )
            problems.append(Problem(reference.path, candidate.line, RULE, message, "warning"))
        elif target is not None and target.kind == "symptom" and not _may_wrap(reference, target):
            message = (
                f"candidate '{target.id}' is a symptom; candidates are causes (only a "
                f"page tagged `{WRAPPER_TAG}` may list a symptom it wraps, never another wrapper)"
            )
            problems.append(Problem(reference.path, candidate.line, RULE, message))
    return problems


def _may_wrap(reference: Reference, target: Reference) -> bool:
    """A wrapper (torchrun's summary, a dead engine) may list the symptoms it wraps (an OOM,
    a native crash), whose own pages rank their causes; a wrapper never lists a wrapper, so
    the links cannot loop."""
    return WRAPPER_TAG in reference.tags and WRAPPER_TAG not in target.tags


def _declared_problems(reference: Reference, known: Mapping[str, Reference]) -> list[Problem]:
    problems = []
    for symptom_id in reference.symptoms:
        symptom = known.get(symptom_id)
        if symptom is None:
            message = (
                f"symptom '{symptom_id}' does not exist yet: this page keeps the shared "
                "symptom lines until it does, then they move there"
            )
            problems.append(Problem(reference.path, 1, RULE, message, "warning"))
        elif symptom.kind != "symptom":
            message = f"'{symptom_id}' is not a symptom (kind: symptom)"
            problems.append(Problem(reference.path, 1, RULE, message))
        elif any(c.cause_id == reference.id for c in symptom.candidates):
            message = (
                f"'{symptom_id}' already lists this cause among its candidates; "
                "remove it from symptoms here (the symptom's list is the source of truth)"
            )
            problems.append(Problem(reference.path, 1, RULE, message))
    return problems
