"""The paste form: run context from its fields, share links, and where a match is shown."""

from __future__ import annotations

import pytest

from failref.domain.matching.highlight import Highlight, highlight
from failref.domain.matching.results import Match
from failref.errors import InvalidInput
from failref.web.views.paste import SHARE_MAX_CHARS, PasteForm


def match_at(span: tuple[int, int] | None) -> Match:
    return Match(
        id="x",
        title="X",
        summary="X.",
        score=0.9,
        confident=True,
        reasons=[],
        matched_message=None,
        matched_span=span,
    )


def test_form_turns_crlf_into_newlines_and_trims_context() -> None:
    form = PasteForm.of("a\r\nb\r\n", framework=" vllm ", gpus="8")
    assert form.log == "a\nb\n"
    assert form.framework == "vllm"
    assert form.context_values() == {"framework": "vllm", "gpus": "8"}


def test_run_context_takes_only_what_was_given() -> None:
    context = PasteForm.of("x", framework="vllm", gpus="8").run_context()
    assert context.model_dump(exclude_none=True) == {"framework": "vllm", "gpus": 8}


@pytest.mark.parametrize("gpus", ["0", "-1", "eight", "1.5"])
def test_a_gpu_count_must_be_a_whole_number(gpus: str) -> None:
    with pytest.raises(InvalidInput) as error:
        PasteForm.of("x", gpus=gpus).run_context()
    assert error.value.field == "gpus"


def test_inferred_context_fills_only_empty_fields() -> None:
    form = PasteForm.of("x", framework="vllm")
    filled, names = form.with_inferred({"framework": "nccl", "gpu": "H100", "other": "y"})
    assert (filled.framework, filled.gpu) == ("vllm", "H100")
    assert names == {"gpu"}


@pytest.mark.parametrize(
    ("text", "shared"),
    [
        pytest.param("one line", True, id="short"),
        pytest.param("x" * SHARE_MAX_CHARS, True, id="at-limit"),
        pytest.param("x" * (SHARE_MAX_CHARS + 1), False, id="too-long"),
        pytest.param("two\nlines", False, id="two-lines"),
        pytest.param("  \n", False, id="blank"),
    ],
)
def test_only_short_single_lines_are_shared(text: str, shared: bool) -> None:
    query = PasteForm.of(text, model="m").share_query()
    assert (query == {"q": text.strip(), "model": "m"}) is shared
    assert (query is None) is not shared


@pytest.mark.parametrize(
    ("text", "span", "expected"),
    [
        pytest.param("abc def", (4, 7), Highlight(1, "abc ", "def", ""), id="one-line"),
        pytest.param("a\nxx yy zz\nb", (5, 7), Highlight(2, "xx ", "yy", " zz"), id="middle"),
        pytest.param("a\r\nhit\r\n", (3, 6), Highlight(2, "", "hit", ""), id="crlf"),
    ],
)
def test_highlight_splits_the_matched_line(
    text: str, span: tuple[int, int], expected: Highlight
) -> None:
    assert highlight(text, match_at(span)) == expected


@pytest.mark.parametrize("span", [None, (5, 50), (3, 2)])
def test_no_highlight_without_a_sound_span(span: tuple[int, int] | None) -> None:
    assert highlight("short", match_at(span)) is None


@pytest.mark.parametrize(
    "field",
    [
        pytest.param({"notes": "key AKIAIOSFODNN7EXAMPLE"}, id="key-in-notes"),
        pytest.param({"model": "llama password=hunter22"}, id="password-in-model"),
        pytest.param({"gpu": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, id="token-in-gpu"),
    ],
)
def test_no_share_link_carries_a_secret_in_any_field(field: dict[str, str]) -> None:
    """Issue 13, item 9: the message was checked, the context fields were not."""
    assert PasteForm.of("NCCL timeout", **field).share_query() is None
    assert PasteForm.of("NCCL timeout", notes="8 x H100").share_query() == {
        "q": "NCCL timeout",
        "notes": "8 x H100",
    }
