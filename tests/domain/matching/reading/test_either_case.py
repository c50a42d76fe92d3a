"""A case-insensitive pattern's lower-case twin finds what it finds, on every labelled line
and shipped message, as written and with its case changed."""

from __future__ import annotations

import pytest
from paths import LABELLED, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.context import FRAMEWORK_PATTERNS, GPU, MODEL, PHASE_PATTERNS
from failref.domain.matching.reading.either_case import EitherCase, lowered_ascii
from failref.domain.references.folder import read_folder

PATTERNS = [
    *(pytest.param(pattern, id=f"framework-{name}") for name, pattern in FRAMEWORK_PATTERNS),
    pytest.param(GPU, id="gpu"),
    pytest.param(MODEL, id="model"),
    *(pytest.param(pattern, id=f"phase-{name}") for name, pattern in PHASE_PATTERNS),
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    lines = [line.text for line in read_labelled(LABELLED)]
    messages = [m.text for r in read_folder(REFERENCES).references for m in r.messages]
    written = lines + messages
    return written + [t.upper() for t in written] + [t.swapcase() for t in written]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_twin_finds_what_the_pattern_finds(pattern: EitherCase, texts: list[str]) -> None:
    for text in texts:
        expected = pattern.any_case.search(text)
        found = pattern.search(text, lowered_ascii(text))
        assert (found is None) == (expected is None), text
        if found is not None and expected is not None:
            assert found.span() == expected.span(), text
            lowered = pattern.lower is not None and text.isascii()
            wanted = expected.group(0).lower() if lowered else expected.group(0)
            assert found.group(0) == wanted, text


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_match_holds_a_needle(pattern: EitherCase, texts: list[str]) -> None:
    for text in texts:
        for found in pattern.any_case.finditer(text):
            held = found.group(0).lower()
            assert not pattern.needles or any(n in held for n in pattern.needles), held


def test_a_text_without_a_needle_is_not_searched() -> None:
    pattern = EitherCase.of(r"\bgrad(?:ient)?s?\b|(?-i:LOSS)", ("grad", "loss"))
    assert pattern.search("the LOSS went up", "the loss went up") is not None
    assert pattern.search("the loss went up", "the loss went up") is None  # case-sensitive
    assert pattern.search("gradients", "gradients") is not None
    assert pattern.search("no such words", "no such words") is None
    with pytest.raises(ValueError, match="lower case"):
        EitherCase.of("x", ("X",))


@pytest.mark.parametrize(
    ("source", "unlike", "like"),
    [
        pytest.param(r"\bnccl\b|(?-i:NCCL)", "Worknccl", "WorkNCCL", id="case-sensitive-group"),
        pytest.param(r"rank\S+", "rank 3", "rank3", id="upper-case-escape"),
        pytest.param(r"\Bgpu", "a gpu", "agpu", id="not-a-boundary"),
    ],
)
def test_no_twin_where_lowering_changes_the_meaning(source: str, unlike: str, like: str) -> None:
    pattern = EitherCase.of(source)
    assert pattern.lower is None
    assert pattern.search(unlike, lowered_ascii(unlike)) is None
    assert pattern.search(like, lowered_ascii(like)) is not None


def test_text_that_is_not_ascii_is_searched_as_written() -> None:
    pattern = EitherCase.of("STRASSE|straße")
    assert lowered_ascii("die Straße") is None
    found = pattern.search("die Straße", lowered_ascii("die Straße"))
    assert found is not None
    assert found.group(0) == "Straße"
