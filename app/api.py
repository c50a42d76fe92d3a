"""JSON API under /api/v1: the twin of every page, for scripts, chatbots and agents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from app.deps import CatalogDep, LibraryDep
from app.errors import ErrorBody, Unavailable
from app.queries import ReferenceFilter, get_reference, list_references
from app.schemas import Health, ReferenceDetail, ReferenceList, ReferenceSummary

router = APIRouter(prefix="/api/v1", tags=["references"])
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "Unknown id."}
}


def reference_url(request: Request, reference_id: str) -> str:
    """Path of a reference's page."""
    return str(request.app.url_path_for("reference_page", reference_id=reference_id))


@router.get("/references", response_model=ReferenceList, summary="List references")
def api_list_references(
    request: Request,
    catalog: CatalogDep,
    category: Annotated[str | None, Query(description="training, inference, ...")] = None,
    tag: Annotated[str | None, Query(description="Only references with this tag.")] = None,
    framework: Annotated[str | None, Query(description="e.g. pytorch, vllm.")] = None,
    phase: Annotated[str | None, Query(description="e.g. training, inference.")] = None,
    q: Annotated[
        str | None, Query(description="Words to find in title, summary, tags, messages.")
    ] = None,
) -> ReferenceList:
    """List the references that pass every given filter, in title order."""
    filters = ReferenceFilter(category, tag, framework, phase, q)
    references = list_references(catalog, filters)
    summaries = [ReferenceSummary.of(r, reference_url(request, r.id)) for r in references]
    return ReferenceList(count=len(summaries), references=summaries)


@router.get(
    "/references/{reference_id}",
    response_model=ReferenceDetail,
    responses=NOT_FOUND,
    summary="Get one reference",
)
def api_get_reference(request: Request, reference_id: str, catalog: CatalogDep) -> ReferenceDetail:
    """The whole structured reference: messages, context, causes, evidence checks, sources."""
    reference = get_reference(catalog, reference_id)
    return ReferenceDetail.of(reference, reference_url(request, reference.id))


health_router = APIRouter(tags=["health"])


@health_router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    """The process is up and answering."""
    return Health(status="ok")


@health_router.get(
    "/readyz",
    response_model=Health,
    responses={503: {"model": ErrorBody, "description": "Not loaded yet."}},
    summary="Readiness",
)
def readyz(library: LibraryDep) -> Health:
    """The database answers and the reference index is loaded."""
    if not library.ready:
        raise Unavailable("the reference index is not loaded yet")
    if not library.database_answers():
        raise Unavailable("the database does not answer")
    catalog = library.catalog
    return Health(status="ok", references=len(catalog.references), problems=len(catalog.problems))
