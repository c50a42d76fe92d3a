"""A background thread that keeps one process's catalog in step with the folder and with
the saves of other worker processes (see `Library.poll`)."""

from __future__ import annotations

import logging
import threading
import time

from app.services.library import Library

logger = logging.getLogger(__name__)


# Retention is counted in days; checking once an hour keeps it to the hour.
PRUNE_EVERY_S = 3600.0


class Watcher:
    """Polls the library every `interval_s` seconds until stopped, and prunes old gaps."""

    def __init__(self, library: Library, interval_s: float) -> None:
        self.library = library
        self.interval_s = interval_s
        self._last_prune = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failref-watcher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                if time.monotonic() - self._last_prune >= PRUNE_EVERY_S:
                    self._last_prune = time.monotonic()
                    self.library.prune_gaps()
                done = self.library.poll()
            except Exception:
                # A bad moment (a file half-written by git, a locked database) must not
                # end the thread: the next poll tries again.
                logger.exception("catching up with changes failed; retrying")
                continue
            if done:
                logger.info("catalog %s after a change made elsewhere", done)
