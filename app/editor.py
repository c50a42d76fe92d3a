"""Editor pages: sign in, edit and create references with preview, history, restore, gaps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from app.auth import AuthError, editor_for_token, end_session, start_session
from app.bodies import SafeBodyRoute
from app.collisions import index_with_edit, judge_lines, message_problems, read_labelled
from app.db import writing
from app.deps import LibraryDep
from app.editing import (
    InvalidReference,
    StaleBase,
    current_file,
    discard_drafts,
    keep_draft,
    latest_draft,
    reference_file,
    revisions,
    save_reference,
    unified_diff,
    validate_text,
)
from app.errors import FailrefError, InvalidInput, NotFound
from app.frontmatter import FrontMatterError, split_front_matter
from app.gaps import list_gaps
from app.guards import SESSION_COOKIE, Editor, EditorDep, check_csrf, same_origin
from app.library import Library
from app.models import GapRow
from app.problems import Problem
from app.ratelimit import SignInLimited
from app.templating import page, page_path

router = APIRouter(include_in_schema=False, route_class=SafeBodyRoute)
# No length cap here: the body limit bounds the form, and a file over MAX_FILE_BYTES gets 413.
TemplateText = Annotated[str, Form()]


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
def login_form(request: Request, next: str | None = None) -> HTMLResponse:
    """The sign-in form; a token in the URL is refused, since URLs end up in logs."""
    if "token" in request.query_params:
        raise InvalidInput("never put a token in a URL; paste it into the form", field="token")
    return page(request, "login.html", next=safe_next(next), error=None)


@router.post("/login", name="login_submit")
def login(
    request: Request,
    library: LibraryDep,
    _budget: SignInLimited,
    token: Annotated[str, Form(max_length=200)],
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    """Trade an editor token for a session cookie."""
    same_origin(request)
    with writing(library.engine) as session:
        try:
            editor = editor_for_token(session, token)
        except AuthError:
            return page(
                request,
                "login.html",
                status=401,
                next=safe_next(next),
                error="Unknown or revoked token.",
            )
        login = start_session(session, editor)
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
        with writing(library.engine) as session:
            end_session(session, editor.session_id)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# Edit and create ---------------------------------------------------------------------------


def _editor_page(
    request: Request, draft: Draft, editor: Editor, status: int = 200, **extra: Any
) -> HTMLResponse:
    context = {
        "draft": draft,
        "editor": editor,
        "problems": [],
        "preview": None,
        "conflict": None,
        "kept_draft": None,
    }
    context.update(extra)
    return page(request, "edit.html", status=status, **context)


@router.get("/r/{reference_id}/edit", response_class=HTMLResponse, name="edit_reference")
def edit_form(
    request: Request, reference_id: str, editor: EditorDep, library: LibraryDep
) -> HTMLResponse:
    """The whole file in a text area, with the version it starts from."""
    found = current_file(library.settings.references_dir, reference_id)
    if found is None:
        raise NotFound(f"no reference file '{reference_id[:100]}'", field="id")
    text, base = found
    kept = latest_draft(library, editor.row.id or 0, reference_id)
    return _editor_page(request, Draft(reference_id, text, base), editor, kept_draft=kept)


@router.post("/r/{reference_id}/edit", response_class=HTMLResponse, name="edit_reference_submit")
def edit_submit(
    request: Request,
    reference_id: str,
    editor: EditorDep,
    library: LibraryDep,
    text: TemplateText,
    base: Annotated[str, Form(max_length=64)] = "",
    message: Annotated[str, Form(max_length=500)] = "",
    action: Annotated[str, Form()] = "preview",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Preview (nothing saved) or save the edited file."""
    check_csrf(editor, csrf_token)
    reference_file(library.settings.references_dir, reference_id)
    draft = Draft(reference_id, text, base, message)
    if action == "save":
        return _save(request, library, editor, draft)
    return _preview(request, library, editor, draft)


@router.get("/new", response_class=HTMLResponse, name="new_reference")
def new_form(
    request: Request, editor: EditorDep, library: LibraryDep, gap: int | None = None
) -> HTMLResponse:
    """A new reference from the template, or from an unanswered query of the gaps list."""
    text = new_reference_text(library, gap)
    return _editor_page(request, Draft(None, text, "", creating=True), editor)


@router.post("/new", response_class=HTMLResponse, name="new_reference_submit")
def new_submit(
    request: Request,
    editor: EditorDep,
    library: LibraryDep,
    text: TemplateText,
    message: Annotated[str, Form(max_length=500)] = "",
    action: Annotated[str, Form()] = "preview",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    """Preview or create a reference; its id comes from the front matter."""
    check_csrf(editor, csrf_token)
    draft = Draft(_declared_id(text), text, "", message, creating=True)
    if action == "save":
        return _save(request, library, editor, draft)
    return _preview(request, library, editor, draft)


def _declared_id(text: str) -> str | None:
    try:
        declared = split_front_matter(text.replace("\r\n", "\n")).values.get("id")
    except FrontMatterError:
        return None
    return declared if isinstance(declared, str) else None


def _save(request: Request, library: Library, editor: Editor, draft: Draft) -> Response:
    if draft.reference_id is None:
        problem = Problem("new reference", 2, "front matter", "give the reference an id")
        return _editor_page(request, draft, editor, status=422, problems=[problem])
    try:
        save_reference(
            library,
            draft.reference_id,
            draft.text,
            base_hash=draft.base or None,
            creating=draft.creating,
            author=editor.name,
            message=draft.message.strip() or ("created" if draft.creating else "edited"),
        )
    except InvalidReference as error:
        return _editor_page(request, draft, editor, status=422, problems=error.found)
    except StaleBase as error:
        return _conflict(request, library, editor, draft, error)
    except FailrefError as error:
        return _editor_page(request, draft, editor, status=error.status, failure=error.message)
    discard_drafts(library, editor.row.id or 0, draft.reference_id)
    target = page_path(request, "reference_page", {"saved": "1"}, reference_id=draft.reference_id)
    return RedirectResponse(target, status_code=303)


def _conflict(
    request: Request, library: Library, editor: Editor, draft: Draft, error: StaleBase
) -> HTMLResponse:
    keep_draft(library, editor.row.id or 0, draft.reference_id or "", draft.text)
    current = error.current_text
    diff = unified_diff(current or "", draft.text, "on disk now", "your version")
    refreshed = current_file(library.settings.references_dir, draft.reference_id or "")
    conflict = {"message": error.message, "current": current, "diff": diff}
    new_base = refreshed[1] if refreshed else ""
    kept = Draft(draft.reference_id, draft.text, new_base, draft.message, draft.creating)
    return _editor_page(request, kept, editor, status=409, conflict=conflict)


def _preview(request: Request, library: Library, editor: Editor, draft: Draft) -> HTMLResponse:
    if draft.reference_id is None:
        problem = Problem("new reference", 2, "front matter", "give the reference an id")
        return _editor_page(request, draft, editor, status=200, problems=[problem])
    try:
        reference = validate_text(library, draft.reference_id, draft.text)
    except InvalidReference as error:
        return _editor_page(request, draft, editor, problems=error.found)
    except FailrefError as error:  # a bad id, a file over the size limit: keep the text
        return _editor_page(request, draft, editor, status=error.status, failure=error.message)
    edited_index = index_with_edit(list(library.catalog.references.values()), reference)
    collisions = message_problems(edited_index, [reference])
    labelled = (
        read_labelled(library.settings.labelled_dir)
        if library.settings.labelled_dir.is_dir()
        else []
    )
    before = judge_lines(library.catalog.index, labelled)
    after = judge_lines(edited_index, labelled)
    changed = [
        (b, a)
        for b, a in zip(before, after, strict=True)
        if (b.top, b.confident) != (a.top, a.confident)
    ]
    preview = {
        "reference": reference,
        "collisions": collisions,
        "labelled_total": len(after),
        "labelled_right": sum(v.right for v in after),
        "changed": changed,
    }
    return _editor_page(request, draft, editor, preview=preview)


def new_reference_text(library: Library, gap_id: int | None) -> str:
    """The references README's template, with a gap's example as its message when given."""
    readme = library.settings.references_dir / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    template = (
        text.split("````markdown\n", 1)[-1].split("````", 1)[0] if "````markdown" in text else ""
    )
    if gap_id is None or not template:
        return template
    with Session(library.engine) as session:
        gap = session.get(GapRow, gap_id)
    if gap is None:
        return template
    opening = template.find("```text\n")
    closing = template.find("\n```", opening + 1) if opening >= 0 else -1
    if closing < 0:
        return template
    start = opening + len("```text\n")
    return template[:start] + gap.template + template[closing:]


# History -----------------------------------------------------------------------------------


@router.get("/r/{reference_id}/history", response_class=HTMLResponse, name="reference_history")
def history(
    request: Request, reference_id: str, editor: EditorDep, library: LibraryDep
) -> HTMLResponse:
    """Every revision with author, time, message and its diff against the one before."""
    reference_file(library.settings.references_dir, reference_id)
    rows = revisions(library, reference_id)
    if not rows:
        raise NotFound(f"no revisions of '{reference_id[:100]}'", field="id")
    entries = []
    for position, row in enumerate(rows):
        previous = rows[position + 1].content if position + 1 < len(rows) else ""
        entries.append({"row": row, "diff": unified_diff(previous, row.content, "before", "after")})
    return page(request, "history.html", reference_id=reference_id, entries=entries, editor=editor)


@router.post("/r/{reference_id}/restore/{revision_id}", name="restore_revision")
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
    rows = {row.id: row for row in revisions(library, reference_id)}
    if revision_id not in rows:
        raise NotFound(f"no revision {revision_id} of '{reference_id[:100]}'", field="revision")
    found = current_file(library.settings.references_dir, reference_id)
    draft = Draft(
        reference_id,
        rows[revision_id].content,
        found[1] if found else "",
        f"restored revision {revision_id}",
    )
    return _save(request, library, editor, draft)


# What to write next ------------------------------------------------------------------------


@router.get("/admin/gaps", response_class=HTMLResponse, name="gaps")
def gaps(request: Request, editor: EditorDep, library: LibraryDep) -> HTMLResponse:
    """Queries that found no confident match, redacted and grouped, most asked first."""
    with Session(library.engine) as session:
        rows = list_gaps(session)
    return page(
        request, "gaps.html", gaps=rows, editor=editor, storing=library.settings.store_queries
    )
