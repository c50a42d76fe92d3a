"""The MCP tools over streamable HTTP at /mcp, inside the web app: same per-client budget
as the other routes, same error shape."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ..errors import FailrefError, MethodNotAllowed, Unavailable, UnsupportedMediaType
from ..mcp.tools import LibraryProvider
from ..services.library import Library
from ..urls import MCP_PATH
from .bodies import media_type
from .errors import failure_response
from .ratelimit import spend_budget

# The tools only read public references, as /api/v1 does with no Host check; pinning hosts
# (the SDK's default on 127.0.0.1) would refuse every deployment not reached as localhost.
TRANSPORT_SECURITY = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def app_library(app: Starlette) -> LibraryProvider:
    """A provider of the library the web app's lifespan opened (`app.state.library`)."""

    def library() -> Library:
        opened: Library = app.state.library
        return opened

    return library


class StreamableHTTPEndpoint:
    """ASGI endpoint serving an MCP server over streamable HTTP; `running()` belongs in the
    app's lifespan, which the session manager's task group must live inside."""

    def __init__(self, server: MCPServer, max_body_bytes: int) -> None:
        self.server = server
        self.max_body_bytes = max_body_bytes
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run a fresh session manager (one runs only once) for as long as the app runs."""
        # Stateless JSON: the tools need no session, and any worker can answer any request.
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            max_request_body_size=self.max_body_bytes,
            transport_security=TRANSPORT_SECURITY,
        )
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            if request.method != "POST":
                # The transport is stateless: there is no stream for a GET to open, and the
                # specification lets a server answer 405 rather than hold one open forever.
                raise MethodNotAllowed("the MCP endpoint takes POST requests only")
            if media_type(request.headers) != "application/json":
                # Else the SDK's transport guard answers a plain-text 400.
                raise UnsupportedMediaType("send the JSON-RPC message as application/json")
            spend_budget(request)  # a tool call spends the client's budget, as a paste does
            if self._manager is None:
                raise Unavailable("the MCP server is not running")
        except FailrefError as error:
            response = failure_response(request, error)
            if isinstance(error, MethodNotAllowed):
                response.headers["allow"] = "POST"
            await response(scope, receive, send)
            return
        await self._manager.handle_request(scope, receive, send)
