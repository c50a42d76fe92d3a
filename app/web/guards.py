"""Who is asking, and whether they may change anything: the dependencies of every
state-changing route. Nothing here trusts the browser: sessions and tokens are checked
against the database on each request."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import urlsplit

from fastapi import Depends, Request

from ..errors import AuthError, Forbidden, Unauthorized
from ..services.editors import editing_open, editor_by_session, editor_by_token
from ..store.models import EditorRow
from .deps import LibraryDep
from .ratelimit import spend_budget

SESSION_COOKIE = "failref_session"
# Browsers send these on cross-origin requests; a save never comes from another site.
FOREIGN_FETCH_SITES = frozenset({"cross-site", "same-site"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Editor:
    """The editor behind a request, and how they proved it."""

    row: EditorRow
    via: Literal["session", "token"]
    csrf_token: str | None = None
    session_id: str | None = None

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def id(self) -> int:
        assert self.row.id is not None  # rows read from the database have their id
        return self.row.id


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer` header, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def optional_editor(request: Request, library: LibraryDep) -> Editor | None:
    """The editor signed in by cookie or token, or None; both at once is refused."""
    token = bearer_token(request)
    session_id = request.cookies.get(SESSION_COOKIE)
    if token and session_id:
        raise Forbidden("send either a session cookie or a Bearer token, not both")
    if token:
        spend_budget(request, "sign-in")  # every check costs an scrypt hash
        try:
            return Editor(editor_by_token(library, token), "token")
        except AuthError as error:
            raise Unauthorized(f"token refused: {error}") from None
    return _session_editor(library, session_id) if session_id else None


def _session_editor(library: LibraryDep, session_id: str) -> Editor | None:
    try:
        row, live = editor_by_session(library, session_id)
    except AuthError:
        return None
    return Editor(row, "session", live.csrf_token, session_id)


def remember_signed_in(request: Request, library: LibraryDep) -> None:
    """Note who is signed in by session cookie, for the page header (`signed_in` in every
    template); nobody is refused, and a page never reads a Bearer token."""
    session_id = request.cookies.get(SESSION_COOKIE)
    request.state.editor = _session_editor(library, session_id) if session_id else None


def writable(library: LibraryDep) -> None:
    """Nothing is written on a read-only mirror: no edit, no sign-in, no feedback."""
    if library.settings.read_only:
        raise Forbidden("this failref is a read-only mirror; editing is off")


Writable = Annotated[None, Depends(writable)]


def editing_allowed(library: LibraryDep, _writable: Writable) -> None:
    """Editing is off on read-only mirrors and until an editor exists."""
    if not editing_open(library):
        raise Forbidden("editing is off until an editor exists: failref editor add NAME")


def same_origin(request: Request) -> None:
    """Refuse a state change that a browser says comes from another site."""
    if request.method in SAFE_METHODS:
        return
    if request.headers.get("sec-fetch-site", "").lower() in FOREIGN_FETCH_SITES:
        raise Forbidden("cross-site requests cannot change anything")
    origin = request.headers.get("origin")
    if origin is not None and not _is_own_origin(request, origin):
        raise Forbidden("requests from another origin cannot change anything")


def _is_own_origin(request: Request, origin: str) -> bool:
    parts = urlsplit(origin)
    own = request.url
    return (parts.scheme, parts.netloc) == (own.scheme, own.netloc)


OptionalEditor = Annotated[Editor | None, Depends(optional_editor)]


def require_editor(
    request: Request,
    editor: OptionalEditor,
    _allowed: Annotated[None, Depends(editing_allowed)],
) -> Editor:
    """The signed-in editor; 401 for anyone else, 403 for cross-site attempts."""
    if editor is None:
        raise Unauthorized("sign in as an editor first")
    if editor.via == "session":
        same_origin(request)
    return editor


EditorDep = Annotated[Editor, Depends(require_editor)]


def check_csrf(editor: Editor, submitted: str | None) -> None:
    """A form posted with a session must carry that session's CSRF token."""
    if editor.via == "token":
        return
    expected = editor.csrf_token or ""
    if not submitted or not secrets.compare_digest(submitted, expected):
        raise Forbidden("the form's CSRF token is missing or stale; reload the page")
