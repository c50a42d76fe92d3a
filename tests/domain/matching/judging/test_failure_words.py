"""A line saying nothing failed (a settings, progress or status line) against a message that
names a failure shares the message's other words only: it leads to the page, never answers
it with confidence. A wrapped failure message keeps its confidence on its later lines."""

from __future__ import annotations

import pytest
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.judging.failure_words import says_failure, says_less
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import match_text

WORLD_SIZE = (
    "RuntimeError: world_size (<n>) is not equal to tensor_model_parallel_size (<n>) x "
    "pipeline_model_parallel_size (<n>) x data_parallel_size (<n>)"
)
SETTINGS = (
    "using world size: 2, data-parallel-size: 2, tensor-model-parallel size: 1, "
    "pipeline-model-parallel size: 1"
)
FAILED = (
    "RuntimeError: world_size (8) is not equal to tensor_model_parallel_size (4) x "
    "pipeline_model_parallel_size (4) x data_parallel_size (1)"
)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <size>. GPU <n> has a total "
    "capacity of <size> of which <size> is free. Including non-PyTorch memory, this process "
    "has <size> memory in use. Of the allocated memory <size> is allocated by PyTorch, and "
    "<size> is reserved by PyTorch but unallocated."
)
# The OOM message wrapped by a terminal: its second line names no failure by itself.
WRAPPED_OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory.\n"
    "Tried to allocate 426.00 MiB. GPU 3 has a total capacity of 79.32 GiB of which 69.56 MiB "
    "is free. Including non-PyTorch memory, this process has 79.25 GiB memory in use. Of the "
    "allocated memory 73.91 GiB is allocated by PyTorch, and 2.41 GiB is reserved by PyTorch "
    "but unallocated."
)


@pytest.mark.parametrize(
    "line",
    [
        "torch.OutOfMemoryError: CUDA out of memory.",
        "NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus.",
        "NET/IB : Got completion from peer 10.0.0.2<36315> with status=12 vendor err 129",
        "backend='inductor' raised:",
        "Killing subprocess 1080504",
        "world_size (8) is not equal to tensor_model_parallel_size (4)",
        "Signal 11 (SIGSEGV) received by PID 77",
    ],
)
def test_a_failure_line_says_so(line: str) -> None:
    assert says_failure(line)


@pytest.mark.parametrize(
    "line",
    [
        SETTINGS,
        'INFO:     127.0.0.1:38440 - "GET /health HTTP/1.1" 200 OK',
        "[INFO] [axolotl.train.log:61] [PID:1516652] [RANK:0] Starting trainer...",
        " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 1040517120",
    ],
)
def test_a_settings_or_progress_line_says_nothing_failed(line: str) -> None:
    assert not says_failure(line)


def test_a_message_placeholder_is_not_a_failure_word() -> None:
    assert not says_less("GPU 0 status: ready", "GPU <n> status: <word>")
    assert says_less(SETTINGS, WORLD_SIZE)


def test_a_settings_line_leads_to_the_failure_it_resembles_without_answering_it() -> None:
    index = build_index([made_reference(id="sizes", messages=[made_message(WORLD_SIZE)])])
    settings = match_text(index, SETTINGS).matches
    failed = match_text(index, FAILED).matches
    assert [match.id for match in settings[:1]] == ["sizes"]
    assert not settings[0].confident
    assert any("says nothing failed" in reason for reason in settings[0].reasons)
    assert (failed[0].id, failed[0].confident) == ("sizes", True)


def test_a_wrapped_failure_keeps_its_confidence_on_its_later_lines() -> None:
    index = build_index([made_reference(id="oom", messages=[made_message(OOM)])])
    pasted = match_text(index, WRAPPED_OOM).matches
    scanned = scan_log(index, "\n".join(["step 1 loss 2.0"] * 3 + [WRAPPED_OOM])).hits
    assert (pasted[0].id, pasted[0].confident) == ("oom", True)
    assert [(hit.id, hit.confident) for hit in scanned[:1]] == [("oom", True)]


def test_a_settings_line_in_a_log_is_no_confident_hit() -> None:
    index = build_index([made_reference(id="sizes", messages=[made_message(WORLD_SIZE)])])
    log = "\n".join(["building GPT model ...", SETTINGS, "> initializing torch distributed ..."])
    assert not any(hit.confident for hit in scan_log(index, log).hits)
