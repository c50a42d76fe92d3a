"""What a read writes on the side, and what it reads that is not in the snapshot: the gaps
an unanswered paste leaves, the readers' counts on a reference page. Both are best effort.
A full disk or a database that does not answer costs the gap or the count, never the
answer a reader asked for; the failure is logged and `/readyz` shows it until a later
side-write succeeds."""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..store.db import STORAGE_ERRORS

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class SideStorage:
    """Whether side storage failed last, why, and since when (process-wide)."""

    reason: str = ""
    since: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def failed(self, reason: str) -> None:
        with self._lock:
            if self.since is None:
                self.since = time.time()
            self.reason = reason

    def succeeded(self) -> None:
        with self._lock:
            self.since, self.reason = None, ""

    def failing(self) -> str | None:
        """Why side-writes fail now, or None when the last one succeeded."""
        with self._lock:
            if self.since is None:
                return None
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.since))
            return f"{self.reason} (since {stamp})"


def storage_reason(error: BaseException) -> str:
    """A storage fault in words a reader of `/readyz` can act on; the driver's own text
    (which can name hosts, files and SQL) goes to the log only."""
    if "full" in fault_detail(error).lower() or getattr(error, "errno", None) == errno.ENOSPC:
        return "the disk is full"
    return "the database is busy or unavailable"


def fault_detail(error: BaseException) -> str:
    """The first line of the driver's or the system's words for a storage fault."""
    return str(getattr(error, "orig", None) or error).splitlines()[0][:300]


def best_effort(state: SideStorage, what: str, write: Callable[[], None]) -> None:
    """Run `write`; a storage fault is logged and kept in `state`, never raised."""
    try:
        write()
    except STORAGE_ERRORS as error:
        _failed(state, f"{what} not stored", error)
        return
    state.succeeded()


def read_or(state: SideStorage, what: str, read: Callable[[], T], fallback: T) -> T:
    """`read()`, or `fallback` when storage fails (logged and kept in `state`)."""
    try:
        return read()
    except STORAGE_ERRORS as error:
        _failed(state, f"{what} not read", error)
        return fallback


def _failed(state: SideStorage, what: str, error: BaseException) -> None:
    state.failed(storage_reason(error))
    log.warning("%s: %s", what, fault_detail(error))
