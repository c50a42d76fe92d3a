"""Unanswered queries on their way to the gaps table, written off the request path.

A request redacts and templates what it leaves (in its own thread, outside any lock) and
hands the templates over; one daemon thread writes them, many requests' worth in one
transaction, so an answer never waits for the database's write lock and a save never
queues behind a crowd of unanswered pastes. Best effort like every side-write: a full
queue or a storage fault costs gaps, never an answer (logged; `/readyz` shows a fault).
Closing the library writes what is still queued."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from functools import partial

from ..config import Settings
from ..store.db import Engine
from ..store.gaps import Template, gap_template, store_templates
from .side_storage import SideStorage, best_effort

logger = logging.getLogger(__name__)

# Templates waiting at most (each under 8 KB): past it, new ones are dropped, not waited on.
MAX_QUEUED = 2_000
# Templates written in one transaction at most.
BATCH = 500
# A drop is logged at most this often, with the count since the last such line.
DROP_LOG_EVERY_S = 60.0
# How long closing waits for the queue to be written.
CLOSE_WAIT_S = 10.0
# After each batch the writer rests at least REST_S, and REST_SHARE times as long as the
# batch took: a save waiting for the write lock gets it between batches (SQLite's busy
# handler polls, so a writer that takes the lock again at once would starve it).
REST_S = 0.25
REST_SHARE = 3
# A batch that waited out the busy timeout does not make the queue wait three times that.
MAX_REST_S = 5.0


class GapQueue:
    """Templates queued by requests, written by one thread in batches."""

    def __init__(self, engine: Engine, settings: Settings, state: SideStorage) -> None:
        self.engine = engine
        self.settings = settings
        self.state = state
        self._changed = threading.Condition()
        self._queued: list[Template] = []
        self._done = 0  # templates written (or lost to a fault), in all
        self._put = 0  # templates queued, in all
        self._dropped = 0
        self._dropped_logged_at: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def remember(self, texts: Sequence[str], context: str = "") -> None:
        """Queue the first line of each text, redacted and templated, when storing is on
        (never on a read-only mirror); returns at once."""
        if not texts or not self.settings.store_queries or self.settings.read_only:
            return
        found = [
            template for text in texts if (template := gap_template(text, context)) is not None
        ]
        if not found:
            return
        with self._changed:
            if self._closed:
                return
            room = MAX_QUEUED - len(self._queued)
            self._queued += found[:room]
            self._put += min(room, len(found))
            if room < len(found):
                self._drop(len(found) - room)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="write-gaps", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def flush(self, timeout: float) -> bool:
        """Whether everything queued so far was written (or lost to a fault) within
        `timeout` s; for the gaps page and for tests."""
        with self._changed:
            target = self._put
            return self._changed.wait_for(lambda: self._done >= target, timeout)

    def close(self) -> None:
        """Write what is queued (waiting up to CLOSE_WAIT_S), then stop the thread."""
        if not self.flush(CLOSE_WAIT_S):
            logger.warning("closing with unanswered queries not yet stored")
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def _drop(self, count: int) -> None:
        self._dropped += count
        now = time.monotonic()
        last = self._dropped_logged_at
        if last is None or now - last >= DROP_LOG_EVERY_S:
            logger.warning(
                "%d unanswered queries not stored: %d are waiting already",
                self._dropped,
                MAX_QUEUED,
            )
            self._dropped, self._dropped_logged_at = 0, now

    def _run(self) -> None:
        while batch := self._next_batch():
            started = time.monotonic()
            try:
                write = partial(store_templates, self.engine, batch)
                best_effort(self.state, "unanswered queries", write)
            except Exception:  # a bug here must not stop the next batch's writing
                logger.exception("storing unanswered queries failed")
            finally:
                with self._changed:
                    self._done += len(batch)
                    self._changed.notify_all()
                    took = time.monotonic() - started
                    rest = min(MAX_REST_S, max(REST_S, REST_SHARE * took))
                    self._changed.wait_for(lambda: self._closed, rest)

    def _next_batch(self) -> list[Template]:
        """The next templates to write, once there are some; none once closed and empty."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._queued) or self._closed)
            batch, self._queued = self._queued[:BATCH], self._queued[BATCH:]
            return batch
