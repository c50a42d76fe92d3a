"""The match index: every reference's message lines normalised, tokenised and inverted,
with the IDF weights and the title/tag/summary keywords the ranking uses.

A build that is given the `IndexCache` of the last one starts from it: the references it
saw unchanged keep their pieces and their entries in the tables, and only the changed,
added and removed ones are worked out and filed again (see `tables.py`); the IDF
and what depends on it are read on demand (see `views.py`). Either way the index is
the one a full build over the same references gives."""

from __future__ import annotations

import gc
import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, repeat
from operator import attrgetter, is_not
from types import MappingProxyType
from typing import TypeVar

from ...references.codes import Code, code_owners
from ...references.document import MessageKind, Reference
from ...references.graph import symptom_causes
from ...references.values import compile_slots
from ..reading.evidence import Level
from .card_checks import CardChecks
from .context_terms import ContextVerdicts
from .page_words import PageWords
from .pieces import made_of, pieces_of
from .tables import ReferencePieces, Tables
from .texts import ReferenceText, identifier_postings
from .views import (
    Computed,
    InverseFrequency,
    LineArrays,
    LineChars,
    LineMasses,
    LinePostings,
    LineWeights,
    Owners,
    PerReference,
    Sizes,
)

T = TypeVar("T")

# Changed references spliced into the last index's line tables, at most (each splice copies
# the tables once); past this many, or when references come, go or move, they are joined anew.
SPLICE_MAX = 8
# Up to this many references, a load works out every reference's card checks in the
# warming thread (40-240 us and ~9 KB each with the collector on: at most ~0.1 s and 5 MB),
# which each reference's first answer would otherwise pay.
CARDS_WARMED_UP_TO = 500


@dataclass(frozen=True, slots=True)
class MatchIndex:
    """Message lines of every reference, tokenised and inverted; built once, never changed
    (but for `verdicts`, a memo of what queries asked: `context_terms.ContextVerdicts`)."""

    references: tuple[Reference, ...]
    entry_keys: tuple[str, ...]
    entry_refs: tuple[int, ...]
    entry_messages: tuple[int, ...]
    entry_kinds: tuple[MessageKind, ...]
    entry_levels: tuple[Level | None, ...]
    entry_weights: LineWeights
    entry_masses: LineMasses
    entry_chars: LineChars
    line_arrays: LineArrays
    postings: LinePostings
    idf: InverseFrequency
    keywords: tuple[frozenset[str], ...]
    keyword_postings: Owners
    keyword_weights: InverseFrequency
    unknown_idf: float
    code_paths: Owners
    positions: Mapping[str, int]
    symptom_causes: Mapping[str, frozenset[str]]
    checks: PerReference[Reference, CardChecks]  # each reference's checks as cards offer them
    texts: PerReference[Reference, ReferenceText]  # each one's whole text, for term look-ups
    identifiers: Mapping[str, array[int]]  # who names each identifier, for term look-ups
    code_owners: Mapping[Code, str]  # each error code's reference, for a code typed alone
    page_words: PageWords  # each page's word stems, to rank pages no message answers
    # Each reference's context verdicts, per context asked: a memo, not what the index is.
    verdicts: ContextVerdicts = field(compare=False)

    def position(self, reference_id: str | None) -> int | None:
        """The index number of a reference, by id."""
        return self.positions.get(reference_id or "")


@dataclass(frozen=True, slots=True)
class _Built:
    """What an index was built from: the references in index order with what each one's
    pieces were worked out from, the pieces, and the tables they are filed in."""

    references: tuple[Reference, ...] = ()
    ids: list[str] = field(default_factory=list)
    made_from: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    pieces: Mapping[str, ReferencePieces] = field(default_factory=dict)
    tables: Tables = field(default_factory=Tables)
    lines: list[int] = field(default_factory=list)  # each reference's number of lines
    index: MatchIndex | None = None


class IndexCache:
    """What the last index was built from: a save, an import or a pull that changes one
    reference works out and files that one again, and leaves the others where they are."""

    def __init__(self) -> None:
        self.last = _Built()
        self.built = 0  # references whose pieces were worked out, since the cache was made

    def fork(self) -> IndexCache:
        """A cache that starts from this one's last build and leaves this one as it is (a
        build never changes what it starts from)."""
        forked = IndexCache()
        forked.last = self.last
        return forked


def build_index(references: Sequence[Reference], cache: IndexCache | None = None) -> MatchIndex:
    """Index every reference's message lines for matching (starting from the cache's last
    build, when given: only what changed since is worked out again)."""
    with collector_paused():
        return _built(references, cache)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a build runs, when it was on. A full build
    allocates about a million containers that all stay alive; the collector, counting
    allocations, would walk them and the references several times over (2.3 of 4.4 s at
    10,000 references in the bench) and free nothing. The caller settles the heap once
    after a load (`settle_heap`), as before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _built(references: Sequence[Reference], cache: IndexCache | None) -> MatchIndex:
    refs = tuple(references)
    ids = list(map(attrgetter("id"), refs))
    if len(set(ids)) < len(ids):
        raise ValueError("two references have the same id")
    cache = cache or IndexCache()
    last = cache.last
    same_order = ids == last.ids
    made_from, pieces = dict(last.made_from), dict(last.pieces)
    gone = {ref_id: pieces.pop(ref_id) for ref_id in _removed(last, ids, same_order)}
    for ref_id in gone:
        del made_from[ref_id]
    fresh: list[Reference] = []
    for reference in _not_seen(last, refs, ids, same_order):
        found = made_of(reference)
        if made_from.get(reference.id) != found:
            made_from[reference.id] = found
            fresh.append(reference)
    new = dict(zip((r.id for r in fresh), pieces_of(fresh), strict=True))
    cache.built += len(fresh)
    gone.update((ref_id, pieces[ref_id]) for ref_id in new if ref_id in pieces)
    pieces.update(new)
    tables = last.tables.updated(gone, new)
    if last.index is not None and same_order and len(new) <= SPLICE_MAX:
        positions = last.index.positions
        changes = sorted((positions[ref_id], found) for ref_id, found in new.items())
        lines, entries = _spliced(last.index, last.lines, changes)
    else:
        positions = MappingProxyType(dict(zip(ids, range(len(ids)), strict=True)))
        lines, entries = _joined_anew([pieces[ref_id] for ref_id in ids])
    index = _assembled(refs, positions, lines, entries, pieces, tables)
    cache.last = _Built(refs, ids, made_from, pieces, tables, lines, index)
    return index


def _removed(last: _Built, ids: list[str], same_order: bool) -> set[str]:
    """The ids the last build had that `ids` has not."""
    return set() if same_order else set(last.ids).difference(ids)


def _not_seen(
    last: _Built, refs: tuple[Reference, ...], ids: list[str], same_order: bool
) -> list[Reference]:
    """The references that are not the very objects the last build saw under their id."""
    if same_order:  # compared at C speed: a save of one reference among 10,000
        return list(compress(refs, map(is_not, refs, last.references)))
    seen = dict(zip(last.ids, last.references, strict=True))
    return [
        reference
        for ref_id, reference in zip(ids, refs, strict=True)
        if seen.get(ref_id) is not reference
    ]


@dataclass(frozen=True, slots=True)
class _Lines:
    """The per-line tables of an index, and each reference's keywords, in index order."""

    keys: tuple[str, ...]
    refs: tuple[int, ...]
    messages: tuple[int, ...]
    kinds: tuple[MessageKind, ...]
    levels: tuple[Level | None, ...]
    token_sets: tuple[frozenset[str], ...]
    keywords: tuple[frozenset[str], ...]


def _joined_anew(ordered: list[ReferencePieces]) -> tuple[list[int], _Lines]:
    """Each reference's number of lines, and the line tables joined from its pieces."""
    lines = [len(p.keys) for p in ordered]
    return lines, _Lines(
        keys=_joined(map(attrgetter("keys"), ordered)),
        refs=_joined(map(repeat, range(len(lines)), lines)),
        messages=_joined(map(attrgetter("messages"), ordered)),
        kinds=_joined(map(attrgetter("kinds"), ordered)),
        levels=_joined(map(attrgetter("levels"), ordered)),
        token_sets=_joined(map(attrgetter("token_sets"), ordered)),
        keywords=tuple(map(attrgetter("keywords"), ordered)),
    )


def _spliced(
    last: MatchIndex, lines_before: list[int], changes: list[tuple[int, ReferencePieces]]
) -> tuple[list[int], _Lines]:
    """The last index's line tables with the changed references' lines (by index number)
    cut out and their new ones put in; the rest is copied whole, at C speed."""
    starts = list(accumulate(lines_before, initial=0))
    lines = list(lines_before)
    keywords = list(last.keywords)
    for position, pieces in changes:
        lines[position] = len(pieces.keys)
        keywords[position] = pieces.keywords

    def splice(
        old: tuple[T, ...], part: Callable[[int, ReferencePieces], tuple[T, ...]]
    ) -> tuple[T, ...]:
        found: tuple[T, ...] = ()
        cursor = 0
        for position, pieces in changes:
            found += old[cursor : starts[position]] + part(position, pieces)
            cursor = starts[position + 1]
        return found + old[cursor:]

    return lines, _Lines(
        keys=splice(last.entry_keys, lambda _, p: p.keys),
        refs=splice(last.entry_refs, lambda position, p: (position,) * len(p.keys)),
        messages=splice(last.entry_messages, lambda _, p: p.messages),
        kinds=splice(last.entry_kinds, lambda _, p: p.kinds),
        levels=splice(last.entry_levels, lambda _, p: p.levels),
        token_sets=splice(last.entry_weights.token_sets, lambda _, p: p.token_sets),
        keywords=tuple(keywords),
    )


def _assembled(
    refs: tuple[Reference, ...],
    positions: Mapping[str, int],
    lines: list[int],
    entries: _Lines,
    pieces: Mapping[str, ReferencePieces],
    tables: Tables,
) -> MatchIndex:
    """The index over `refs`, in their order, from their line tables, pieces and tables."""
    total = max(1, len(entries.keys))
    idf = InverseFrequency(tables.line_counts, total)
    starts = list(accumulate(lines, initial=0))
    masses = LineMasses(entries.token_sets, idf)
    chars = LineChars(entries.keys, entries.token_sets)
    return MatchIndex(
        references=refs,
        entry_keys=entries.keys,
        entry_refs=entries.refs,
        entry_messages=entries.messages,
        entry_kinds=entries.kinds,
        entry_levels=entries.levels,
        entry_weights=LineWeights(entries.token_sets, idf),
        entry_masses=masses,
        entry_chars=chars,
        line_arrays=LineArrays(entries.refs, entries.kinds, masses, chars),
        postings=LinePostings(tables.token_holders, pieces, positions, starts),
        idf=idf,
        keywords=entries.keywords,
        keyword_postings=Owners(tables.keyword_holders, positions),
        keyword_weights=InverseFrequency(
            Sizes(tables.keyword_holders), len(refs), math.log(1 + max(len(refs), 1))
        ),
        unknown_idf=math.log(1 + total),
        code_paths=Owners(tables.code_path_holders, positions),
        positions=positions,
        symptom_causes=Computed(lambda: symptom_causes(refs)),
        checks=PerReference(refs, CardChecks.of),
        texts=PerReference(refs, ReferenceText.of),
        identifiers=Computed(lambda: identifier_postings(refs)),
        code_owners=Computed(lambda: code_owners(refs)[0]),
        page_words=PageWords(tables.page_word_holders, pieces, positions),
        verdicts=ContextVerdicts(refs),
    )


def warm(index: MatchIndex) -> None:
    """Work out now the views every query reads (IDF, keyword weights, each token's lines,
    each stem's and code path's references, each line's mass and characters, the line
    arrays), and compile the patterns that read the messages' values when they all fit
    in their cache: the first queries after a load would otherwise pay for them (a token
    held by thousands of lines costs milliseconds the first time; see bench/README.md).
    Each value is the one a query would have worked out. What only some answers read
    (line weights, a symptom's causes) stays worked out on demand, and so do the card
    checks of more than CARDS_WARMED_UP_TO references. The collector is left on: this
    runs beside requests, whose builds pause it."""
    for view in (index.idf, index.keyword_weights):
        view.fill()
    index.postings.fill_from(index.entry_weights.token_sets)
    for numbered in (index.postings, index.keyword_postings, index.code_paths):
        numbered.fill_arrays()
    index.entry_masses.fill()
    index.line_arrays.fill()  # every line's characters too (`entry_chars`)
    if len(index.references) <= CARDS_WARMED_UP_TO:
        index.checks.fill()
    compile_slots({slot for ref in index.references for m in ref.messages for slot in m.slots})


def _joined(parts: Iterable[Iterable[T]]) -> tuple[T, ...]:
    return tuple(chain.from_iterable(parts))
