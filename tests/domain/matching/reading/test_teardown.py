"""Which lines state a failure, which sit on top of one (launchers' and engines' wrappers),
and which are a traceback's scaffolding; a traceback announced by an ERROR line is followed
to its exception."""

from __future__ import annotations

import pytest

from failref.domain.matching.reading.teardown import (
    FAILURE_NEEDLES,
    exception_line,
    failure_statements,
    is_scaffold,
    is_wrapper,
    states_a_failure,
)


@pytest.mark.parametrize(
    "line",
    [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "  <NO_OTHER_FAILURES>",
        "Failures:",
        "Root Cause (first observed failure):",
        "  exitcode  : 1 (pid: 4242)",
        "[2024-01-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] "
        "failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python",
        "W0101 10:00:00.000 1 api.py:858] Sending process 4243 closing signal SIGTERM",
        "RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}",
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        "train.py FAILED",
    ],
)
def test_wrappers_are_recognised_and_state_no_failure(line: str) -> None:
    assert is_wrapper(line)
    assert not states_a_failure(line)


@pytest.mark.parametrize(
    "line",
    [
        "Traceback (most recent call last):",
        'ERROR 07-27 23:31:27 [core.py:591]   File "/x/multiproc_executor.py", line 202, in get',
        "ERROR 07-27 23:31:27 [core.py:591]     raise RuntimeError(",
        "ERROR 07-27 23:31:27 [core.py:591]              ^^^^^^^^^^^^^^^^",
        "During handling of the above exception, another exception occurred:",
        "frame #3: c10::cuda::c10_cuda_check_implementation(...) + 0x1",
        "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43",
    ],
)
def test_a_tracebacks_scaffolding_states_no_failure(line: str) -> None:
    assert is_scaffold(line)
    assert not states_a_failure(line)


@pytest.mark.parametrize(
    ("line", "states"),
    [
        pytest.param("KeyError: 'lr'", True, id="exception"),
        pytest.param("[rank1]: torch.OutOfMemoryError: CUDA out of memory.", True, id="ranked"),
        pytest.param("AssertionError", True, id="bare-exception"),
        pytest.param("Segmentation fault (core dumped)", True, id="crash"),
        pytest.param("Killed", True, id="killed"),
        pytest.param("slurmstepd: error: *** STEP 1.0 CANCELLED AT 2021 ***", True, id="unix"),
        pytest.param("x.c:1:10: fatal error: stddef.h: No such file", True, id="compiler"),
        pytest.param("NVRM: Xid (PCI:0000:9b:00): 119, pid=1, Timeout", True, id="xid"),
        pytest.param("cudaMalloc failed: out of memory", True, id="allocation"),
        pytest.param("// 2 GPUs: NCCL error", False, id="a-comment-naming-an-error"),
        pytest.param("INFO 01-01 ValueError: handled, retrying", False, id="info"),
        pytest.param("UserWarning: TypedStorage is deprecated", False, id="warning"),
        pytest.param("a retry failed, trying the next mirror", False, id="words"),
        pytest.param("step 10 loss 2.3", False, id="progress"),
    ],
)
def test_what_states_a_failure(line: str, states: bool) -> None:
    assert states_a_failure(line) is states


def test_an_error_line_announcing_a_traceback_is_told_by_its_exception() -> None:
    lines = [
        "(RayWorkerWrapper pid=5) ERROR 02-21 worker_base.py:581] Error executing method 'x'.",
        "(RayWorkerWrapper pid=5) ERROR 02-21 worker_base.py:581] Traceback (most recent call last):",
        '(RayWorkerWrapper pid=5) ERROR 02-21 worker_base.py:581]   File "w.py", line 3, in x',
        "(RayWorkerWrapper pid=5) ERROR 02-21 worker_base.py:581]     return run()",
        "(RayWorkerWrapper pid=5) ERROR 02-21 worker_base.py:581] RuntimeError: CUDA error: "
        "unspecified launch failure",
    ]
    assert exception_line(lines, 1) == 5
    assert exception_line(["KeyError: 'lr'", "step 2"], 1) is None


def test_the_first_failure_statements_come_in_line_order() -> None:
    firsts = [
        (9, [9], "RuntimeError: later"),
        (2, [2], "step 2 loss 2.0"),
        (4, [4, 6], "KeyError: 'lr'"),
        (7, [7], "Traceback (most recent call last):"),
    ]
    assert failure_statements(firsts, 1) == [(4, [4, 6], "KeyError: 'lr'")]
    assert [found[0] for found in failure_statements(firsts, 8)] == [4, 9]


def test_every_failure_statement_holds_a_needle() -> None:
    """The needles are looked for before the patterns: a line the patterns say states a
    failure must hold one, or it is never found."""
    lines = [
        "cudaMalloc failed: out of memory",
        "NVRM: Xid (PCI:0000:9b:00): 119, pid=1, Timeout",
        "x.c:1:10: fatal error: stddef.h: No such file",
        "Segmentation fault (core dumped)",
        "Killed",
        "(VllmWorkerProcess pid=1) ERROR multiproc_worker_utils.py:233] Exception in worker "
        "VllmWorkerProcess while processing method init_device: Cannot re-initialize CUDA",
        "KeyError: 'lr'",
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory.",
    ]
    for line in lines:
        assert states_a_failure(line), line
        assert any(needle in line.lower() for needle in FAILURE_NEEDLES), line
