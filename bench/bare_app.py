"""The baseline of bench_api.py: an ASGI app that answers every request with one JSON body."""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

BODY = b'{"status":"ok"}'


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """Answer a constant JSON body; no routing, no validation, no I/O."""
    if scope["type"] != "http":
        return
    headers = [(b"content-type", b"application/json"), (b"content-length", b"15")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": BODY})
