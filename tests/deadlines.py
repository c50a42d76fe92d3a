"""Deadlines for tests: a CPU-time budget for tests that prove work is bounded (SIGPROF
counts this process's CPU time only, so a loaded machine does not trip it the way a wall
clock would; budgets are ten times and more what the work takes on an idle machine), and
a wall-clock hang guard that only tells a hang (no answer at all) from an answer."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager


class OverBudget(Exception):
    """More CPU time went by than the budget allows."""


@contextmanager
def _alarm(timer: int, signum: int, seconds: float, error: Exception) -> Iterator[None]:
    def expire(_signum: int, _frame: object) -> None:
        raise error

    previous = signal.signal(signum, expire)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)


def cpu_deadline(seconds: float) -> AbstractContextManager[None]:
    """Raise OverBudget once this process has spent `seconds` of CPU time inside."""
    return _alarm(
        signal.ITIMER_PROF, signal.SIGPROF, seconds, OverBudget(f"over {seconds} s of CPU time")
    )


def hang_guard(seconds: float) -> AbstractContextManager[None]:
    """Raise TimeoutError when no answer came within `seconds` (a hang, not slowness)."""
    message = f"no answer within {seconds} s: the request hangs"
    return _alarm(signal.ITIMER_REAL, signal.SIGALRM, seconds, TimeoutError(message))
