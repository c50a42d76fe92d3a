"""The last word on an unexpected exception: a 500 in the error contract, logged, sent
inside the other middleware (so it carries the security headers) and without dropping the
connection. Starlette's own handler for `Exception` answers outside every middleware."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import error_response

logger = logging.getLogger(__name__)
MESSAGE = "Something went wrong on our side; it has been logged."


class Unexpected:
    """Pure ASGI middleware: an exception before the answer started becomes a 500 answer;
    one after it started (nothing can be sent cleanly any more) goes on up."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            request = Request(scope)
            logger.exception("unhandled error on %s %s", request.method, request.url.path)
            if started:
                raise
            await error_response(request, 500, MESSAGE)(scope, receive, send)
