"""The API page (/docs): the JSON API and the MCP tools described for people, in the site's
style, from the OpenAPI document and the MCP server's own list of tools."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from mcp.server.mcpserver import MCPServer

from ...domain.catalog import Catalog
from ...urls import MCP_PATH
from ..templating import page, page_path
from ..views.api_reference import error_example, operation_groups, tool
from .api import EXAMPLE_REFERENCE

router = APIRouter(include_in_schema=False)


@router.get("/docs", response_class=HTMLResponse, name="api_docs")
async def api_docs(request: Request) -> HTMLResponse:
    """The JSON API's operations and the MCP tools, with their arguments."""
    base_url = str(request.base_url).rstrip("/")
    server: MCPServer = request.app.state.mcp_server
    tools = [
        tool(found.name, found.title, found.description, found.input_schema)
        for found in await server.list_tools()
    ]
    openapi_url = page_path(request, "openapi")
    wrong_body, error_answer = error_example()
    return page(
        request,
        "api_docs.html",
        section="api",
        groups=operation_groups(
            request.app.openapi(),
            base_url,
            request.scope.get("root_path", ""),
            {"reference_id": example_reference(request.app.state.library.catalog)},
        ),
        tools=tools,
        wrong_body=wrong_body,
        error_answer=error_answer,
        base_url=base_url,
        mcp_url=base_url + MCP_PATH,
        openapi_url=openapi_url,
        json_twin=openapi_url,
    )


def example_reference(catalog: Catalog) -> str:
    """The reference the page's example links open: the documented example when this site
    serves it (or serves none), else the first it serves."""
    if not catalog.references or EXAMPLE_REFERENCE in catalog.references:
        return EXAMPLE_REFERENCE
    return min(catalog.references)
