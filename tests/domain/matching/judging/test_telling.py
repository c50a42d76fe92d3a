"""The telling span of a line: what it says after its last `: `, when short; a match whose
span names what another page's message names is held back from confidence."""

from __future__ import annotations

import pytest
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.judging.telling import tail_words, tails_disagree
from failref.domain.matching.messages.match import match_text


@pytest.mark.parametrize(
    ("line", "words"),
    [
        pytest.param(
            "RuntimeError: CUDA error: invalid device ordinal",
            {"invalid", "device", "ordinal"},
            id="cuda",
        ),
        pytest.param(
            "THCudaCheck FAIL file=<path> line=<n> error=8 : invalid device function",
            {"invalid", "device", "function"},
            id="placeholders",
        ),
        pytest.param("ValueError: <word>", None, id="only-a-placeholder"),
        pytest.param("no colon here", None, id="none"),
        pytest.param("[rank0]: Traceback (most recent call last):", None, id="traceback-header"),
        pytest.param("x: one two three four five six seven", None, id="a-description"),
    ],
)
def test_the_telling_span_is_the_short_end_of_a_line(line: str, words: set[str] | None) -> None:
    assert tail_words(line) == (None if words is None else frozenset(words))


def test_spans_disagree_only_when_each_says_what_the_other_does_not() -> None:
    found = tails_disagree(
        "THCudaCheck FAIL file=Module.cpp line=32 error=10 : invalid device ordinal",
        "THCudaCheck FAIL file=<path> line=<n> error=8 : invalid device function",
    )
    assert found is not None
    assert (found.words, found.said, found.meant) == (
        frozenset({"ordinal"}),
        "invalid device ordinal",
        "invalid device function",
    )
    assert tails_disagree("CUDA error: out of memory", "CUDA error: out of memory") is None
    assert tails_disagree("CUDA error: out of memory (retry)", "CUDA error: out of memory") is None


def test_a_span_another_page_names_holds_the_match_back() -> None:
    function = made_reference(
        id="function",
        messages=[
            made_message(
                "THCudaCheck FAIL file=<path> line=<n> error=<n> : invalid device function"
            )
        ],
    )
    ordinal = made_reference(
        id="ordinal", messages=[made_message("RuntimeError: CUDA error: invalid device ordinal")]
    )
    line = (
        "THCudaCheck FAIL file=torch/csrc/cuda/Module.cpp line=32 error=10 : invalid device ordinal"
    )
    first = match_text(build_index([function, ordinal]), line).matches[0]
    assert first.id == "function"
    assert not first.confident
    assert "another page's messages name what the line says" in first.held_back[0]
    alone = match_text(build_index([function]), line).matches[0]
    assert alone.held_back == []  # no other page names it: a variant of the same failure
