"""A term typed alone (an error code, an environment variable, a function or a title word):
the pages that own it or name it, as the code look-up of the search box finds a code. An
identifier is found anywhere in a page (`index.texts`), a plain word in its title, tags,
summary and messages. A paste of a few words that matches no message closely is most
often such a term (`Xid 79`, `NCCL_P2P_DISABLE`, `cudaErrorIllegalAddress`, `oom`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...references.codes import code_name, typed_code
from ..index.match_index import MatchIndex
from ..index.pieces import comparison_key
from ..index.texts import PLACES, PLAIN_PLACES, identifiers_of
from ..reading.normalize import normalize_line
from ..reading.tokens import informative, token_stems
from ..results import LookUp

# A term is one line of a few words; a longer text is a message to match.
MAX_TERM_CHARS = 60
MAX_TERM_WORDS = 4
NONE: frozenset[int] = frozenset()
# Pages a look-up names at most.
MAX_LOOKUPS = 3
PLACE_WORDS = {
    "title": "its title, tags or summary",
    "messages": "its messages",
    "causes": "its causes",
    "checks": "its evidence checks",
    "context": "its context or worked example",
}


def term_of(text: str) -> str | None:
    """The text as a term when it is one: a single line of a few words."""
    term = " ".join(text.split())
    if not term or "\n" in text.strip() or len(term) > MAX_TERM_CHARS:
        return None
    return term if len(term.split()) <= MAX_TERM_WORDS else None


def look_up(index: MatchIndex, text: str) -> list[LookUp]:
    """The pages a term typed alone leads to, best first: the page owning the code it is,
    then the pages naming it as a whole word, by where they name it (title first)."""
    term = term_of(text)
    if term is None:
        return []
    code = typed_code(term)
    if code is not None and (owner := index.code_owners.get(code)) is not None:
        reference = index.references[index.positions[owner]]
        why = f"you typed {code_name(code)}, a code this page owns"
        return [LookUp(id=reference.id, title=reference.title, why=why, owner=True)]
    pattern = re.compile(rf"(?<![\w-]){re.escape(term.casefold())}(?![\w-])")
    needle = term.casefold()
    identifiers = identifiers_of(term)
    if identifiers:  # named anywhere: only the references naming each of them are read
        places = len(PLACES)
        held = [set(index.identifiers.get(word, ())) for word in identifiers]
        positions: Iterable[int] = sorted(set.intersection(*held))
    else:  # plain words: the titles and messages of the references holding them all
        places, positions = PLAIN_PLACES, sorted(holding_every_word(index, term))
    found: list[tuple[int, int, LookUp]] = []
    for position in positions:
        text_of = index.texts[position]
        for place, place_text in zip(PLACES[:places], text_of.places, strict=False):
            if needle in place_text and (count := len(pattern.findall(place_text))):
                why = f"“{term}” is named in {PLACE_WORDS[place]}"
                reference = index.references[position]
                named = LookUp(id=reference.id, title=reference.title, why=why)
                found.append((PLACES.index(place), -count, named))
                break
    found.sort(key=lambda item: (item[0], item[1], item[2].id))
    return [lookup for _, _, lookup in found[:MAX_LOOKUPS]]


def holding_every_word(index: MatchIndex, term: str) -> set[int]:
    """The references whose messages or title, tags and summary hold every informative
    word of the term (by the match index's postings, no text read)."""
    words = list(informative(comparison_key(normalize_line(term)).split()))
    found: set[int] | None = None
    for word in words:
        refs = {index.entry_refs[entry] for entry in index.postings.get(word, NONE)}
        for stem in token_stems(word):
            refs.update(index.keyword_postings.get(stem, NONE))
        found = refs if found is None else found & refs
        if not found:
            return set()
    return found or set()
