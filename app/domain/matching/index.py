"""The match index: every reference's message lines normalised, tokenised and inverted,
with the IDF weights and the title/tag/summary keywords the ranking uses.

A build that is given the `IndexCache` of the last one starts from it: the references it
saw unchanged keep their pieces and their entries in the tables, and only the changed,
added and removed ones are worked out and filed again (see `index_tables.py`); the IDF
and what depends on it are read on demand (see `index_views.py`). Either way the index is
the one a full build over the same references gives."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from operator import attrgetter
from types import MappingProxyType
from typing import TypeVar

from app.domain.matching.bulk import normalize_lines
from app.domain.matching.evidence import Level, line_level
from app.domain.matching.index_tables import ReferencePieces, Tables
from app.domain.matching.index_views import (
    Computed,
    InverseFrequency,
    LineMasses,
    LinePostings,
    LineWeights,
    Owners,
    Sizes,
)
from app.domain.matching.lines import NOISE_RE
from app.domain.matching.tokens import informative, keyword_stems, tokens
from app.domain.references.document import MessageKind, Reference
from app.domain.references.graph import symptom_causes
from app.domain.references.values import plain_template

T = TypeVar("T")

STANDARD_PLACEHOLDERS = frozenset(
    {"<n>", "<hex>", "<path>", "<ip>", "<host>", "<uuid>", "<shape>", "<url>"}
)


@dataclass(frozen=True, slots=True)
class MatchIndex:
    """Message lines of every reference, tokenised and inverted; built once, never changed."""

    references: tuple[Reference, ...]
    entry_keys: tuple[str, ...]
    entry_refs: tuple[int, ...]
    entry_messages: tuple[int, ...]
    entry_kinds: tuple[MessageKind, ...]
    entry_levels: tuple[Level | None, ...]
    entry_weights: Sequence[Mapping[str, float]]
    entry_masses: Sequence[float]
    postings: Mapping[str, frozenset[int]]
    idf: Mapping[str, float]
    keywords: tuple[frozenset[str], ...]
    keyword_postings: Mapping[str, frozenset[int]]
    keyword_weights: Mapping[str, float]
    unknown_idf: float
    code_paths: Mapping[str, frozenset[int]]
    positions: Mapping[str, int]
    symptom_causes: Mapping[str, frozenset[str]]

    def position(self, reference_id: str | None) -> int | None:
        """The index number of a reference, by id."""
        return self.positions.get(reference_id or "")


@dataclass(frozen=True, slots=True)
class _Built:
    """What an index was built from: each reference (by id) with what its pieces were
    worked out from, its pieces, and the tables they are filed in."""

    references: Mapping[str, Reference] = field(default_factory=dict)
    made_from: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    pieces: Mapping[str, ReferencePieces] = field(default_factory=dict)
    tables: Tables = field(default_factory=Tables)


class IndexCache:
    """What the last index was built from: a save, an import or a pull that changes one
    reference works out and files that one again, and leaves the others where they are."""

    def __init__(self) -> None:
        self.last = _Built()
        self.built = 0  # references whose pieces were worked out, since the cache was made


def build_index(references: Sequence[Reference], cache: IndexCache | None = None) -> MatchIndex:
    """Index every reference's message lines for matching (starting from the cache's last
    build, when given: only what changed since is worked out again)."""
    refs = tuple(references)
    ids = [reference.id for reference in refs]
    cache = cache or IndexCache()
    last = cache.last
    made_from: dict[str, tuple[object, ...]] = {}
    kept: dict[str, ReferencePieces] = {}
    fresh: list[Reference] = []
    for ref_id, reference in zip(ids, refs, strict=True):
        known = last.made_from.get(ref_id)
        if known is not None and last.references[ref_id] is reference:
            made_from[ref_id] = known  # the very object the last build saw
            kept[ref_id] = last.pieces[ref_id]
            continue
        made_from[ref_id] = made_of(reference)
        if made_from[ref_id] == known:
            kept[ref_id] = last.pieces[ref_id]
        else:
            fresh.append(reference)
    if len(made_from) < len(ids):
        raise ValueError("two references have the same id")
    new = dict(zip((r.id for r in fresh), pieces_of(fresh), strict=True))
    cache.built += len(fresh)
    gone = {ref_id: last.pieces[ref_id] for ref_id in last.pieces.keys() - kept.keys()}
    pieces = kept | new
    tables = last.tables.updated(gone, new)
    cache.last = _Built(dict(zip(ids, refs, strict=True)), made_from, pieces, tables)
    return _assembled(refs, ids, [pieces[ref_id] for ref_id in ids], pieces, tables)


def _assembled(
    refs: tuple[Reference, ...],
    ids: list[str],
    ordered: list[ReferencePieces],
    pieces: Mapping[str, ReferencePieces],
    tables: Tables,
) -> MatchIndex:
    """The index over `refs`, in their order, from their pieces and tables."""
    counts = [len(p.keys) for p in ordered]
    starts = dict(zip(ids, accumulate(counts, initial=0), strict=False))
    positions = dict(zip(ids, range(len(ids)), strict=True))
    total = max(1, sum(counts))
    token_sets = _joined(map(attrgetter("token_sets"), ordered))
    idf = InverseFrequency(tables.line_counts, total)
    return MatchIndex(
        references=refs,
        entry_keys=_joined(map(attrgetter("keys"), ordered)),
        entry_refs=_joined(map(repeat, range(len(counts)), counts)),
        entry_messages=_joined(map(attrgetter("messages"), ordered)),
        entry_kinds=_joined(map(attrgetter("kinds"), ordered)),
        entry_levels=_joined(map(attrgetter("levels"), ordered)),
        entry_weights=LineWeights(token_sets, idf),
        entry_masses=LineMasses(token_sets, idf),
        postings=LinePostings(tables.token_holders, pieces, starts),
        idf=idf,
        keywords=tuple(map(attrgetter("keywords"), ordered)),
        keyword_postings=Owners(tables.keyword_holders, positions),
        keyword_weights=InverseFrequency(
            Sizes(tables.keyword_holders), len(refs), math.log(1 + max(len(refs), 1))
        ),
        unknown_idf=math.log(1 + total),
        code_paths=Owners(tables.code_path_holders, positions),
        positions=MappingProxyType(positions),
        symptom_causes=Computed(lambda: symptom_causes(refs)),
    )


def _joined(parts: Iterable[Iterable[T]]) -> tuple[T, ...]:
    return tuple(chain.from_iterable(parts))


def made_of(reference: Reference) -> tuple[object, ...]:
    """Everything the pieces of `reference` are worked out from."""
    return (
        tuple((m.text, m.kind) for m in reference.messages),
        reference.title,
        reference.summary,
        reference.tags,
        reference.frameworks,
        reference.code_paths,
    )


def pieces_of(references: Sequence[Reference]) -> list[ReferencePieces]:
    """The pieces of each reference, all their message lines normalised in one pass."""
    texts = [
        [plain_template(message.text).splitlines() for message in reference.messages]
        for reference in references
    ]
    flat = [line for raw in texts for lines in raw for line in lines]
    normalized = iter(normalize_lines(flat))
    return [
        _pieces(reference, [[(line, next(normalized)) for line in lines] for lines in raw])
        for reference, raw in zip(references, texts, strict=True)
    ]


def _pieces(reference: Reference, messages: list[list[tuple[str, str]]]) -> ReferencePieces:
    """One reference's pieces, given each message's lines raw and normalised (each
    comparison key once per reference)."""
    keys: list[str] = []
    numbers: list[int] = []
    levels: list[Level | None] = []
    for message_number, lines in enumerate(messages):
        for key, level in _message_keys(lines):
            if key not in keys:
                keys.append(key)
                numbers.append(message_number)
                levels.append(level)
    return ReferencePieces(
        keys=tuple(keys),
        messages=tuple(numbers),
        kinds=tuple(reference.messages[number].kind for number in numbers),
        levels=tuple(levels),
        token_sets=tuple(frozenset(informative(key.split())) for key in keys),
        keywords=frozenset(keyword_stems(_reference_words(reference))),
        code_paths=frozenset(map(_code_path_key, reference.code_paths)),
    )


def _message_keys(lines: list[tuple[str, str]]) -> list[tuple[str, Level | None]]:
    """The comparison key of each telling line of a message, with the level it is logged at."""
    telling = [(raw, line) for raw, line in lines if line and not NOISE_RE.match(line)]
    keyed = (
        (comparison_key(line, template=True), line_level(raw)) for raw, line in telling or lines
    )
    return [(key, level) for key, level in keyed if any(True for _ in informative(key.split()))]


def _code_path_key(path: str) -> str:
    """A code path as frames are looked up: a directory ends with `/`."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path if path.endswith("/") or "." in last else path + "/"


def _reference_words(reference: Reference) -> list[str]:
    texts = (reference.title, reference.summary, *reference.tags, *reference.frameworks)
    return [token for text in texts for token in tokens(text)]


def comparison_key(normalized: str, template: bool = False) -> str:
    """The tokens a normalised line is compared by, lower-case, space-separated.

    In a template, placeholders other than the standard ones (`<word>`, `<model>`) stand
    for any word: they are dropped, so the real word in a line is one extra token.
    """
    found = tokens(normalized)
    if template:
        found = [t for t in found if t[0] != "<" or t in STANDARD_PLACEHOLDERS]
    return " ".join(found)
