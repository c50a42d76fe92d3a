"""Refuse request bodies over the configured size without buffering them (413), and let
only a few large ones be processed at once (503 with Retry-After past a wait)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import Busy, FailrefError, PayloadTooLarge
from ..errors import failure_response

# A body over this is a large paste: reading, decoding, splitting and scanning it holds
# about six times its size (a 17 MB paste, ~110 MB) until the answer is sent.
LARGE_BODY_BYTES = 1_000_000
# How long a large body waits for a slot before it is refused; a slot frees in seconds.
LARGE_BODY_WAIT_S = 20.0
# What a refused large body is told: when to try again.
LARGE_BODY_RETRY_S = 10


class BodyLimit:
    """Pure ASGI middleware: a declared Content-Length over the limit is refused before any
    byte is read; a body without one (chunked) is counted as it streams and refused as soon
    as it passes the limit. At most `large_bodies` bodies over LARGE_BODY_BYTES are
    processed at once; another waits, unread, for up to `large_wait_s`, then gets 503."""

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        max_log_lines: int,
        large_bodies: int,
        large_wait_s: float = LARGE_BODY_WAIT_S,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_log_lines = max_log_lines
        self.large_bodies = large_bodies
        self.large_wait_s = large_wait_s
        self._slots_loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(large_bodies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await self.refuse(scope, send)
            return
        if declared == 0 or (declared is None and not _chunked(scope)):
            await self.app(scope, receive, send)  # no body to count (most GETs)
            return
        await _Guarded(self, scope, receive, send).run(declared)

    def _message(self) -> str:
        return (
            f"the body is over the {self.max_body_bytes}-byte limit (a pasted log fits "
            f"up to {self.max_log_lines:,} lines)"
        )

    async def take_slot(self) -> bool:
        """A slot for one large body, waiting up to `large_wait_s`; False when none freed."""
        loop = asyncio.get_running_loop()
        if self._slots_loop is not loop:  # a test client runs each app in a loop of its own
            self._slots_loop, self._slots = loop, asyncio.Semaphore(self.large_bodies)
        try:
            await asyncio.wait_for(self._slots.acquire(), self.large_wait_s)
        except TimeoutError:
            return False
        return True

    def give_slot(self) -> None:
        self._slots.release()

    async def refuse(self, scope: Scope, send: Send) -> None:
        """Answer 413 through the error renderer (JSON where `wants_json` says so)."""
        await self._refuse_with(scope, send, PayloadTooLarge(self._message()))

    async def refuse_busy(self, scope: Scope, send: Send) -> None:
        """Answer 503 with Retry-After: the large bodies in progress fill every slot."""
        busy = Busy(
            f"the server is busy with {self.large_bodies} other large pastes; try again in "
            f"{LARGE_BODY_RETRY_S} s (a paste under {LARGE_BODY_BYTES:,} bytes never waits)",
            LARGE_BODY_RETRY_S,
        )
        await self._refuse_with(scope, send, busy)

    async def _refuse_with(self, scope: Scope, send: Send, error: FailrefError) -> None:
        response = failure_response(Request(scope), error)
        # The rest of the body is never read: closing stops the client sending it
        # (kept alive, the server would read and discard every remaining byte).
        response.headers["connection"] = "close"
        await response(scope, _nothing_more, send)


class _Guarded:
    """One request whose streamed body is counted; past the limit the client gets 413 at
    once, the app sees a disconnect, and whatever the app still sends is dropped. An answer
    sent before the body was read to its end (401, 415, a GET ignoring a body) closes the
    connection, or the server would read and discard the rest, however large."""

    def __init__(self, limit: BodyLimit, scope: Scope, receive: Receive, send: Send) -> None:
        self.limit = limit
        self.scope = scope
        self.receive = receive
        self.send = send
        self.seen = 0
        self.refused = False
        self.body_read = not _has_body(scope)
        self.has_slot = False

    async def run(self, declared: int | None) -> None:
        if declared is not None and declared > LARGE_BODY_BYTES:
            if not await self.limit.take_slot():
                await self.limit.refuse_busy(self.scope, self.send)
                return
            self.has_slot = True
        try:
            await self.limit.app(self.scope, self.counted_receive, self.guarded_send)
        except ClientDisconnect:
            if not self.refused:
                raise
            # The app read a body this middleware cut off; the client has its answer already.
        finally:
            if self.has_slot:
                self.limit.give_slot()

    async def counted_receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self.receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit.max_body_bytes:
                return await self._refuse(self.limit.refuse)
            if self.seen > LARGE_BODY_BYTES and not self.has_slot:  # a chunked body grew
                if not await self.limit.take_slot():
                    return await self._refuse(self.limit.refuse_busy)
                self.has_slot = True
            self.body_read = not message.get("more_body", False)
        return message

    async def _refuse(self, refusal: Callable[[Scope, Send], Awaitable[None]]) -> Message:
        self.refused = True
        await refusal(self.scope, self.send)
        return {"type": "http.disconnect"}

    async def guarded_send(self, message: Message) -> None:
        if self.refused:
            return
        if message["type"] == "http.response.start" and not self.body_read:
            headers = [(n, v) for n, v in message.get("headers", []) if n != b"connection"]
            message["headers"] = [*headers, (b"connection", b"close")]
        await self.send(message)


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
            return True
    return False


def _chunked(scope: Scope) -> bool:
    return any(
        name == b"transfer-encoding" and b"chunked" in value.lower()
        for name, value in scope["headers"]
    )


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _nothing_more() -> Message:
    """The `receive` of a refusal, which reads nothing more of the request."""
    return {"type": "http.disconnect"}
