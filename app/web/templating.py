"""The page renderer: Jinja2 templates with root-relative links (`url_for`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from ..domain.matching.logs.ranks import number_ranges
from .views.check_names import hint_causes

TEMPLATES_DIR = Path(__file__).parent / "templates"


def page_path(
    request: Request, route: str, query: Mapping[str, str | None] | None = None, /, **params: Any
) -> str:
    """A root-relative link to `route`, with a query string of the non-empty `query` values."""
    root_path: str = request.scope.get("root_path", "")
    path = root_path + str(request.app.url_path_for(route, **params))
    values = {key: value for key, value in (query or {}).items() if value}
    return f"{path}?{urlencode(values)}" if values else path


@pass_context
def path_for(context: dict[str, Any], name: str, /, **params: Any) -> str:
    """A root-relative link to route `name`: right behind any proxy, unlike absolute URLs."""
    return page_path(context["request"], name, **params)


@pass_context
def path_with_query(
    context: dict[str, Any], name: str, query: Mapping[str, str | None], /, **params: Any
) -> str:
    """`path_for` with a query string built from `query` (empty values left out)."""
    return page_path(context["request"], name, query, **params)


def signed_in(request: Request) -> dict[str, Any]:
    """Who the page header names as signed in (what `guards.remember_signed_in` found), and
    the sign-in link that brings an editor back to this page: None on a read-only mirror,
    and for the footer (`footer_sign_in`) only on a page that looked for an editor and
    found none."""
    editor = getattr(request.state, "editor", None)
    settings = request.app.state.settings
    link = None
    if not settings.read_only and request.url.path != request.app.url_path_for("login"):
        back = request.url.path
        if request.method == "GET" and request.url.query:
            back += "?" + request.url.query
        link = str(request.app.url_path_for("login")) + "?" + urlencode({"next": back})
    looked = hasattr(request.state, "editor")
    return {
        "signed_in": editor,
        "sign_in_url": link,
        "footer_sign_in": link if looked and editor is None else None,
    }


templates = Jinja2Templates(directory=TEMPLATES_DIR, context_processors=[signed_in])
templates.env.globals["url_for"] = path_for
templates.env.globals["url_with_query"] = path_with_query
templates.env.filters["ranges"] = number_ranges
templates.env.filters["named_causes"] = hint_causes


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render the template `name` with `context`."""
    return templates.TemplateResponse(request, name, context, status_code=status)
