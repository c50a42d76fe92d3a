"""HTML pages; each is built from the same query functions as its JSON twin."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from app.deps import CatalogDep
from app.errors import NotFound
from app.queries import (
    ReferenceFilter,
    facets,
    get_reference,
    list_references,
    related_references,
    resolve_alias,
)

TEMPLATES_DIR = Path(__file__).parent / "templates"
router = APIRouter(include_in_schema=False)


@pass_context
def path_for(context: dict[str, Any], name: str, /, **params: Any) -> str:
    """A root-relative link to route `name`: right behind any proxy, unlike absolute URLs."""
    request: Request = context["request"]
    root_path: str = request.scope.get("root_path", "")
    return root_path + str(request.app.url_path_for(name, **params))


templates = Jinja2Templates(directory=TEMPLATES_DIR)
templates.env.globals["url_for"] = path_for


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render the template `name` with `context`."""
    return templates.TemplateResponse(request, name, context, status_code=status)


def error_page(request: Request, status: int, message: str) -> Response:
    """The HTML side of the error contract (the JSON side lives in errors.py)."""
    return page(request, "error.html", status=status, status_code=status, message=message)


@router.get("/", response_class=HTMLResponse, name="home")
def home(request: Request, catalog: CatalogDep) -> HTMLResponse:
    """The start page: every reference, newest knowledge first."""
    references = list_references(catalog, ReferenceFilter())
    return page(request, "home.html", references=references)


@router.get("/references", response_class=HTMLResponse, name="browse")
def browse(
    request: Request,
    catalog: CatalogDep,
    category: Annotated[str | None, Query()] = None,
    tag: Annotated[str | None, Query()] = None,
    framework: Annotated[str | None, Query()] = None,
    phase: Annotated[str | None, Query()] = None,
    q: Annotated[str | None, Query()] = None,
) -> HTMLResponse:
    """All references, filtered by category, tag, framework, phase and text."""
    filters = ReferenceFilter(category or None, tag or None, framework or None, phase or None, q)
    return page(
        request,
        "browse.html",
        references=list_references(catalog, filters),
        filters=filters,
        facets=facets(catalog),
        total=len(catalog.references),
    )


@router.get("/r/{reference_id}", response_class=HTMLResponse, name="reference_page")
def reference_page(request: Request, reference_id: str, catalog: CatalogDep) -> Response:
    """One reference; a former id (alias) redirects here permanently."""
    current = resolve_alias(catalog, reference_id)
    if current is not None and current not in (reference_id,):
        target = request.app.url_path_for("reference_page", reference_id=current)
        return RedirectResponse(target, status_code=301)
    try:
        reference = get_reference(catalog, reference_id)
    except NotFound:
        return page(request, "not_found.html", status=404, missing=reference_id[:100])
    return page(
        request,
        "reference.html",
        reference=reference,
        related=related_references(catalog, reference),
    )
