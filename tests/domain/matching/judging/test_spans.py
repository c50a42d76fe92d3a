"""A line whose telling span shares no word with its message's, where neither line holds the
other's span, agrees with the message only on the words around the spans: never a confident
answer, whether or not another page names the line's span."""

from __future__ import annotations

import pytest
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.judging.spans import apart
from failref.domain.matching.judging.telling import tails_disagree
from failref.domain.matching.messages.match import match_text

ASSERT_TAIL = (
    ' INTERNAL ASSERT FAILED at "../c10/cuda/CUDAGuardImpl.h":25, please report a bug to PyTorch.'
)
ORDINAL = made_reference(
    id="ordinal",
    title="Invalid device ordinal",
    messages=[
        made_message(
            "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
            '"<path>":<n>, please report a bug to PyTorch. '
        )
    ],
)


@pytest.mark.parametrize(
    ("line", "message", "expected"),
    [
        pytest.param(
            "RuntimeError: t == DeviceType::CUDA" + ASSERT_TAIL,
            "RuntimeError: device >= 0 && device < num_gpus" + ASSERT_TAIL,
            True,
            id="another-assert-condition",
        ),
        pytest.param(
            "Failed to initialize NVML: could not load NVML library.",
            "Failed to initialize NVML: Driver/library version mismatch",
            True,
            id="one-shared-word-of-several",
        ),
        pytest.param(
            "THCudaCheck FAIL file=Module.cpp line=32 error=10 : invalid device ordinal",
            "THCudaCheck FAIL file=<path> line=<n> error=8 : invalid device function",
            False,
            id="variants-sharing-a-word",
        ),
        pytest.param(
            "RuntimeError: unable to write to file </torch_15769_1517813162>",
            "RuntimeError: unable to write to file </torch_<n>>: No space left on device (28)",
            False,
            id="a-line-cut-short-of-its-message-span",
        ),
        pytest.param(
            "watchdog thread terminated with exception: CUDA error: an illegal memory access "
            "was encountered/s, output: 240.71 toks/s]",
            "CUDA error: an illegal memory access was encountered",
            False,
            id="the-message-span-inside-a-longer-line",
        ),
    ],
)
def test_spans_are_apart_only_when_neither_line_says_the_other(
    line: str, message: str, expected: bool
) -> None:
    found = tails_disagree(line, message)
    assert found is not None
    assert apart(found, line, message) is expected


def test_a_match_resting_on_the_words_around_the_spans_is_not_confident() -> None:
    index = build_index([ORDINAL])
    other_assert = match_text(index, "RuntimeError: t == DeviceType::CUDA" + ASSERT_TAIL)
    first = other_assert.matches[0]
    assert first.id == "ordinal"
    assert not first.confident
    assert "they agree only on the words around those" in first.held_back[0]
    same = match_text(index, "RuntimeError: device >= 0 && device < num_gpus" + ASSERT_TAIL)
    assert (same.matches[0].id, same.matches[0].confident) == ("ordinal", True)


def test_a_line_printed_by_the_page_code_keeps_its_match() -> None:
    printed = made_reference(
        id="guard",
        title="CUDA guard",
        code_paths=("c10/cuda/cudaguardimpl.h",),
        messages=[made_message("RuntimeError: device >= 0 && device < num_gpus" + ASSERT_TAIL)],
    )
    first = match_text(
        build_index([printed]), "RuntimeError: t == DeviceType::CUDA" + ASSERT_TAIL
    ).matches[0]
    assert (first.id, first.confident, first.held_back) == ("guard", True, [])
