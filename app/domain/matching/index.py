"""The match index: every reference's message lines normalised, tokenised and inverted,
with the IDF weights and the title/tag/summary keywords the ranking uses."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from app.domain.matching.evidence import Level, line_level
from app.domain.matching.lines import NOISE_RE
from app.domain.matching.normalize import normalize_template
from app.domain.matching.tokens import informative, keyword_stems, tokens
from app.domain.references.document import MessageKind, Reference
from app.domain.references.graph import symptom_causes
from app.domain.references.values import plain_template

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
    entry_weights: tuple[Mapping[str, float], ...]
    entry_masses: tuple[float, ...]
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
class ReferencePieces:
    """What one reference adds to the index, worked out from it alone: its message lines'
    comparison keys (with message number and level) and its keyword stems."""

    keys: tuple[tuple[str, int, Level | None], ...]
    token_sets: tuple[frozenset[str], ...]
    keywords: frozenset[str]


class IndexCache:
    """The pieces of the last index built, by what they were made from: a save, an import
    or a pull that changes one reference normalises only that one's messages again."""

    def __init__(self) -> None:
        self._pieces: dict[tuple[object, ...], ReferencePieces] = {}
        self.built = 0  # references whose pieces were worked out, since the cache was made

    def pieces(self, references: Sequence[Reference]) -> list[ReferencePieces]:
        """Each reference's pieces, reused when it is unchanged; the cache then holds only
        these references' pieces."""
        kept: dict[tuple[object, ...], ReferencePieces] = {}
        found = []
        for reference in references:
            key = _made_from(reference)
            pieces = kept.get(key) or self._pieces.get(key)
            if pieces is None:
                pieces = reference_pieces(reference)
                self.built += 1
            kept[key] = pieces
            found.append(pieces)
        self._pieces = kept
        return found


def _made_from(reference: Reference) -> tuple[object, ...]:
    """Everything `reference_pieces` reads from a reference."""
    return (
        tuple(m.text for m in reference.messages),
        reference.title,
        reference.summary,
        tuple(reference.tags),
        tuple(reference.frameworks),
    )


def reference_pieces(reference: Reference) -> ReferencePieces:
    """One reference's message keys and keywords (each key once per reference)."""
    keys: list[tuple[str, int, Level | None]] = []
    seen: set[str] = set()
    for message_number, message in enumerate(reference.messages):
        for key, level in _message_keys(plain_template(message.text)):
            if key not in seen:
                seen.add(key)
                keys.append((key, message_number, level))
    return ReferencePieces(
        keys=tuple(keys),
        token_sets=tuple(frozenset(informative(key.split())) for key, _, _ in keys),
        keywords=frozenset(keyword_stems(_reference_words(reference))),
    )


def build_index(references: Sequence[Reference], cache: IndexCache | None = None) -> MatchIndex:
    """Index every reference's message lines for matching (reusing the cache's pieces of
    the references it has seen unchanged)."""
    refs = tuple(references)
    every = (cache or IndexCache()).pieces(refs)
    keys: list[str] = []
    entry_refs: list[int] = []
    entry_messages: list[int] = []
    entry_levels: list[Level | None] = []
    token_sets: list[frozenset[str]] = []
    for ref_number, pieces in enumerate(every):
        for key, message_number, level in pieces.keys:
            keys.append(key)
            entry_refs.append(ref_number)
            entry_messages.append(message_number)
            entry_levels.append(level)
        token_sets.extend(pieces.token_sets)
    postings = _invert(token_sets)
    total = max(1, len(keys))
    idf = {token: math.log(1 + total / len(ids)) for token, ids in postings.items()}
    keywords = tuple(pieces.keywords for pieces in every)
    keyword_postings = _invert(keywords)
    return MatchIndex(
        references=refs,
        entry_keys=tuple(keys),
        entry_refs=tuple(entry_refs),
        entry_messages=tuple(entry_messages),
        entry_kinds=tuple(
            refs[r].messages[m].kind for r, m in zip(entry_refs, entry_messages, strict=True)
        ),
        entry_levels=tuple(entry_levels),
        entry_weights=tuple(MappingProxyType({t: idf[t] for t in ts}) for ts in token_sets),
        entry_masses=tuple(sum(idf[t] for t in ts) for ts in token_sets),
        postings=MappingProxyType(postings),
        idf=MappingProxyType(idf),
        keywords=keywords,
        keyword_postings=MappingProxyType(keyword_postings),
        keyword_weights=MappingProxyType(_rarity(keyword_postings, len(refs))),
        unknown_idf=math.log(1 + total),
        code_paths=MappingProxyType(_code_path_owners(refs)),
        positions=MappingProxyType({ref.id: number for number, ref in enumerate(refs)}),
        symptom_causes=MappingProxyType(symptom_causes(refs)),
    )


def _code_path_owners(refs: Sequence[Reference]) -> dict[str, frozenset[int]]:
    """Each code path, as frames are looked up (a directory ends with `/`), to its owners."""
    owners: dict[str, set[int]] = {}
    for number, reference in enumerate(refs):
        for path in reference.code_paths:
            last = path.rstrip("/").rsplit("/", 1)[-1]
            key = path if path.endswith("/") or "." in last else path + "/"
            owners.setdefault(key, set()).add(number)
    return {path: frozenset(numbers) for path, numbers in owners.items()}


def _invert(token_sets: Sequence[frozenset[str]]) -> dict[str, frozenset[int]]:
    inverted: dict[str, set[int]] = {}
    for number, held in enumerate(token_sets):
        for token in held:
            inverted.setdefault(token, set()).add(number)
    return {token: frozenset(ids) for token, ids in inverted.items()}


def _rarity(postings: Mapping[str, frozenset[int]], total: int) -> dict[str, float]:
    """IDF scaled to 0-1: a word only one reference has weighs 1."""
    top = math.log(1 + max(total, 1))
    return {token: math.log(1 + total / len(ids)) / top for token, ids in postings.items()}


def _message_keys(text: str) -> list[tuple[str, Level | None]]:
    """The comparison key of each telling line of a message, with the level it is logged at."""
    raw = text.splitlines()
    lines = [normalize_template(line) for line in raw]
    telling = [(r, n) for r, n in zip(raw, lines, strict=True) if n and not NOISE_RE.match(n)]
    keyed = (
        (comparison_key(n, template=True), line_level(r))
        for r, n in telling or zip(raw, lines, strict=True)
    )
    return [(key, level) for key, level in keyed if any(True for _ in informative(key.split()))]


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
