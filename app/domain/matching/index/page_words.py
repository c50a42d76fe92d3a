"""The words of each reference's whole page, for ranking the pages a paste no message
answers with confidence: a line the writers never saw often shares no message line with
its page, yet its telling words are in the page's title, its other messages and where
they were seen, its causes and its sources (a thread's title quotes the error). Each page
is a bag of word stems, ranked for a paste by BM25: a stem that few pages hold counts for
much, one that many hold for little, and a long page does not win by its length alone.

A reference's stems are worked out with its pieces (`pieces.pieces_of`), so a save works
out only the page it changed; the stems' holders are filed across references in the
index's tables; the arrays a query reads are made per stem on first reading."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from ...references.document import Reference
from ..reading.tokens import plain_words, token_stems
from .tables import ReferencePieces

# BM25's term-frequency saturation and length normalisation, at their usual values.
K1 = 1.2
B = 0.75
# A stem held by more than this share of pages says little (`error`, `gpu`) and would cost
# a pass over most pages: it is not read.
MAX_HOLDER_SHARE = 0.3
# A page's stems that count as its shared words, in a reason.
SHOWN_WORDS = 5


def page_words(reference: Reference) -> Counter[str]:
    """How often each informative stem appears on a reference's page: its title, summary
    and tags, its messages, and the rest `page_made_of` names. Numbers alone are left
    out: they are values, not words."""
    head = (reference.title, reference.summary, " ".join(reference.tags))
    texts = [*head, *(message.text for message in reference.messages), *page_made_of(reference)]
    found: Counter[str] = Counter()
    for word, count in Counter(plain_words("\n".join(texts))).items():
        if not word.isdigit():
            for part in token_stems(word):
                found[part] += count
    return found


def page_made_of(reference: Reference) -> tuple[str, ...]:
    """What a page's words are read from beyond its title, summary, tags and messages
    (which its message lines and keywords are made of too): where each message was seen,
    its causes (a symptom's candidates) and its sources (a thread's title often quotes
    the error)."""
    return (
        *(message.seen_in_markdown for message in reference.messages),
        *(cause.markdown for cause in reference.causes),
        *(candidate.markdown for candidate in reference.candidates),
        *(f"{source.title} {source.supports_markdown}" for source in reference.sources),
    )


class PageWords:
    """Each page's stems across the index: who holds each one and how often, each page's
    length in stems; BM25 over them."""

    def __init__(
        self,
        holders: Mapping[str, frozenset[str]],
        pieces: Mapping[str, ReferencePieces],
        positions: Mapping[str, int],
    ) -> None:
        self._holders, self._pieces, self._positions = holders, pieces, positions
        self._arrays: dict[str, tuple[NDArray[np.intp], NDArray[np.float64]]] = {}

    @cached_property
    def _lengths(self) -> NDArray[np.float64]:
        lengths = np.zeros(max(1, len(self._positions)), dtype=np.float64)
        for ref_id, position in self._positions.items():
            lengths[position] = self._pieces[ref_id].page_length
        return lengths

    @cached_property
    def _norms(self) -> NDArray[np.float64]:
        """Each page's BM25 length factor: K1 * (1 - B + B * length / mean length)."""
        lengths = self._lengths
        mean = float(lengths.mean()) or 1.0
        return K1 * (1 - B + B * lengths / mean)

    def _held(self, word: str) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The pages holding a stem (by index number) and how often each does."""
        found = self._arrays.get(word)
        if found is None:
            ids = sorted(self._holders.get(word, ()))
            found = (
                np.array([self._positions[ref_id] for ref_id in ids], dtype=np.intp),
                np.array([self._pieces[ref_id].page_words[word] for ref_id in ids], dtype=float),
            )
            self._arrays[word] = found
        return found

    def ranked(self, words: Iterable[str], keep: int) -> list[tuple[int, float]]:
        """The `keep` pages (by index number) that best hold these stems, with their BM25
        scores, best first; pages holding none are left out."""
        pages = len(self._positions)
        scores = np.zeros(max(1, pages), dtype=np.float64)
        for word in set(words):
            holders = len(self._holders.get(word, ()))
            if not holders or holders > MAX_HOLDER_SHARE * pages:
                continue
            idf = math.log(1 + (pages - holders + 0.5) / (holders + 0.5))
            where, counts = self._held(word)
            scores[where] += idf * counts * (K1 + 1) / (counts + self._norms[where])
        best = np.argsort(-scores, kind="stable")[:keep]
        return [
            (int(position), float(scores[position])) for position in best if scores[position] > 0
        ]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PageWords)
            and self._holders == other._holders
            and self._positions == other._positions
            and self._pages() == other._pages()
        )

    __hash__ = None  # type: ignore[assignment]

    def _pages(self) -> dict[str, tuple[Mapping[str, int], int]]:
        return {
            ref_id: (self._pieces[ref_id].page_words, self._pieces[ref_id].page_length)
            for ref_id in self._positions
        }

    def shared(self, ref_id: str, words: Iterable[str]) -> list[str]:
        """The stems of `words` a page holds, rarest across pages first."""
        held = self._pieces[ref_id].page_words
        found = [word for word in set(words) if word in held]
        found.sort(key=lambda word: (len(self._holders.get(word, ())), word))
        return found[:SHOWN_WORDS]
