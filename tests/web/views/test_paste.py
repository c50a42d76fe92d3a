"""The paste form: run context from its fields and share links (where a match is shown is
domain/matching/messages/test_highlight.py)."""

from __future__ import annotations

import pytest
from secret_shapes import SHAPES, Shape

from failref.web.views.paste import SHARE_MAX_CHARS, PasteForm


def test_form_turns_crlf_into_newlines_and_trims_context() -> None:
    form = PasteForm.of("a\r\nb\r\n", framework=" vllm ", gpus="8")
    assert form.log == "a\nb\n"
    assert form.framework == "vllm"
    assert form.context_values() == {"framework": "vllm", "gpus": "8"}


def test_run_context_takes_only_what_was_given_as_typed() -> None:
    context = PasteForm.of("x", framework="vLLM 0.8", gpus="8x H100").run_context()
    assert context.model_dump(exclude_none=True) == {"framework": "vLLM 0.8", "gpus": "8x H100"}


@pytest.mark.parametrize("gpus", ["0", "-1", "eight", "1.5", "single node", "x" * 5000])
def test_no_gpu_count_is_refused(gpus: str) -> None:
    assert PasteForm.of("x", gpus=gpus).run_context().gpus == gpus


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


@pytest.mark.parametrize("shape", [pytest.param(s, id=s.name) for s in SHAPES])
def test_no_share_link_carries_a_secret_shape(shape: Shape) -> None:
    """Issue 35, item 5: a link is offered only for a line redaction leaves as it is."""
    line = shape.line.replace("\n", " ")
    assert PasteForm.of(line).share_query() is None
    assert PasteForm.of("NCCL timeout", notes=line).share_query() is None
