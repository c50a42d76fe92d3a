"""What a term typed alone is looked up in (`messages.lookup`): each reference's text by
place, in the order of what counts most (its title, tags and summary; its messages; its
causes; its checks; its context and worked example), lower case; and, for identifiers
(environment variables, functions, error names: words with `_`, a digit or an inner
capital), which references name each one anywhere. Identifiers are looked up in all five
places of the references naming them; plain words in the titles and messages of the
references the match index says hold them: a look-up never reads every reference's whole
text (about 45 ms at 10,000 references)."""

from __future__ import annotations

import re
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...references.document import Reference

# Where a term was found, in the order a look-up ranks it.
PLACES = ("title", "messages", "causes", "checks", "context")
# The places a plain word is looked for in.
PLAIN_PLACES = 2
# A word that names one thing: NCCL_P2P_DISABLE, sm_90, cudaErrorIllegalAddress, fp8e4nv.
# Three plain patterns, each a fast scan, rather than one with a look-ahead (seven times
# slower over 10,000 references' text).
IDENTIFIER_RES = (
    re.compile(r"\b[A-Za-z]\w*_\w+"),
    re.compile(r"\b[a-z]+[A-Z]\w*"),
    re.compile(r"\b[A-Za-z]+\d\w*"),
)
MIN_IDENTIFIER_CHARS = 4


@dataclass(frozen=True, slots=True)
class ReferenceText:
    """A reference's text by place, lower case."""

    places: tuple[str, ...]  # in PLACES order

    @classmethod
    def of(cls, reference: Reference) -> ReferenceText:
        return cls(tuple("\n".join(part).casefold() for part in _parts(reference)))


def identifier_postings(references: Sequence[Reference]) -> Mapping[str, array[int]]:
    """Each identifier any reference names anywhere (lower case), with the positions of
    the references naming it."""
    postings: dict[str, array[int]] = {}
    for position, reference in enumerate(references):
        named = {
            word for part in _parts(reference) for text in part for word in identifiers_of(text)
        }
        for word in named:
            postings.setdefault(word, array("i")).append(position)
    return postings


def identifiers_of(text: str) -> set[str]:
    """The identifiers a text holds, lower case."""
    return {
        word.casefold()
        for pattern in IDENTIFIER_RES
        for word in pattern.findall(text)
        if len(word) >= MIN_IDENTIFIER_CHARS
    }


def _parts(reference: Reference) -> tuple[tuple[str, ...], ...]:
    return (
        (reference.title, reference.summary, " ".join(reference.tags)),
        tuple(message.text for message in reference.messages),
        (
            *(cause.markdown for cause in reference.causes),
            *(candidate.markdown for candidate in reference.candidates),
        ),
        tuple(check.markdown for check in reference.checks),
        (reference.context_markdown, reference.worked_example_markdown),
    )
