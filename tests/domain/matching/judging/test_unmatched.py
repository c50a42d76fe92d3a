"""Which unmatched lines are listed as unrecognised errors."""

from __future__ import annotations

import pytest

from failref.domain.matching.judging.unmatched import (
    MAX_UNRECOGNISED,
    looks_like_an_error,
    unrecognised_lines,
)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        pytest.param(
            "torch.distributed.DistBackendError: NCCL communicator aborted", True, id="class"
        ),
        pytest.param("ERROR failed (exitcode: -6) local_rank: 0 (pid: 1)", True, id="exitcode"),
        pytest.param("Fatal Python error: Segmentation fault", True, id="fatal"),
        pytest.param("INFO 01-02 worker failed over to the spare, as configured", False, id="info"),
        pytest.param("CUDA kernel errors might be asynchronously reported", False, id="hint"),
        pytest.param("step 10 loss 2.3", False, id="progress"),
    ],
)
def test_looks_like_an_error(line: str, error: bool) -> None:
    assert looks_like_an_error(line, line) is error


def test_unrecognised_lines_are_listed_by_first_line_and_counted_in_all() -> None:
    lines = ["ok", "B Error: two", "A Error: one", "B Error: two", "fine"]
    groups = [("b error: two", [2, 4]), ("a error: one", [3]), ("fine", [5])]
    found = unrecognised_lines(groups, lines, line_cap=1)
    assert [(u.line, u.count, u.line_numbers) for u in found.shown] == [(2, 2, [2]), (3, 1, [3])]
    assert found.total == 3


def test_unrecognised_lines_are_capped_but_all_counted() -> None:
    lines = [f"Error: number {i}" for i in range(MAX_UNRECOGNISED + 5)]
    groups = [(line.lower(), [n]) for n, line in enumerate(lines, 1)]
    found = unrecognised_lines(groups, lines, line_cap=20)
    assert (len(found.shown), found.total) == (MAX_UNRECOGNISED, MAX_UNRECOGNISED + 5)


def test_wrappers_are_kept_apart_and_a_tracebacks_scaffolding_dropped() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "train.py", line 3, in <module>',
        "KeyError: 'lr'",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "  <NO_OTHER_FAILURES>",
    ]
    groups = [(line.lower(), [n]) for n, line in enumerate(lines, 1)]
    found = unrecognised_lines(groups, lines, line_cap=20)
    assert [u.text for u in found.shown] == ["KeyError: 'lr'"]
    assert found.wrappers == [(4, [4]), (5, [5])]
