"""A kept paste's result, at its own address: what a paste sends the browser to, and what
its link shows whoever opens it (see app.services.kept_results)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from ...errors import InvalidInput
from ...services.analysis import analyse_paste
from ...urls import KEPT_RESULT
from ..bodies import SafeBodyRoute
from ..deps import LibraryDep
from ..guards import remember_signed_in
from ..ratelimit import spend_budget
from ..templating import page
from ..views.kept import OWNER_COOKIE, TOKEN_RE, WAITING_RELOAD_S, kept_link
from ..views.paste import PasteForm
from .pages import paste_page

router = APIRouter(
    include_in_schema=False,
    route_class=SafeBodyRoute,
    dependencies=[Depends(remember_signed_in)],
)


@router.get(KEPT_RESULT, response_class=HTMLResponse, name="kept_result")
def kept_result(request: Request, token: str, library: LibraryDep) -> Response:
    """The result of a kept paste. Its paster, just after pasting, sees it as worked out
    from the paste as sent; anyone else sees it worked out again, with today's references,
    from the kept, redacted copy. A paste still on its way to storage gets a page that
    reloads itself; an unknown or expired one, 404."""
    if not TOKEN_RE.fullmatch(token):
        return gone_page(request)
    spend_budget(request)  # the page matches or scans the paste again, like a paste
    owner = request.cookies.get(OWNER_COOKIE)
    fresh = library.kept.fresh(token, owner)
    if fresh is not None:
        form = PasteForm.of(fresh.text, **fresh.context)
        link = kept_link(request, token, fresh.created_at, as_sent=True)
        if fresh.generation == library.generation:
            storing = library.settings.store_queries and not library.settings.read_only
            return paste_page(
                request, library.catalog, form, fresh.outcome, storing=storing, kept=link
            )
    else:
        kept = library.kept.read(token)
        if kept is None:
            waiting = owner is not None or library.kept.pending(token)
            return waiting_page(request) if waiting else gone_page(request)
        form = PasteForm.of(kept.text, **kept.context)
        link = kept_link(request, token, kept.created_at, as_sent=False)
    try:
        outcome = analyse_paste(library, form.log, form.run_context(), remember=False)
    except InvalidInput as error:  # the limits were lowered since it was pasted
        return paste_page(request, library.catalog, form, error=error)
    return paste_page(request, library.catalog, form, outcome, kept=link)


def waiting_page(request: Request) -> HTMLResponse:
    """The paster's result before its kept copy can be read here (another worker or
    replica took the paste): 503 that reloads itself."""
    response = page(
        request,
        "kept_missing.html",
        status=503,
        waiting=True,
        reload_s=WAITING_RELOAD_S,
        retention_days=request.app.state.settings.result_retention_days,
    )
    response.headers["retry-after"] = str(WAITING_RELOAD_S)
    return response


def gone_page(request: Request) -> HTMLResponse:
    """No kept paste at this address: never one, or past its retention (404)."""
    return page(
        request,
        "kept_missing.html",
        status=404,
        waiting=False,
        retention_days=request.app.state.settings.result_retention_days,
    )
