"""Editor pages: sign in, edit and create references with preview, retire, history, a
revision against the text now, restore (the gaps list: `gaps.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...domain.references.frontmatter import split_front_matter
from ...domain.references.problems import InvalidReference, Problem
from ...errors import AuthError, FailrefError, FrontMatterError, InvalidInput, StaleBase
from ...services import conflicts, editing, editors, preview, readers, retiring
from ...services import history as revision_history
from ...services.library import Library
from ...urls import (
    REFERENCE_EDIT,
    REFERENCE_HISTORY,
    REFERENCE_RESTORE,
    REFERENCE_RETIRE,
    REFERENCE_REVISION,
)
from ..bodies import SafeBodyRoute
from ..deps import LibraryDep
from ..guards import (
    SESSION_COOKIE,
    Editor,
    EditorDep,
    Writable,
    check_csrf,
    same_origin,
)
from ..ratelimit import SignInLimited
from ..templating import page, page_path

router = APIRouter(include_in_schema=False, route_class=SafeBodyRoute)
# No length cap here: the body limit bounds the form, and a file over MAX_FILE_BYTES gets 413.
TemplateText = Annotated[str, Form()]
MessageText = Annotated[str, Form(max_length=500)]
NO_ID = Problem("new reference", 2, "front matter", "give the reference an id")


@dataclass(frozen=True)
class Draft:
    """What the edit form shows: the text, the base it started from, and any outcome."""

    reference_id: str | None
    text: str
    base: str
    message: str = ""
    creating: bool = False


def safe_next(target: str | None) -> str:
    """A same-origin path to go to after sign-in; anything else goes home."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    if any(ch in target for ch in "\\\r\n\t") or ":" in target.split("?")[0]:
        return "/"
    return target


# Sign in and out -------------------------------------------------------------------------


@router.get("/login", response_class=HTMLResponse, name="login")
def login_form(request: Request, _writable: Writable, next: str | None = None) -> HTMLResponse:
    """The sign-in form; a token in the URL is refused, since URLs end up in logs."""
    if "token" in request.query_params:
        raise InvalidInput("never put a token in a URL; paste it into the form", field="token")
    return page(request, "login.html", next=safe_next(next), error=None)


@router.post("/login", name="login_submit")
def login(
    request: Request,
    library: LibraryDep,
    _writable: Writable,
    _budget: SignInLimited,
    token: Annotated[str, Form(max_length=200)],
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    """Trade an editor token for a session cookie."""
    same_origin(request)
    try:
        login = editors.sign_in(library, token)
    except AuthError:
        error = "Unknown or revoked token."
        return page(request, "login.html", status=401, next=safe_next(next), error=error)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        login.session_id,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout", name="logout")
def logout(
    request: Request,
    editor: EditorDep,
    library: LibraryDep,
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """End the session on the server and drop the cookie."""
    check_csrf(editor, csrf_token)
    if editor.session_id is not None:
        editors.sign_out(library, editor.session_id)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# Edit and create ---------------------------------------------------------------------------


def _editor_page(
    request: Request, draft: Draft, editor: Editor, status: int = 200, **extra: Any
) -> HTMLResponse:
    library: Library = request.app.state.library
    context = {
        "draft": draft,
        "editor": editor,
        "problems": [],
        "preview": None,
        "rough": None,
        "conflict": None,
        "kept_draft": None,
        "reference_ids": sorted(set(library.catalog.references) - {draft.reference_id}),
    }
    context.update(extra)
    return page(request, "edit.html", status=status, **context)


@router.get(REFERENCE_EDIT, response_class=HTMLResponse, name="edit_reference")
def edit_form(
    request: Request, reference_id: str, editor: EditorDep, library: LibraryDep
) -> HTMLResponse:
    """The whole file in a text area, with the version it starts from."""
    text, base = editing.existing_file(library, reference_id)
    kept = editing.latest_draft(library, editor.id, reference_id)
    return _editor_page(request, Draft(reference_id, text, base), editor, kept_draft=kept)


@router.post(REFERENCE_EDIT, response_class=HTMLResponse, name="edit_reference_submit")
def edit_submit(
    request: Request,
    reference_id: str,
    editor: EditorDep,
    library: LibraryDep,
    text: TemplateText,
    base: Annotated[str, Form(max_length=64)] = "",
    message: MessageText = "",
    action: Annotated[str, Form()] = "preview",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Preview (nothing saved) or save the edited file."""
    check_csrf(editor, csrf_token)
    editing.check_id(library, reference_id)
    return _submit(request, library, editor, Draft(reference_id, text, base, message), action)


@router.get("/new", response_class=HTMLResponse, name="new_reference")
def new_form(
    request: Request, editor: EditorDep, library: LibraryDep, gap: int | None = None
) -> HTMLResponse:
    """A new reference from the template, or from an unanswered query of the gaps list
    (with a warning when a reference covers that query now: edit it, not a duplicate)."""
    text = preview.new_reference_text(library, gap)
    covered = readers.gap_covered_by(library, gap) if gap is not None else None
    return _editor_page(request, Draft(None, text, "", creating=True), editor, covered_by=covered)


@router.post("/new", response_class=HTMLResponse, name="new_reference_submit")
def new_submit(
    request: Request,
    editor: EditorDep,
    library: LibraryDep,
    text: TemplateText,
    message: MessageText = "",
    action: Annotated[str, Form()] = "preview",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Preview or create a reference; its id comes from the front matter."""
    check_csrf(editor, csrf_token)
    draft = Draft(_declared_id(text), text, "", message, creating=True)
    return _submit(request, library, editor, draft, action)


def _declared_id(text: str) -> str | None:
    try:
        declared = split_front_matter(text.replace("\r\n", "\n")).values.get("id")
    except FrontMatterError:
        return None
    return declared if isinstance(declared, str) else None


def _submit(
    request: Request, library: Library, editor: Editor, draft: Draft, action: str
) -> Response:
    if action == "save":
        return _save(request, library, editor, draft)
    return _preview(request, library, editor, draft)


def _save(
    request: Request, library: Library, editor: Editor, draft: Draft, *, merge: bool = True
) -> Response:
    """Save the draft; from a base that moved on, a change that touches other lines than the
    editor's merges (`merge`), and the history shows the merged revision."""
    if draft.reference_id is None:
        return _editor_page(request, draft, editor, status=422, problems=[NO_ID])
    # An empty message stays empty: the history says what such a revision changed.
    message = draft.message.strip()
    edit = editing.Edit(draft.reference_id, draft.text, draft.base or None, draft.creating, message)
    try:
        outcome = editing.save_as_editor(library, editor.id, editor.name, edit, merge=merge)
    except InvalidReference as error:
        return _editor_page(request, draft, editor, status=422, problems=error.found)
    except StaleBase as error:
        return _conflict(request, library, editor, draft, error)
    except FailrefError as error:
        return _editor_page(request, draft, editor, status=error.status, failure=str(error))
    if outcome.merged:
        query = {"merged": "1"}
        target = page_path(request, "reference_history", query, reference_id=draft.reference_id)
    else:
        query = {"saved": "1"}
        target = page_path(request, "reference_page", query, reference_id=draft.reference_id)
    return RedirectResponse(target, status_code=303)


def _conflict(
    request: Request, library: Library, editor: Editor, draft: Draft, error: StaleBase
) -> HTMLResponse:
    """The form again holding the three versions merged (the editor's own text is kept as a
    draft by the service), the stretches both sides changed to decide, and the current
    version as the new base."""
    refreshed = editing.editable_file(library, draft.reference_id or "")
    theirs, new_base = refreshed if refreshed else (None, "")
    if draft.creating:  # nothing to merge into a new file: the id is taken
        view = conflicts.ConflictView(str(error), None, False)
    else:
        view = conflicts.conflict_view(
            library, draft.reference_id or "", draft.base or None, theirs, draft.text, str(error)
        )
    text = view.merge.text if view.merge else draft.text
    kept = Draft(draft.reference_id, text, new_base, draft.message, draft.creating)
    return _editor_page(request, kept, editor, status=409, conflict=view)


def _preview(request: Request, library: Library, editor: Editor, draft: Draft) -> HTMLResponse:
    if draft.reference_id is None:
        return _editor_page(request, draft, editor, status=200, problems=[NO_ID])
    try:
        shown = preview.preview(library, draft.reference_id, draft.text)
    except InvalidReference as error:
        rough = preview.rough_page(draft.text)
        return _editor_page(request, draft, editor, problems=error.found, rough=rough)
    except FailrefError as error:  # a bad id, a file over the size limit: keep the text
        return _editor_page(request, draft, editor, status=error.status, failure=str(error))
    return _editor_page(request, draft, editor, preview=shown)


@router.post(REFERENCE_RETIRE, response_class=HTMLResponse, name="retire_reference")
def retire_submit(
    request: Request,
    reference_id: str,
    editor: EditorDep,
    library: LibraryDep,
    reason: Annotated[str, Form(max_length=2_000)] = "",
    replaced_by: Annotated[str, Form(max_length=200)] = "",
    base: Annotated[str, Form(max_length=64)] = "",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Retire the reference at the version the form showed; its page then says so (or sends
    readers on to its replacement). A problem shows the edit page again, the form open."""
    check_csrf(editor, csrf_token)
    try:
        retiring.retire_reference(library, reference_id, base, editor.name, reason, replaced_by)
    except (InvalidInput, StaleBase) as error:
        text, current = editing.existing_file(library, reference_id)
        draft = Draft(reference_id, text, current)
        problem = (
            str(error)
            if isinstance(error, InvalidInput)
            else ("the reference changed since this page was opened: read it again, then retire it")
        )
        return _editor_page(
            request,
            draft,
            editor,
            status=error.status,
            retire_error=problem,
            retire_reason=reason,
            retire_replaced_by=replaced_by,
        )
    return RedirectResponse(page_path(request, "reference_page", reference_id=reference_id), 303)


# History -----------------------------------------------------------------------------------


@router.get(REFERENCE_HISTORY, response_class=HTMLResponse, name="reference_history")
def history(
    request: Request,
    reference_id: str,
    editor: EditorDep,
    library: LibraryDep,
    merged: bool = False,
) -> HTMLResponse:
    """Every revision with author, time, message (or what it changed) and its diff against
    the one before; `merged` says the newest merged a change saved meanwhile."""
    entries = revision_history.history(library, reference_id)
    retired = retiring.retirement(library, reference_id)
    return page(
        request,
        "history.html",
        reference_id=reference_id,
        entries=entries,
        editor=editor,
        retired=retired,
        merged=merged,
    )


@router.get(REFERENCE_REVISION, response_class=HTMLResponse, name="revision_to_current")
def revision_to_current(
    request: Request, reference_id: str, revision_id: int, editor: EditorDep, library: LibraryDep
) -> HTMLResponse:
    """One revision against the text now: what restoring it would change."""
    comparison = revision_history.compare_with_current(library, reference_id, revision_id)
    return page(
        request,
        "revision.html",
        reference_id=reference_id,
        comparison=comparison,
        editor=editor,
    )


@router.post(REFERENCE_RESTORE, name="restore_revision")
def restore(
    request: Request,
    reference_id: str,
    revision_id: int,
    editor: EditorDep,
    library: LibraryDep,
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Save an old revision's text as a new revision (history is never rewritten)."""
    check_csrf(editor, csrf_token)
    number, text = revision_history.revision_text(library, reference_id, revision_id)
    found = editing.editable_file(library, reference_id)
    message = f"restored revision {number}"
    # A retired reference (no text now) comes back as a new one; a file deleted in git is
    # not re-created by a restore (it answers 404, as a save of it would).
    creating = found is None and retiring.retirement(library, reference_id) is not None
    draft = Draft(reference_id, text, found[1] if found else "", message, creating=creating)
    # A restore is the old text as it was: merging the text now into it would not be.
    return _save(request, library, editor, draft, merge=False)
