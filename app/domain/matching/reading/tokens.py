"""The one tokenizer: how every piece of text (log lines, messages, titles, notes) is cut
into words, which words say something, and their crude stems."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from itertools import chain

# Words, and the placeholders (`<n>`, `<path>`) normalisation writes, in lower-case text.
TOKEN_RE = re.compile(r"<[a-z][a-z_-]*>|[a-z0-9]+")
# An ASCII text as its words: letters lower-cased, digits kept, every other byte a space.
_ASCII_WORD_RUNS = bytes(
    ord(chr(code).lower()) if code < 128 and chr(code).isalnum() else ord(" ")
    for code in range(256)
)
STEM_SUFFIXES = ("ions", "ion", "ing", "ed", "es", "s")
MIN_STEM_CHARS = 4
# Distinct tokens whose stems are remembered: the titles and summaries of 10,000 references
# repeat a few tens of thousands of words, and stemming each anew was most of an index build.
STEM_CACHE_WORDS = 1 << 16

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "no",
        "not",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "when",
        "which",
        "while",
        "with",
    ]
)


def tokens(text: str) -> list[str]:
    """The words and placeholders of `text`, lower-cased."""
    if text.isascii() and "<" not in text:  # words alone: runs of [a-z0-9], at C speed
        return text.encode("ascii").translate(_ASCII_WORD_RUNS).decode("ascii").split()
    return TOKEN_RE.findall(text.lower())


def plain_words(text: str) -> list[str]:
    """The words of a long text (a page), lower-cased, cut at C speed whatever it holds:
    each byte outside ASCII, as each one no word holds, is a space; a placeholder (`<n>`)
    is its word."""
    lowered = text.lower().encode("ascii", "replace")
    return lowered.translate(_ASCII_WORD_RUNS).decode("ascii").split()


def words(texts: Iterable[str]) -> list[str]:
    """The words of some texts, lower-cased, without placeholders."""
    return [token for text in texts for token in tokens(text) if token[0] != "<"]


def informative(tokens: Iterable[str]) -> Iterable[str]:
    """The tokens that say something: no placeholder, no stop word, not one character."""
    return (t for t in tokens if len(t) > 1 and t[0] != "<" and t not in STOPWORDS)


def set_chars(key: str, held: Collection[str]) -> tuple[int, int]:
    """A key's distinct tokens as `token_set_ratio` measures them (characters and one
    separator each): all of them, and those not among `held` (some of its tokens)."""
    distinct = set(key.split())
    whole = sum(map(len, distinct)) + len(distinct)
    return whole, whole - sum(map(len, held)) - len(held)


def stem(word: str) -> str:
    """A crude English stem, enough for `preempted` to meet `preemption` in a title."""
    for _ in range(2):  # `partitioning` -> `partition` -> `partit`, as `partitions` goes
        for suffix in STEM_SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM_CHARS:
                word = word[: -len(suffix)]
                break
    return word


def keyword_stems(tokens: Iterable[str]) -> set[str]:
    """Stems of the informative words in some tokens, `moe_grouped_gemm` split at `_`."""
    return set(chain.from_iterable(map(token_stems, set(tokens))))


@lru_cache(maxsize=STEM_CACHE_WORDS)
def token_stems(token: str) -> tuple[str, ...]:
    """The stems of one token's informative parts (`moe_grouped_gemm`: `moe`, `group`...)."""
    return tuple(stem(part) for part in informative(token.split("_")))
