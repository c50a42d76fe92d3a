"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter

from ...errors import Unavailable
from ...services.schemas import ErrorBody, Health
from ..deps import LibraryDep

router = APIRouter(tags=["health"])


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
