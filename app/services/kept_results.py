"""Results with links: a pasted log or traceback is kept, redacted, so that its result has
an address (`/results/<token>`) that can be reloaded, bookmarked and shared for
`result_retention_days`.

Redacting takes about half a second a megabyte, so a paste is redacted and stored by a
thread of its own, never in the request: the paste's answer is a redirect at once. Until
the kept copy is read back, the one who pasted sees the result from this worker's memory,
as worked out from the paste as sent: a secret in a cookie scoped to the result's path says
who that is. Everyone else, and the paster once the memory entry is gone, sees the result
worked out again from the kept, redacted text. Best effort like every side-write: a full
queue or a storage fault costs the link, never the answer (logged; `/readyz` shows a
fault)."""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial

from ..config import Settings
from ..domain.matching.reading.context import RunContext
from ..domain.matching.reading.lines import count_lines
from ..domain.redact import redact, redacted_pieces
from ..store.db import Engine, writing
from ..store.kept import KeptPaste, keep_paste, prune_kept, read_kept
from ..store.models import utc_now
from .outcome import Outcome
from .side_storage import SideStorage, best_effort, read_or

logger = logging.getLogger(__name__)

TOKEN_BYTES = 16  # 22 URL-safe characters: not guessed, not enumerated
# How long the paster's own result stays in memory, and the life of their cookie.
FRESH_S = 600.0
# Text held in memory at most, for results just made and pastes waiting to be stored;
# past it, the oldest fresh results are forgotten and new pastes are not kept.
FRESH_CHARS = 48_000_000
WAITING_CHARS = 64_000_000
CLOSE_WAIT_S = 10.0
# How long closing then waits for the thread to put down what it holds (a piece of
# redaction, or a write under way).
STOP_WAIT_S = 30.0
# A paste waits this long before its redaction starts: the paster's browser asks for the
# result at once, and its page renders faster without a redaction sharing the interpreter.
SETTLE_S = 1.0


@dataclass(frozen=True, slots=True)
class Fresh:
    """A result just made, for the one who pasted it: the paste as sent and its outcome,
    worked out on the catalog of `generation`."""

    token: str
    owner: str
    text: str
    context: dict[str, str]
    outcome: Outcome
    generation: int
    created_at: dt.datetime
    made: float  # time.monotonic() then, for ageing


@dataclass(frozen=True, slots=True)
class Waiting:
    """A paste on its way to storage, not redacted yet."""

    token: str
    text: str
    context: dict[str, str]
    created_at: dt.datetime
    queued: float  # time.monotonic() then


class KeptResults:
    """Pastes kept for their links: written by one thread, read back by token; the
    results just made, for their pasters, in memory."""

    def __init__(self, engine: Engine, settings: Settings, state: SideStorage) -> None:
        self.engine = engine
        self.settings = settings
        self.state = state
        self._changed = threading.Condition()
        self._fresh: OrderedDict[str, Fresh] = OrderedDict()
        self._waiting: list[Waiting] = []
        self._in_hand: Waiting | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    @property
    def on(self) -> bool:
        """Whether pastes are kept here (never on a read-only mirror)."""
        return self.settings.keep_results and not self.settings.read_only

    @property
    def retention(self) -> dt.timedelta:
        return dt.timedelta(days=self.settings.result_retention_days)

    def keep(
        self, text: str, context: dict[str, str], outcome: Outcome, generation: int
    ) -> Fresh | None:
        """Queue a paste for storage and remember its result for its paster; None when it
        is not kept (keeping is off, or too much is waiting already)."""
        if not self.on:
            return None
        fresh = Fresh(
            token=secrets.token_urlsafe(TOKEN_BYTES),
            owner=secrets.token_urlsafe(TOKEN_BYTES),
            text=text,
            context=context,
            outcome=outcome,
            generation=generation,
            created_at=utc_now(),
            made=time.monotonic(),
        )
        waiting = Waiting(fresh.token, text, context, fresh.created_at, fresh.made)
        return fresh if self._queue(waiting, fresh) else None

    def keep_for_link(self, text: str, context: dict[str, str]) -> Waiting | None:
        """Queue a paste for storage only, for a link a script hands to a person (the JSON
        API's `keep`): nothing is remembered for a paster. None when it is not kept."""
        if not self.on:
            return None
        token = secrets.token_urlsafe(TOKEN_BYTES)
        waiting = Waiting(token, text, context, utc_now(), time.monotonic())
        return waiting if self._queue(waiting, None) else None

    def _queue(self, waiting: Waiting, fresh: Fresh | None) -> bool:
        with self._changed:
            if self._closed or self._waiting_chars() + len(waiting.text) > WAITING_CHARS:
                logger.warning("a paste was not kept: %d characters wait already", WAITING_CHARS)
                return False
            self._waiting.append(waiting)
            if fresh is not None:
                self._fresh[fresh.token] = fresh
                self._forget_stale()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="keep-pastes", daemon=True)
                self._thread.start()
            self._changed.notify_all()
        return True

    def fresh(self, token: str, owner: str | None) -> Fresh | None:
        """The result just made under `token`, for the one holding its owner secret."""
        with self._changed:
            self._forget_stale()
            found = self._fresh.get(token)
        if found is None or owner is None or not hmac.compare_digest(found.owner, owner):
            return None
        return found

    def pending(self, token: str) -> bool:
        """Whether `token`'s paste is still on its way to storage in this process."""
        with self._changed:
            waiting = [item.token for item in self._waiting]
            in_hand = self._in_hand.token if self._in_hand else None
        return token in waiting or token == in_hand

    def read(self, token: str) -> KeptPaste | None:
        """The kept, redacted paste under `token`; None when there is none (never kept,
        past its retention, or storage does not answer: logged, shown on `/readyz`). A
        read-only mirror reads what its writers kept."""
        if not self.settings.keep_results:
            return None
        return read_or(
            self.state, "a kept paste", lambda: read_kept(self.engine, token, self.retention), None
        )

    def prune(self) -> int:
        """Delete kept pastes past their retention or over the budget; at start-up and
        hourly (and after each paste stored)."""
        budget = self.settings.kept_results_mb * 1_000_000
        with writing(self.engine) as session:
            return prune_kept(session, self.retention, budget)

    def flush(self, timeout: float) -> bool:
        """Whether every paste queued so far was stored (or lost to a fault) within
        `timeout` s; for closing and for tests."""
        with self._changed:
            return self._changed.wait_for(
                lambda: not self._waiting and self._in_hand is None, timeout
            )

    def close(self) -> None:
        """Store what is queued (waiting up to CLOSE_WAIT_S), then stop the thread and wait
        for it, so that nothing touches the database once the library disposes of it: a
        paste still being redacted then is dropped between two pieces (logged)."""
        if not self.flush(CLOSE_WAIT_S):
            logger.warning("closing with pastes not yet kept")
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(STOP_WAIT_S)

    def _waiting_chars(self) -> int:
        in_hand = len(self._in_hand.text) if self._in_hand else 0
        return in_hand + sum(len(item.text) for item in self._waiting)

    def _forget_stale(self) -> None:
        """Drop fresh results past FRESH_S, then the oldest past FRESH_CHARS (under the lock)."""
        now = time.monotonic()
        held = sum(len(item.text) for item in self._fresh.values())
        while self._fresh:
            oldest = next(iter(self._fresh.values()))
            if now - oldest.made < FRESH_S and held <= FRESH_CHARS:
                return
            held -= len(oldest.text)
            del self._fresh[oldest.token]

    def _run(self) -> None:
        while (item := self._next()) is not None:
            try:
                best_effort(self.state, "a kept paste", partial(self._store, item))
            except Exception:  # a bug here must not stop the next paste's keeping
                logger.exception("keeping a paste failed")
            finally:
                with self._changed:
                    self._in_hand = None
                    self._changed.notify_all()

    def _next(self) -> Waiting | None:
        with self._changed:
            self._changed.wait_for(lambda: bool(self._waiting) or self._closed)
            if not self._waiting:
                return None
            self._in_hand = self._waiting.pop(0)
            settled = self._in_hand.queued + SETTLE_S - time.monotonic()
            if settled > 0:
                self._changed.wait_for(lambda: self._closed, settled)
            return self._in_hand

    def _store(self, item: Waiting) -> None:
        pieces = []
        for piece in redacted_pieces(item.text):
            if self._closed:
                logger.warning("closing: a paste being redacted was not kept")
                return
            pieces.append(piece)
        text = "".join(pieces)
        context = {name: redact(value) for name, value in item.context.items()}
        paste = KeptPaste(item.token, text, context, count_lines(text), item.created_at)
        keep_paste(self.engine, paste)
        self.prune()


def expires_on(created_at: dt.datetime, retention: dt.timedelta) -> dt.date:
    """The day a paste kept at `created_at` is deleted."""
    return (created_at + retention).date()


def typed_context(context: RunContext | None) -> dict[str, str]:
    """The run-context fields a results page's form shows, as text, from the API's context
    (other keys are not kept)."""
    if context is None:
        return {}
    given = context.model_dump(exclude_none=True)
    return {name: str(given[name]) for name in RunContext.model_fields if name in given}
