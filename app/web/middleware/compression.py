"""gzip for text responses: the settings of Starlette's GZipMiddleware, and the reference
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

# Under about one network packet, compressing saves no round trip and costs CPU both ends.
GZIP_MINIMUM_BYTES = 1024
# zlib's default: within 0.5 % of level 9's size on the pages and JSON, for less CPU.
GZIP_LEVEL = 6
# Reference bodies kept compressed: every shipped reference, several versions over.
GZIPPED_BODIES = 1024


def accepts_gzip(accept_encoding: str | None) -> bool:
    """True when an Accept-Encoding header offers gzip (as GZipMiddleware decides it)."""
    return accept_encoding is not None and "gzip" in accept_encoding


@lru_cache(maxsize=GZIPPED_BODIES)
def gzipped(body: bytes) -> bytes:
    """`body` gzipped; the same bytes object (a catalog document) is compressed once."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
