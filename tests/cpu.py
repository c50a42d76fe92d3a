"""A CPU-time deadline for tests that prove work is bounded: SIGPROF counts this process's
CPU time only (every thread), so a loaded machine does not trip it the way a wall clock
would. Budgets are set at least ten times the time measured on an idle machine."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class OverBudget(Exception):
    """More CPU time went by than the budget allows."""


@contextmanager
def cpu_deadline(seconds: float) -> Iterator[None]:
    """Raise OverBudget once this process has spent `seconds` of CPU time inside."""

    def expire(_signum: int, _frame: object) -> None:
        raise OverBudget(f"over {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
