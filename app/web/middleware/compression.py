"""gzip for text responses: Starlette's GZipMiddleware with our settings, and the reference
JSON that the fast path compresses once per version instead of once per request.

GZipMiddleware sits inside the fast path (`fast_reads.py`), whose replies it would cost
three times their time in process, and leaves alone what should stay as it is: responses
under the minimum size, 304s (no body), 206 partial content, responses already encoded,
and streams of events (`text/event-stream`). ETags stay as they are: each
names a file version (a reference's SHA-256, a static file's size and time), which both
encodings carry, and `Vary: Accept-Encoding` keeps shared caches from mixing them.
"""

from __future__ import annotations

import gzip
from functools import lru_cache

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Under about one network packet, compressing saves no round trip and costs CPU both ends.
GZIP_MINIMUM_BYTES = 1024
# zlib's default: within 0.5 % of level 9's size on the pages and JSON, for less CPU.
GZIP_LEVEL = 6
# Reference bodies kept compressed: every shipped reference, several versions over.
GZIPPED_BODIES = 1024
# What a test client asks for beside the response: the template and its context.
DEBUG_MESSAGE = "http.response.debug"
# Where the request's own `send` waits for the messages GZipMiddleware would drop.
SEND_AROUND = "failref.send_around_gzip"


def accepts_gzip(accept_encoding: str | None) -> bool:
    """True when an Accept-Encoding header offers gzip (as GZipMiddleware decides it)."""
    return accept_encoding is not None and "gzip" in accept_encoding


@lru_cache(maxsize=GZIPPED_BODIES)
def gzipped(body: bytes) -> bytes:
    """`body` gzipped; the same bytes object (a catalog document) is compressed once."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


class Compression:
    """Starlette's GZipMiddleware with our settings. It drops the messages it does not know,
    so the `http.response.debug` ones (only ever sent to a test client that asks for them)
    go around it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(
            self._inside, minimum_size=GZIP_MINIMUM_BYTES, compresslevel=GZIP_LEVEL
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope[SEND_AROUND] = send
        await self.gzip(scope, receive, send)

    async def _inside(self, scope: Scope, receive: Receive, send: Send) -> None:
        around: Send = scope[SEND_AROUND]

        async def send_or_around(message: Message) -> None:
            await (around if message["type"] == DEBUG_MESSAGE else send)(message)

        await self.app(scope, receive, send_or_around)
