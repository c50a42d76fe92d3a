"""Static files with a Cache-Control header, beside the ETag and Last-Modified they carry.

Our files (style.css, app.js, ...) keep one URL across releases, so a browser must ask
each time whether its copy is current (`no-cache`): with the ETag the answer is a bodyless
304, and a new release's CSS and JavaScript, which go with its markup, take effect on the
next page load. Without the header a browser guesses a freshness from the file's age and
may keep an old style.css for days.
"""

from __future__ import annotations

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

# Keep a copy, revalidate it on every use.
REVALIDATE = "no-cache"


class CachedStaticFiles(StaticFiles):
    """StaticFiles whose answers (200, 206 and 304) say how long to keep them."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["cache-control"] = REVALIDATE
        return response
