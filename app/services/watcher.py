"""A background thread that keeps one process's catalog in step with the folder and with
the saves of other worker processes and replicas (see `Library.poll`): every
`interval_s`, and at once when PostgreSQL announces a change (`store/changes.py`)."""

from __future__ import annotations

import logging
import threading
import time

from ..store.changes import change_listener
from .library import Library

logger = logging.getLogger(__name__)


# Retention is counted in days; checking once an hour keeps it to the hour.
PRUNE_EVERY_S = 3600.0


class Watcher:
    """Polls the library every `interval_s` seconds, or sooner when woken, until stopped;
    prunes old gaps and kept pastes. On PostgreSQL a listener wakes it for each announced change."""

    def __init__(self, library: Library, interval_s: float) -> None:
        self.library = library
        self.interval_s = interval_s
        self._last_prune = time.monotonic()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failref-watcher", daemon=True)
        self.listener = change_listener(library.engine, self.wake)

    def start(self) -> None:
        self._thread.start()
        if self.listener is not None:
            self.listener.start()

    def stop(self) -> None:
        if self.listener is not None:
            self.listener.stop()
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    def wake(self) -> None:
        """Poll now rather than at the end of the interval (many wakes make one poll)."""
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait(self.interval_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                if time.monotonic() - self._last_prune >= PRUNE_EVERY_S:
                    self._last_prune = time.monotonic()
                    self.library.prune()
                done = self.library.poll()
            except Exception:
                # A bad moment (a file half-written by git, a locked database) must not
                # end the thread: the next poll tries again.
                logger.exception("catching up with changes failed; retrying")
                continue
            if done:
                logger.info("catalog %s after a change made elsewhere", done)
