"""The gaps list: queries nothing matched confidently, for the docs team to write next,
each with the context it was asked in; set aside and put back."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...services import readers
from ...urls import ADMIN_GAP_DISMISS, ADMIN_GAPS
from ..bodies import SafeBodyRoute
from ..deps import LibraryDep
from ..guards import EditorDep, Writable, check_csrf, same_origin
from ..templating import page, page_path

router = APIRouter(include_in_schema=False, route_class=SafeBodyRoute)


@router.get(ADMIN_GAPS, response_class=HTMLResponse, name="gaps")
def gaps(
    request: Request, editor: EditorDep, library: LibraryDep, dismissed: bool = False
) -> HTMLResponse:
    """Queries that found no confident match, redacted and grouped, most asked first, with
    the context they were asked in; `?dismissed=true`: those an editor set aside."""
    return page(
        request,
        "gaps.html",
        listed=readers.list_gaps(library, dismissed=dismissed),
        showing_dismissed=dismissed,
        editor=editor,
        storing=library.settings.store_queries,
    )


@router.post(ADMIN_GAP_DISMISS, name="dismiss_gap")
def dismiss_gap(
    request: Request,
    gap_id: int,
    editor: EditorDep,
    library: LibraryDep,
    _writable: Writable,
    dismissed: Annotated[bool, Form()] = True,
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Set a gap aside (noise, or nothing to write), or put it back on the list; it keeps
    being counted either way. Back to the list it was on."""
    check_csrf(editor, csrf_token)
    same_origin(request)
    readers.dismiss_gap(library, gap_id, dismissed)
    query = {} if dismissed else {"dismissed": "true"}
    return RedirectResponse(page_path(request, "gaps", query), status_code=303)
