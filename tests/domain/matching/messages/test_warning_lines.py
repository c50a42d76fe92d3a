"""A paste of warnings that no failure message resembles closely leads with the pages of
normal output; a confident answer, a line matching part of a failure message, a line a
failure page lists as its own normal output, and NCCL's `WARN` (its error level) keep
their order."""

from __future__ import annotations

import pytest
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.messages.warning_lines import REASON, warnings_only
from failref.domain.references.document import Reference

HARMLESS = made_reference(
    id="harmless",
    title="Harmless warnings",
    kind="healthy",
    messages=[made_message("<path>:<n>: UserWarning: TypedStorage is deprecated", kind="healthy")],
)
FSDP = made_reference(
    id="fsdp",
    title="FSDP wrapping errors",
    messages=[made_message("ValueError: FSDP.state_dict_type() needs a wrapped module <word>")],
)
AFFINITY = made_reference(
    id="affinity",
    title="CPU affinity",
    messages=[
        made_message("OMP_NUM_THREADS set to one thread per process", kind="healthy"),
        made_message("threads oversubscribed on the cores"),
    ],
)
DEPRECATION = (
    "/usr/lib/python3.10/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:690:"
    " FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated."
)


def pages() -> list[Reference]:
    return [HARMLESS, FSDP, AFFINITY]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(DEPRECATION, True, id="a-python-warning"),
        pytest.param(DEPRECATION + "\n  warnings.warn(\n", True, id="with-its-source-echo"),
        pytest.param(
            "W1210 04:04:55.628000 6579 torch/distributed/run.py:792] Setting OMP_NUM_THREADS",
            True,
            id="glog",
        ),
        pytest.param(
            "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500",
            True,
            id="c10d",
        ),
        pytest.param(
            "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect failed",
            False,
            id="nccl-warn-is-an-error",
        ),
        pytest.param(DEPRECATION + "\nRuntimeError: CUDA error: unknown error", False, id="worse"),
        pytest.param("ERROR 11-29 12:00:00 engine.py:12] warning ignored", False, id="error-level"),
        pytest.param("loss 2.31 at step 100", False, id="no-warning"),
    ],
)
def test_a_paste_of_warnings_and_nothing_worse(text: str, expected: bool) -> None:
    assert warnings_only(text) is expected


def test_a_warning_no_failure_message_resembles_leads_with_the_healthy_page() -> None:
    result = match_text(build_index(pages()), DEPRECATION)
    matches = result.matches
    assert [match.id for match in matches][:2] == ["harmless", "fsdp"]
    assert not matches[0].confident
    assert matches[0].reasons[-1] == REASON
    assert result.lead is not None
    assert (result.lead.id, result.lead.score, result.lead.why[0]) == ("harmless", None, REASON)


def test_an_error_line_keeps_the_failure_page_first() -> None:
    error = DEPRECATION.replace("FutureWarning", "ValueError")
    matches = match_text(build_index(pages()), error).matches
    assert matches[0].id == "fsdp"
    assert all(REASON not in match.reasons for match in matches)


def test_a_warning_matching_a_failure_message_keeps_its_page_first() -> None:
    warned = "[W fsdp.cpp:12] FSDP.state_dict_type() needs a wrapped module here"
    matches = match_text(build_index(pages()), warned).matches
    assert matches[0].id == "fsdp"
    assert matches[0].message_match in ("close", "partial")


def test_a_warning_a_failure_page_lists_as_normal_keeps_that_page() -> None:
    line = "W1210 04:04:55.628000 6579 run.py:792] OMP_NUM_THREADS set to one thread per process"
    result = match_text(build_index(pages()), line)
    assert [healthy.id for healthy in result.healthy_lines] == ["affinity"]
    assert all(REASON not in match.reasons for match in result.matches)
