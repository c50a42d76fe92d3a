"""Admin pages about the store of record: the references the folder and the database both
changed since the last import, each with both texts."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...services import folder_sync
from ...urls import ADMIN_CONFLICTS
from ..deps import LibraryDep
from ..guards import EditorDep
from ..templating import page

router = APIRouter(include_in_schema=False)


@router.get(ADMIN_CONFLICTS, response_class=HTMLResponse, name="conflicts")
def conflicts(request: Request, editor: EditorDep, library: LibraryDep) -> HTMLResponse:
    """References changed in both the folder and the database; the database's text serves."""
    return page(
        request,
        "conflicts.html",
        conflicts=folder_sync.conflicts(library),
        editor=editor,
        store=library.settings.store_of_record,
    )
