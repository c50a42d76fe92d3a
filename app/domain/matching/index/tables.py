"""What the match index keeps current from one build to the next: each reference's pieces
(worked out from it alone) and, across references, who holds each token, stem and code
path, and how many message lines hold each token. An update removes the changed
references' old pieces from these tables and adds their new ones; every table it reads
from is copied first, so an index already handed out never changes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain

from ...references.document import MessageKind
from ..reading.evidence import Level

NOBODY: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ReferencePieces:
    """One reference's message lines (each comparison key once, with its message number,
    kind and level, and its informative tokens), keyword stems, code-path keys and the
    stems of its whole page (`page_words`)."""

    keys: tuple[str, ...]
    messages: tuple[int, ...]
    kinds: tuple[MessageKind, ...]
    levels: tuple[Level | None, ...]
    token_sets: tuple[frozenset[str], ...]
    keywords: frozenset[str]
    code_paths: frozenset[str]
    page_words: Mapping[str, int] = field(default_factory=dict)  # stem: times on its page
    page_length: int = 0  # stems on its page, counted with repeats

    def lines_holding(self, token: str) -> list[int]:
        """The numbers, within this reference, of its lines that hold `token`."""
        return [number for number, held in enumerate(self.token_sets) if token in held]

    def tokens(self) -> set[str]:
        """Every token one of its lines holds."""
        return set().union(*self.token_sets)


@dataclass(frozen=True, slots=True)
class Tables:
    """Across references, by reference id: who holds each token, keyword stem, code path
    and page stem, and how many message lines hold each token."""

    token_holders: Mapping[str, frozenset[str]] = field(default_factory=dict)
    line_counts: Mapping[str, int] = field(default_factory=dict)
    keyword_holders: Mapping[str, frozenset[str]] = field(default_factory=dict)
    code_path_holders: Mapping[str, frozenset[str]] = field(default_factory=dict)
    page_word_holders: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def updated(
        self, gone: Mapping[str, ReferencePieces], new: Mapping[str, ReferencePieces]
    ) -> Tables:
        """These tables without the `gone` pieces and with the `new` ones (by reference id);
        a changed reference is in both."""
        if not gone and self == EMPTY:
            return Tables.of(new)
        gone_tokens = {ref: pieces.tokens() for ref, pieces in gone.items()}
        new_tokens = {ref: pieces.tokens() for ref, pieces in new.items()}
        return Tables(
            token_holders=_regrouped(self.token_holders, gone_tokens, new_tokens),
            line_counts=_recounted(self.line_counts, gone, new),
            keyword_holders=_regrouped(
                self.keyword_holders,
                {ref: pieces.keywords for ref, pieces in gone.items()},
                {ref: pieces.keywords for ref, pieces in new.items()},
            ),
            code_path_holders=_regrouped(
                self.code_path_holders,
                {ref: pieces.code_paths for ref, pieces in gone.items()},
                {ref: pieces.code_paths for ref, pieces in new.items()},
            ),
            page_word_holders=_regrouped(
                self.page_word_holders,
                {ref: pieces.page_words.keys() for ref, pieces in gone.items()},
                {ref: pieces.page_words.keys() for ref, pieces in new.items()},
            ),
        )

    @staticmethod
    def of(pieces: Mapping[str, ReferencePieces]) -> Tables:
        """The tables of these pieces alone (`Tables().updated({}, pieces)`), each filed in
        one pass rather than regrouped against empty tables."""
        return Tables(
            token_holders=_grouped({ref: p.tokens() for ref, p in pieces.items()}),
            line_counts=dict(
                Counter(
                    chain.from_iterable(chain.from_iterable(p.token_sets for p in pieces.values()))
                )
            ),
            keyword_holders=_grouped({ref: p.keywords for ref, p in pieces.items()}),
            code_path_holders=_grouped({ref: p.code_paths for ref, p in pieces.items()}),
            page_word_holders=_grouped({ref: p.page_words.keys() for ref, p in pieces.items()}),
        )


EMPTY = Tables()


def _grouped(keys_of: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Who holds each key, from what each reference holds."""
    by_key: defaultdict[str, list[str]] = defaultdict(list)
    holders_of = by_key.__getitem__  # looked up at C speed, a list made for a new key
    for ref, keys in keys_of.items():
        for holders in map(holders_of, keys):
            holders.append(ref)
    return {key: frozenset(refs) for key, refs in by_key.items()}


def _regrouped(
    holders: Mapping[str, frozenset[str]],
    gone: Mapping[str, Collection[str]],
    new: Mapping[str, Collection[str]],
) -> Mapping[str, frozenset[str]]:
    """A copy of `holders` with each gone reference taken off its keys and each new one
    put on its keys; a key nobody holds any more leaves."""
    moved = [ref for ref in gone.keys() | new.keys() if gone.get(ref) != new.get(ref)]
    if not moved:
        return holders  # a save that changed none of these keys copies nothing
    leaving = _by_key({ref: gone[ref] for ref in moved if ref in gone})
    coming = _by_key({ref: new[ref] for ref in moved if ref in new})
    found = dict(holders)
    for key in leaving.keys() | coming.keys():
        held = found.get(key, NOBODY).difference(leaving.get(key, ())).union(coming.get(key, ()))
        if held:
            found[key] = held
        else:
            found.pop(key, None)
    return found


def _by_key(keys_of: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    by_key: dict[str, list[str]] = {}
    for ref, keys in keys_of.items():
        for key in keys:
            by_key.setdefault(key, []).append(ref)
    return by_key


def _recounted(
    counts: Mapping[str, int],
    gone: Mapping[str, ReferencePieces],
    new: Mapping[str, ReferencePieces],
) -> dict[str, int]:
    """A copy of `counts` less the gone pieces' lines and plus the new ones'; a token no
    line holds any more leaves."""
    found = dict(counts)
    for pieces, sign in [*((p, -1) for p in gone.values()), *((p, 1) for p in new.values())]:
        for held in pieces.token_sets:
            for token in held:
                found[token] = found.get(token, 0) + sign
    for token in [t for p in gone.values() for t in p.tokens()]:
        if found.get(token) == 0:
            del found[token]
    return found
