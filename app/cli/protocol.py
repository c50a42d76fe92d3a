"""uvicorn's httptools protocol with the deadlines uvicorn lacks: a connection must start a
request within `header_timeout_s`, a request's headers must arrive within
`header_timeout_s` of its first byte, and its body within `body_timeout_s` of the headers.
A client that trickles a byte every few seconds is cut off instead of holding a
connection, a file descriptor and a worker's attention for ever (an idle kept-alive
connection is closed by uvicorn's own `timeout_keep_alive`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..config import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HEADER_TIMEOUT_S

logger = logging.getLogger(__name__)


class TimedHttpToolsProtocol(HttpToolsProtocol):
    """HttpToolsProtocol, with a deadline for the headers and one for the body."""

    header_timeout_s = DEFAULT_HEADER_TIMEOUT_S
    body_timeout_s = DEFAULT_BODY_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s, "headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.body_timeout_s, "body")

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(self.header_timeout_s, "headers")

    def _arm(self, seconds: float, waiting_for: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire, waiting_for)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, waiting_for: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        logger.warning("closing a connection whose %s did not arrive in time", waiting_for)
        if self.cycle is not None and not self.cycle.response_started:
            self.cycle.disconnected = True  # the app sees the client gone, answers nothing
        self.transport.close()


def timed_protocol(header_timeout_s: float, body_timeout_s: float) -> type[HttpToolsProtocol]:
    """The protocol class uvicorn instantiates per connection, with these deadlines."""
    deadlines = {"header_timeout_s": header_timeout_s, "body_timeout_s": body_timeout_s}
    return type("TimedHttpToolsProtocol", (TimedHttpToolsProtocol,), deadlines)
