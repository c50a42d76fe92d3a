"""A reference's pieces: comparison keys found for many lines at once are the ones each
line gives alone, and the pieces are the same whichever references are worked out beside."""

from __future__ import annotations

from itertools import chain

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.index.pieces import comparison_key, pieces_of, template_keys
from failref.domain.matching.reading.bulk import normalize_lines
from failref.domain.matching.reading.tokens import keyword_stems, token_stems, tokens
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder

# Placeholders standard and not, glued to words and each other, and what lower() folds.
KEY_PIECES = st.sampled_from(
    [
        *("<n>", "<hex>", "<url>", "<word>", "<model_name>", "<a-b>", "<", ">", "<<", "<N>"),
        *("abc", "Rank", "x", "0", "12", " ", "\t", "_", "-", ".", ":", "K", "\u0130", "\u03a3"),
        *("<n", "n>", "<ab1>", "<hex_>", "\u212a", "\u00e9", "\x0b", "\x1f", "<url>", "<shape>"),
        *("\x01", "\x05", "->", "a>b"),
    ]
)


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return read_folder(REFERENCES).references


def template_lines(references: list[Reference]) -> list[str]:
    return [
        line
        for reference in references
        for message in reference.messages
        for line in message.text.splitlines()
    ]


def test_keys_found_at_once_are_each_lines_own(references: list[Reference]) -> None:
    labelled = [line.text for line in read_labelled(DATA / "labelled")]
    lines = normalize_lines([*template_lines(references), *labelled])
    assert template_keys(lines) == [comparison_key(line, template=True) for line in lines]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(KEY_PIECES, max_size=20).map("".join), max_size=8))
def test_generated_keys_found_at_once_are_each_lines_own(lines: list[str]) -> None:
    assert template_keys(lines) == [comparison_key(line, template=True) for line in lines]


def test_a_line_holding_a_newline_is_keyed_on_its_own() -> None:
    assert template_keys(["a <word> b\nc", "d"]) == ["a b c", "d"]


def test_pieces_do_not_depend_on_the_references_worked_out_beside(
    references: list[Reference],
) -> None:
    """Lines shared between references are read once; each reference's pieces are still
    the ones it gives alone."""
    together = pieces_of(references)
    assert together == [pieces_of([reference])[0] for reference in references]


def test_keywords_are_the_stems_of_each_texts_own_tokens(references: list[Reference]) -> None:
    for reference, pieces in zip(references, pieces_of(references), strict=True):
        texts = (reference.title, reference.summary, *reference.tags, *reference.frameworks)
        words = [token for text in texts for token in tokens(text)]
        assert pieces.keywords == keyword_stems(words), reference.id


def test_keywords_come_out_as_one_pass_over_all_the_texts_gives_them(
    references: list[Reference],
) -> None:
    """Stems worked out per title and per (summary, tags, frameworks), shared between
    references, make the very set one pass over all the texts' tokens makes, in its order
    (copies of a reference with another title share the rest)."""
    copies = [r.model_copy(update={"id": f"{r.id}-copy", "title": r.summary}) for r in references]
    for reference, pieces in zip(
        [*references, *copies], pieces_of([*references, *copies]), strict=True
    ):
        texts = (reference.title, reference.summary, *reference.tags, *reference.frameworks)
        one_pass = frozenset(chain.from_iterable(map(token_stems, tokens("\n".join(texts)))))
        assert list(pieces.keywords) == list(one_pass), reference.id
