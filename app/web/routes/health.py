"""Liveness, readiness and the interactive API docs."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...errors import Unavailable
from ...services.schemas import ErrorBody, Health
from ..deps import LibraryDep
from ..templating import templates

router = APIRouter(tags=["health"])
docs_router = APIRouter(include_in_schema=False)


@docs_router.get("/docs", response_class=HTMLResponse, name="api_docs")
def api_docs(request: Request) -> HTMLResponse:
    """Interactive API docs, with every asset served from this origin."""
    openapi_url = str(request.app.url_path_for("openapi"))
    return templates.TemplateResponse(request, "api_docs.html", {"openapi_url": openapi_url})


@router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    """The process is up and answering."""
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Health,
    responses={503: {"model": ErrorBody, "description": "Not loaded yet."}},
    summary="Readiness",
)
def readyz(library: LibraryDep) -> Health:
    """The database answers and the reference index is loaded; `storage` says when side
    storage (the gaps of unanswered pastes) is failing."""
    if not library.ready:
        raise Unavailable("the reference index is not loaded yet")
    if not library.database_answers():
        raise Unavailable("the database does not answer")
    catalog = library.catalog
    return Health(
        status="ok",
        references=len(catalog.references),
        problems=len(catalog.problems),
        storage=library.side_storage.failing(),
    )
