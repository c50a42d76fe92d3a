"""The telling span of a line: what it says after its last `: `, when short; a match whose
span names what another page's message names is held back from confidence."""

from __future__ import annotations

import pytest
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.judging.telling import (
    error_family,
    tail_words,
    tails_disagree,
    telling_span,
)
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
        pytest.param(
            "h100-4: Test NCCL failure common.cu:1057 'internal error / '",
            {"internal", "error"},
            id="a-quoted-status",
        ),
        pytest.param(
            "Failed: Cuda error <path>:307 'peer access is not supported between these two "
            "devices'",
            {"peer", "access", "supported", "between", "these", "two", "devices"},
            id="a-long-quoted-status-without-its-stop-words",
        ),
        pytest.param(
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED",
            {"cublas", "status", "initialized"},
            id="words-as-the-index-holds-them",
        ),
        pytest.param(
            "Warning: 1Torch was not compiled with flash attention. (function operator ())",
            None,
            id="stop-words-count-towards-the-length",
        ),
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
        frozenset({"invalid", "device", "ordinal"}),
        "invalid device ordinal",
        "invalid device function",
    )
    assert tails_disagree("CUDA error: out of memory", "CUDA error: out of memory") is None
    assert tails_disagree("CUDA error: out of memory (retry)", "CUDA error: out of memory") is None


@pytest.mark.parametrize(
    ("line", "span"),
    [
        pytest.param(
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, "
            "unhandled cuda error, NCCL version 2.4.8",
            "unhandled cuda error",
            id="the-last-clause-when-the-colon-leads-to-a-path",
        ),
        pytest.param(
            "DistBackendError: NCCL error in: <path>:<n>, unhandled system error (run with "
            "NCCL_DEBUG=INFO for details), NCCL version <n>",
            "<path>:<n>, unhandled system error",
            id="boilerplate-left-out",
        ),
        pytest.param(
            "Failed: Cuda error /csrc/custom_all_reduce.cuh:307 'invalid argument'",
            "invalid argument",
            id="a-quoted-status",
        ),
        pytest.param(
            'RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at "../c10/cuda/'
            'CUDACachingAllocator.cpp":2814, please report a bug to PyTorch. ',
            "!block->expandable_segment_",
            id="pytorch-internal-assert-condition",
        ),
    ],
)
def test_the_telling_span_as_written(line: str, span: str) -> None:
    found = telling_span(line)
    assert found is not None
    assert found[0] == span


def test_spans_are_compared_by_their_stems() -> None:
    assert (
        tails_disagree(
            "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
            "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        )
        is None
    )


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


def test_a_generic_status_does_not_overrule_the_code_that_printed_the_line() -> None:
    custom = made_reference(
        id="custom",
        title="custom all-reduce fails on peer access between two devices",
        code_paths=("custom_all_reduce.cuh",),
        messages=[
            made_message(
                "Failed: Cuda error <path>/custom_all_reduce.cuh:<n> 'invalid resource handle'"
            )
        ],
    )
    generic = [
        made_reference(id=name, messages=[made_message(f"{name} error: invalid argument")])
        for name in ("status", "launch")
    ]
    p2p = made_reference(
        id="p2p",
        messages=[
            made_message("CUDA error: peer access is not supported between these two devices")
        ],
    )
    index = build_index([custom, *generic, p2p])
    generic_status = "Failed: Cuda error /csrc/custom_all_reduce.cuh:164 'invalid argument'"
    first = match_text(index, generic_status).matches[0]
    assert (first.id, first.confident, first.held_back) == ("custom", True, [])
    one_failure = (
        "Failed: Cuda error /csrc/custom_all_reduce.cuh:307 'peer access is not supported "
        "between these two devices'"
    )
    found = {m.id: m for m in match_text(index, one_failure).matches}
    assert not found["custom"].confident
    assert "another page's messages name what the line says" in found["custom"].held_back[0]
    assert found["p2p"].confident


def test_only_a_page_naming_the_whole_span_holds_the_match_back() -> None:
    system = made_reference(
        id="system",
        title="NCCL error in a process group",
        messages=[
            made_message(
                "RuntimeError: NCCL error in: <path>:<n>, unhandled system error, NCCL version <n>"
            )
        ],
    )
    cuda_words = made_reference(id="cuda", messages=[made_message("CUDA error: unknown error")])
    line = (
        "RuntimeError: NCCL error in: /torch/lib/c10d/ProcessGroupNCCL.cpp:32, "
        "unhandled cuda error, NCCL version 2.4.8"
    )
    first = match_text(build_index([system, cuda_words]), line).matches[0]
    assert (first.id, first.confident) == ("system", True)  # `cuda` alone names nothing
    whole = made_reference(
        id="whole",
        messages=[made_message("NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO)")],
    )
    found = {m.id: m for m in match_text(build_index([system, cuda_words, whole]), line).matches}
    assert not found["system"].confident
    assert "another page's messages name what the line says" in found["system"].held_back[0]


@pytest.mark.parametrize(
    ("line", "family"),
    [
        pytest.param("RuntimeError: CUDA error: invalid argument", "CUDA", id="cuda"),
        pytest.param("NCCL error in: <path>:<n>, invalid argument", "NCCL", id="nccl-first"),
        pytest.param("RuntimeError: Triton Error [CUDA]: invalid argument", "CUDA", id="bracket"),
        pytest.param("NCCL WARN Cuda failure 1 'invalid argument'", "Cuda", id="nccl-reports-cuda"),
        pytest.param("RuntimeError: CUDA driver error: out of memory", "CUDA", id="driver"),
        pytest.param("torch.OutOfMemoryError: CUDA out of memory.", None, id="none"),
    ],
)
def test_the_library_a_line_says_failed(line: str, family: str | None) -> None:
    assert error_family(line) == family


def test_a_line_from_another_library_holds_the_match_back() -> None:
    cuda = made_reference(
        id="cuda",
        title="CUDA call got an invalid argument",
        messages=[made_message("RuntimeError: CUDA error: invalid argument")],
    )
    nccl = made_reference(
        id="nccl",
        messages=[made_message("NCCL error in: <path>:<n>, internal error, NCCL version <n>")],
    )
    index = build_index(
        [cuda, nccl, made_reference(id="killed", messages=[made_message("Killed")])]
    )
    line = "RuntimeError: NCCL error in: NCCLUtils.hpp:82, invalid argument, NCCL version 2.4.8"
    first = match_text(index, line).matches[0]
    assert (first.id, first.confident) == ("cuda", False)
    assert first.held_back == ["line 1 is an error from NCCL, where its message is one from CUDA"]
    assert match_text(index, "RuntimeError: CUDA error: invalid argument").matches[0].confident


def test_a_wrapper_whose_span_is_a_placeholder_gives_way_to_the_page_naming_the_tail() -> None:
    wrapper = made_reference(
        id="wrapper",
        title="The runner process terminated",
        messages=[made_message("Error: llama runner process has terminated: signal: <word>")],
    )
    killed = made_reference(id="killed", messages=[made_message("Out of memory: Killed process")])
    index = build_index([wrapper, killed])
    line = "Error: llama runner process has terminated: signal: killed"
    first = match_text(index, line).matches[0]
    assert (first.id, first.confident) == ("wrapper", False)
    assert "another page's messages name what the line says" in first.held_back[0]
    aborted = match_text(index, "Error: llama runner process has terminated: signal: aborted")
    assert aborted.matches[0].confident  # no page owns `aborted`: the wrapper's own answer


def test_a_field_of_a_list_is_no_telling_span() -> None:
    line = (
        "NVRM: Xid (PCI:0000:06:00): 120, GSP task exception: store access page fault "
        "(cause:0xf) @ pc:0x13ebd80, partition:2#0, task:3"
    )
    found = telling_span(line)
    assert found is not None
    assert not found[0].startswith("task")
