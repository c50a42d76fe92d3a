"""The app factory: `create_app(settings)` wires routes, static files, errors and start-up."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from ..config import Settings, package_version
from ..mcp.tools import build_mcp_server
from ..services.library import open_library
from ..services.watcher import Watcher
from ..urls import MCP_PATH, STATIC_PATH
from .errors import install_error_handlers
from .mcp_endpoint import StreamableHTTPEndpoint, app_library
from .middleware.body_limit import BodyLimit
from .middleware.compression import Compression
from .middleware.fast_reads import ReferenceReads
from .middleware.security_headers import SecurityHeaders
from .middleware.unexpected import Unexpected
from .ratelimit import RateLimiter
from .routes import admin, api, api_editing, docs, editor, gaps, health, pages, results
from .routes.openapi import TAGS, published_document
from .static_files import CachedStaticFiles

logger = logging.getLogger(__name__)

DESCRIPTION = (
    "Match a GPU training or inference log against references of known performance "
    "failures. A matching message never confirms a cause: each reference lists the "
    "evidence checks that do."
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the database is opened and the references loaded at start-up."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        library = await run_in_threadpool(open_library, settings)
        app.state.library = library
        watcher = Watcher(library, settings.reload_interval_s)
        if settings.reload_interval_s > 0:
            watcher.start()
        try:
            async with mcp_endpoint.running():
                yield
        finally:
            if settings.reload_interval_s > 0:
                watcher.stop()
            library.close()

    app = FastAPI(
        title="failref",
        description=DESCRIPTION,
        version=package_version(),
        lifespan=lifespan,
        openapi_tags=TAGS,
        docs_url=None,  # our own page, routes/docs.py: the site's style, no script from afar
        redoc_url=None,
    )
    app.state.settings = settings
    app.openapi = partial(published_document, app)  # type: ignore[method-assign]
    # Each worker keeps its own buckets: its share of the budget, so N workers together
    # give a client what the setting says, not N times it.
    per_worker = max(1, settings.rate_limit_per_minute // settings.workers)
    app.state.rate_limiter = RateLimiter(per_worker, burst=max(1, per_worker // 4))
    mcp_server = build_mcp_server(app_library(app))
    app.state.mcp_server = mcp_server  # the API page lists its tools
    mcp_endpoint = StreamableHTTPEndpoint(mcp_server, settings.max_body_bytes)
    app.router.routes.append(Route(MCP_PATH, mcp_endpoint, include_in_schema=False))
    app.mount(STATIC_PATH, CachedStaticFiles(directory=settings.static_dir), name="static")
    app.include_router(health.router)
    app.include_router(docs.router)
    app.include_router(api.router)
    app.include_router(api_editing.router)
    app.include_router(api.json_router)
    app.include_router(pages.router)
    app.include_router(results.router)
    app.include_router(editor.router)
    app.include_router(gaps.router)
    app.include_router(admin.router)
    install_error_handlers(app)
    # Innermost: it compresses what the app answers. The fast path, outside it, gzips its
    # replies once per version and skips GZipMiddleware's per-request work (3x its cost).
    app.add_middleware(Compression)
    app.add_middleware(ReferenceReads)  # CORS and headers still apply to its replies
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )
    app.add_middleware(
        BodyLimit,
        max_body_bytes=settings.max_body_bytes,
        max_log_lines=settings.max_log_lines,
        large_bodies=settings.large_bodies,
    )
    app.add_middleware(Unexpected)  # inside the headers, so a 500 carries them too
    app.add_middleware(SecurityHeaders)
    return app
