"""Each reference's whole text as a term look-up reads it, in the order of what counts most
(its title, tags and summary; its messages; its causes and checks; its context and worked
example), lower case, worked out for a reference the first time a look-up asks."""

from __future__ import annotations

from dataclasses import dataclass

from ...references.document import Reference

# Where a term was found, in the order a look-up ranks it.
PLACES = ("title", "messages", "causes", "checks", "context")


@dataclass(frozen=True, slots=True)
class ReferenceText:
    """A reference's text by place, lower case."""

    places: tuple[str, ...]  # in PLACES order

    @classmethod
    def of(cls, reference: Reference) -> ReferenceText:
        parts = (
            (reference.title, reference.summary, " ".join(reference.tags)),
            tuple(message.text for message in reference.messages),
            (
                *(cause.markdown for cause in reference.causes),
                *(candidate.markdown for candidate in reference.candidates),
            ),
            tuple(check.markdown for check in reference.checks),
            (reference.context_markdown, reference.worked_example_markdown),
        )
        return cls(tuple("\n".join(part).casefold() for part in parts))
