"""Working out a new index's views in a thread of its own (`index.warm`): a load or a save
answers as soon as its catalog is swapped in, and the queries after it do not each pay for
the views they read first."""

from __future__ import annotations

import logging
import threading

from ..domain.matching.index.match_index import MatchIndex, warm

logger = logging.getLogger(__name__)


class Warmer:
    """One daemon thread warming the newest index it was handed: an index replaced before
    its turn came is never warmed (its queries work out what they read, as before)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._next: MatchIndex | None = None
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def hand(self, index: MatchIndex) -> None:
        """Warm this index next, in place of any still waiting."""
        with self._changed:
            if self._closed:
                return
            self._next = index
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="warm-index", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def wait(self, timeout: float) -> bool:
        """Whether every index handed in was warmed or passed over within `timeout` s."""
        with self._changed:
            return self._changed.wait_for(lambda: self._next is None and not self._busy, timeout)

    def close(self) -> None:
        """Stop the thread once it is done with the index it is warming, if any."""
        with self._changed:
            self._closed, self._next = True, None
            self._changed.notify_all()

    def _run(self) -> None:
        while (index := self._taken()) is not None:
            try:
                warm(index)
            except Exception:  # a bug here must not stop the next index's warming
                logger.exception("working out the index's views failed")
            finally:
                del index  # not kept alive while the thread waits for the next
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _taken(self) -> MatchIndex | None:
        """The next index to warm, once there is one; None once closed."""
        with self._changed:
            self._changed.wait_for(lambda: self._next is not None or self._closed)
            index, self._next = self._next, None
            self._busy = index is not None
            return index
