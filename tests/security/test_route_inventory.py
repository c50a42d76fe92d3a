"""Item 7: every route that accepts POST, PUT, PATCH or DELETE requires an editor, except an
explicit allow-list where each entry says why it may be anonymous."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from mcp import Client

from failref.config import Settings
from failref.mcp.tools import build_mcp_server
from failref.urls import MCP_PATH
from failref.web.factory import create_app
from failref.web.guards import require_editor

MUTATING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# (method, path) -> why it needs no editor. Adding a route here needs a reason a reviewer
# accepts; a route missing from here and from the editor dependency fails the test.
ANONYMOUS_ALLOWED = {
    ("POST", "/"): "the paste box: a read-only match; only a redacted gap may be stored",
    ("POST", "/api/v1/match"): "read-only computation (a redacted gap may be stored)",
    ("POST", "/api/v1/scan"): "read-only computation over the posted log",
    ("POST", "/api/v1/calculators/{name}"): "read-only computation over the posted inputs",
    ("POST", "/login"): "authenticates: trades a token for a session",
    ("POST", "/r/{reference_id}/feedback"): (
        "a reader's yes/no on a reference: same-origin only, rate limited; the only text it "
        "stores is a confident card's line after a no, redacted as a gap, as a paste would be"
    ),
    ("POST", "/r/{reference_id}/outcome"): (
        "a reader's 'this was it' for one cause: same-origin only, rate limited, stores no text"
    ),
    ("*", MCP_PATH): "MCP tools, every one annotated read-only (checked below)",
}


def app_for_inventory(tmp_path: Any) -> FastAPI:
    return create_app(Settings(database_url=f"sqlite:///{tmp_path / 'unused.db'}"))


def requires(dependant: Dependant, target: Any) -> bool:
    """True when `target` is anywhere in the dependency tree of `dependant`."""
    if dependant.call is target:
        return True
    return any(requires(sub, target) for sub in dependant.dependencies)


def routes(app: FastAPI) -> Iterator[tuple[str, str, Dependant | None]]:
    """(method, path, dependant) of every route; methods "*" for a raw ASGI endpoint."""
    for context in iter_route_contexts(app.routes):
        path = context.path or ""
        methods = context.methods
        dependant = getattr(context, "dependant", None)
        if methods is None:
            if path.startswith("/static"):
                continue  # StaticFiles answers GET and HEAD only
            yield "*", path, None
            continue
        for method in sorted(methods):
            yield method, path, dependant


def test_every_mutating_route_requires_an_editor_or_says_why_not(tmp_path: Any) -> None:
    app = app_for_inventory(tmp_path)
    unguarded: list[str] = []
    seen: set[tuple[str, str]] = set()
    guarded = 0
    for method, path, dependant in routes(app):
        if method != "*" and method not in MUTATING_METHODS:
            continue
        seen.add((method, path))
        if dependant is not None and requires(dependant, require_editor):
            guarded += 1
        elif (method, path) not in ANONYMOUS_ALLOWED:
            unguarded.append(f"{method} {path}")
    assert unguarded == [], "mutating routes without the editor dependency"
    assert set(ANONYMOUS_ALLOWED) <= seen, "stale allow-list entries"
    assert guarded >= 5  # edit, new, restore, logout, PUT


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/r/{reference_id}/edit", "POST"),
        ("/new", "POST"),
        ("/r/{reference_id}/restore/{revision_id}", "POST"),
        ("/logout", "POST"),
        ("/api/v1/references/{reference_id}", "PUT"),
        ("/r/{reference_id}/edit", "GET"),
        ("/new", "GET"),
        ("/r/{reference_id}/history", "GET"),
        ("/r/{reference_id}/history/{revision_id}", "GET"),
        ("/admin/gaps", "GET"),
        ("/admin/conflicts", "GET"),
    ],
)
def test_the_inventory_sees_the_known_editor_routes(tmp_path: Any, path: str, method: str) -> None:
    found = {(m, p): d for m, p, d in routes(app_for_inventory(tmp_path))}
    dependant = found[(method, path)]
    assert dependant is not None
    assert requires(dependant, require_editor)


def test_the_inventory_would_catch_an_unguarded_route(tmp_path: Any) -> None:
    app = app_for_inventory(tmp_path)

    @app.post("/r/{reference_id}/delete")
    def delete_reference(reference_id: str) -> None:
        """An editor route that forgot its dependency."""

    found = {(m, p): d for m, p, d in routes(app)}
    dependant = found[("POST", "/r/{reference_id}/delete")]
    assert dependant is not None
    assert not requires(dependant, require_editor)
    assert ("POST", "/r/{reference_id}/delete") not in ANONYMOUS_ALLOWED


def test_mcp_tools_are_all_read_only(tmp_path: Any) -> None:
    server = build_mcp_server(lambda: pytest.fail("listing tools reads no library"))

    async def list_tools() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    tools = anyio.run(list_tools)
    assert len(tools) >= 4
    for tool in tools:
        assert tool.annotations is not None, tool.name
        assert tool.annotations.read_only_hint is True, tool.name
