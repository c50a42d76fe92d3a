"""Refuse request bodies over the configured size without buffering them (413)."""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import PayloadTooLarge
from ..errors import failure_response


class BodyLimit:
    """Pure ASGI middleware: a declared Content-Length over the limit is refused before any
    byte is read; a body without one (chunked) is counted as it streams and refused as soon
    as it passes the limit."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_log_lines: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_log_lines = max_log_lines

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
        await _Guarded(self, scope, receive, send).run()

    def _message(self) -> str:
        return (
            f"the body is over the {self.max_body_bytes}-byte limit (a pasted log fits "
            f"up to {self.max_log_lines:,} lines)"
        )

    async def refuse(self, scope: Scope, send: Send) -> None:
        """Answer 413 through the error renderer (JSON where `wants_json` says so)."""
        response = failure_response(Request(scope), PayloadTooLarge(self._message()))
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

    async def run(self) -> None:
        try:
            await self.limit.app(self.scope, self.counted_receive, self.guarded_send)
        except ClientDisconnect:
            if not self.refused:
                raise
            # The app read a body this middleware cut off; the client has its 413 already.

    async def counted_receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self.receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit.max_body_bytes:
                self.refused = True
                await self.limit.refuse(self.scope, self.send)
                return {"type": "http.disconnect"}
            self.body_read = not message.get("more_body", False)
        return message

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
