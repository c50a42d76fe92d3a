"""What the match index holds of one reference, worked out from it alone: its message
lines' comparison keys, with their message, kind, level and informative tokens, its
keyword stems, its code-path keys and its page's stems (`ReferencePieces`).

Many references are worked out at once: their message lines are normalised in one
`normalize_lines` pass, and each distinct line (real folders repeat lines across
references) is keyed, levelled and tokenised once."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import NamedTuple

from ...references.document import Reference
from ...references.values import plain_template
from ..reading.bulk import normalize_lines
from ..reading.evidence import Level, line_level
from ..reading.lines import NOISE_RE
from ..reading.tokens import TOKEN_RE, informative, token_stems, tokens
from .page_words import page_made_of, page_words
from .tables import ReferencePieces

STANDARD_PLACEHOLDERS = frozenset(
    {"<n>", "<hex>", "<path>", "<ip>", "<host>", "<uuid>", "<shape>", "<url>"}
)
# A placeholder of a template that is none of the standard ones (it stands for any word).
_OTHER_PLACEHOLDER_RE = re.compile(
    rf"<(?!(?:{'|'.join(sorted(p[1:-1] for p in STANDARD_PLACEHOLDERS))})>)[a-z][a-z_-]*>"
)
# The tokens of many lines at once, each line's end found as a newline among them.
_TOKEN_OR_END_RE = re.compile(rf"{TOKEN_RE.pattern}|\n")
# The standard placeholders, each written as one control character while a text is cut
# (normalised lines hold none: controls become spaces).
_MARKS = {placeholder: chr(1 + n) for n, placeholder in enumerate(sorted(STANDARD_PLACEHOLDERS))}
# Lower-case ASCII as the tokens of keys: letters, digits, marks and newlines kept, every
# other byte a space.
_KEY_BYTES = bytes(
    code
    if chr(code) in "abcdefghijklmnopqrstuvwxyz0123456789\n" + "".join(_MARKS.values())
    else ord(" ")
    for code in range(256)
)


def comparison_key(normalized: str, template: bool = False) -> str:
    """The tokens a normalised line is compared by, lower-case, space-separated.

    In a template, placeholders other than the standard ones (`<word>`, `<model>`) stand
    for any word: they are dropped, so the real word in a line is one extra token.
    """
    found = tokens(normalized)
    if template:
        found = [t for t in found if t[0] != "<" or t in STANDARD_PLACEHOLDERS]
    return " ".join(found)


def template_keys(normalized: Sequence[str]) -> list[str]:
    """`[comparison_key(line, template=True) for line in normalized]`, worked out at once."""
    return [" ".join(found) for found in template_tokens(normalized)]


def template_tokens(normalized: Sequence[str]) -> list[list[str]]:
    """The tokens of each line's template key, over the lines joined: a dropped placeholder
    becomes a space, which no token holds, so every other token is found as it is in its
    own line. ASCII text is cut at C speed: each standard placeholder is spaced out as a
    control character, every byte no token holds (a stray bracket too) becomes a space;
    any other text in one pass of the token pattern."""
    lowered = "\n".join(normalized).lower()
    if lowered.count("\n") != len(normalized) - 1:  # a line holds a newline itself
        return [comparison_key(line, template=True).split() for line in normalized]
    kept = _OTHER_PLACEHOLDER_RE.sub(" ", lowered)
    if kept.isascii() and not any(map(kept.__contains__, _MARKS.values())):
        for placeholder, mark in _MARKS.items():
            kept = kept.replace(placeholder, f" {mark} ")
        cut = kept.encode("ascii").translate(_KEY_BYTES).decode("ascii")
        for placeholder, mark in _MARKS.items():
            cut = cut.replace(mark, placeholder)
        return [line.split() for line in cut.split("\n")]
    return [key.split() for key in " ".join(_TOKEN_OR_END_RE.findall(kept)).split("\n")]


class _Line(NamedTuple):
    """One message line of a template: its key, level and informative tokens, and whether
    it tells of the failure (it is neither empty nor a frame or traceback header). A tuple:
    15,000 of them at 10,000 references, and a reference's lines are unzipped whole."""

    key: str
    level: Level | None
    tokens: frozenset[str]
    telling: bool


def made_of(reference: Reference) -> tuple[object, ...]:
    """Everything the pieces of `reference` are worked out from."""
    return (
        tuple((m.text, m.kind) for m in reference.messages),
        reference.title,
        reference.summary,
        reference.tags,
        reference.frameworks,
        reference.code_paths,
        page_made_of(reference),
    )


def pieces_of(references: Sequence[Reference]) -> list[ReferencePieces]:
    """The pieces of each reference, all their message lines normalised in one pass."""
    texts = [
        [plain_template(message.text).splitlines() for message in reference.messages]
        for reference in references
    ]
    raw = list(dict.fromkeys(line for messages in texts for lines in messages for line in lines))
    read = dict(zip(raw, _lines(raw), strict=True))
    stems = _Stems()
    return [
        _pieces(
            reference, [[read[line] for line in lines] for lines in messages], stems.of(reference)
        )
        for reference, messages in zip(references, texts, strict=True)
    ]


def _lines(raw: list[str]) -> list[_Line]:
    """What each distinct raw line is, its normalised form keyed and tokenised once."""
    normalized = normalize_lines(raw)
    distinct = list(dict.fromkeys(normalized))
    found = template_tokens(distinct)
    keys = list(map(" ".join, found))
    said = frozenset(informative(set(chain.from_iterable(found))))
    # Each set built in the order of its line's tokens, as `informative` gives them: a
    # line's mass is summed in the set's order, and so comes out to the same last bit.
    held = {
        key: frozenset(filter(said.__contains__, line))
        for key, line in zip(keys, found, strict=True)
    }
    key_of = dict(zip(distinct, keys, strict=True))
    return [
        _Line(
            key_of[line],
            line_level(text),
            held[key_of[line]],
            bool(line) and NOISE_RE.match(line) is None,
        )
        for text, line in zip(raw, normalized, strict=True)
    ]


def _pieces(
    reference: Reference, messages: list[list[_Line]], keywords: frozenset[str]
) -> ReferencePieces:
    """One reference's pieces, from each message's lines (each comparison key once, with
    the first message holding it) and its keyword stems."""
    first: dict[str, tuple[int, _Line]] = {}
    for message_number, lines in enumerate(messages):
        for line in _message_lines(lines):
            first.setdefault(line.key, (message_number, line))
    numbers, chosen = zip(*first.values(), strict=True) if first else ((), ())
    keys, levels, token_sets, _ = zip(*chosen, strict=True) if chosen else ((), (), (), ())
    kinds = [message.kind for message in reference.messages]
    words = page_words(reference)
    return ReferencePieces(
        keys=keys,
        messages=numbers,
        kinds=tuple(map(kinds.__getitem__, numbers)),
        levels=levels,
        token_sets=token_sets,
        keywords=keywords,
        code_paths=frozenset(map(_code_path_key, reference.code_paths)),
        page_words=words,
        page_length=words.total(),
    )


def _message_lines(lines: list[_Line]) -> Iterable[_Line]:
    """The telling lines of a message (all of them when none tells), those with a token
    that says something."""
    telling = [line for line in lines if line.telling]
    return [line for line in telling or lines if line.tokens]


def _code_path_key(path: str) -> str:
    """A code path as frames are looked up: a directory ends with `/`."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path if path.endswith("/") or "." in last else path + "/"


class _Stems(dict[tuple[str, ...], tuple[str, ...]]):
    """The keyword stems of some texts, in the order their tokens first give them, worked
    out once per distinct tuple of texts: copies of a reference share its summary, tags
    and frameworks, and a lookup is all a repeated one costs."""

    def __missing__(self, texts: tuple[str, ...]) -> tuple[str, ...]:
        # Joined by newlines, which no token holds: one cut for them all.
        held = tokens("\n".join(texts))
        found = self[texts] = tuple(dict.fromkeys(chain.from_iterable(map(token_stems, held))))
        return found

    def of(self, reference: Reference) -> frozenset[str]:
        """The stems of a reference's title, summary, tags and frameworks. Chained, its
        title's and the rest's reach the set in the order the tokens of all of them would
        (a stem already held adds nothing), so the set comes out the same, order too."""
        rest = (reference.summary, *reference.tags, *reference.frameworks)
        return frozenset(chain(self[(reference.title,)], self[rest]))
