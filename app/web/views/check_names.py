"""How a check is named in the pages: by its first sentence where its whole text does not
fit (a result card), and by the causes it names, each once, linked by title."""

from __future__ import annotations

import html as entities
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...domain.matching.results import CheckHint

# A check's first sentence says what to do: it names the check in a result card's form,
# cut at a word past this many characters (the whole check opens on demand).
MAX_SUMMARY_CHARS = 140
# Where a check's first sentence ends in its rendered text: a stop, then a space, then what
# starts a sentence, a tag included (`torch.save` and "e.g. a" do not end one).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“<])")
# Where the first paragraph of a check's rendered text ends: a command block often follows
# its first words ("…on each node:" then the command).
PARAGRAPH_END = re.compile(r"</p>|<pre|<ul|<ol|<div|<table")
# A tag of the check's rendered text: the first sentence is shown as plain text.
TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True, slots=True)
class CauseLink:
    """A cause a check names: its number, title and anchor on the reference page."""

    number: int
    title: str
    anchor: str


@dataclass(frozen=True, slots=True)
class NamedCauses:
    """The causes a check names, each once: those it can confirm or rule out, those it
    only confirms, those it only rules out."""

    either: tuple[CauseLink, ...]
    confirms: tuple[CauseLink, ...]
    rules_out: tuple[CauseLink, ...]


def named_causes(confirms: Sequence[CauseLink], rules_out: Sequence[CauseLink]) -> NamedCauses:
    """The causes of `confirms` and `rules_out` grouped so that none is named twice."""
    confirming = {link.number for link in confirms}
    ruling_out = {link.number for link in rules_out}
    return NamedCauses(
        either=tuple(link for link in confirms if link.number in ruling_out),
        confirms=tuple(link for link in confirms if link.number not in ruling_out),
        rules_out=tuple(link for link in rules_out if link.number not in confirming),
    )


def hint_causes(hint: CheckHint, prefix: str) -> NamedCauses:
    """`named_causes` for a result card's check hint, its anchors starting with `prefix`."""

    def links(numbers: Sequence[int], titles: Sequence[str]) -> tuple[CauseLink, ...]:
        return tuple(CauseLink(n, t, f"{prefix}{n}") for n, t in zip(numbers, titles, strict=False))

    return named_causes(
        links(hint.confirms_numbers, hint.confirms), links(hint.rules_out_numbers, hint.rules_out)
    )


def first_sentence(html: str) -> str:
    """The first sentence of a check's text, cut at a word past MAX_SUMMARY_CHARS."""
    paragraph = PARAGRAPH_END.split(html, maxsplit=1)[0]
    first = SENTENCE_END.split(paragraph, maxsplit=1)[0]
    sentence = " ".join(entities.unescape(TAG.sub("", first)).split())
    if len(sentence) <= MAX_SUMMARY_CHARS:
        return sentence
    return sentence[:MAX_SUMMARY_CHARS].rsplit(" ", 1)[0] + "…"
