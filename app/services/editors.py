"""Who may edit: editors and their tokens, browser sessions, and whether editing is open."""

from __future__ import annotations

from ..errors import SessionExpired
from ..store import editors
from ..store.db import reading, writing
from ..store.editors import Login
from ..store.models import EditorRow, SessionRow
from .library import Library


def add_editor(library: Library, name: str) -> str:
    """Create editor `name` and return its token, which is shown once and never stored."""
    with writing(library.engine) as session:
        return editors.add_editor(session, name)


def remove_editor(library: Library, name: str) -> None:
    """Revoke editor `name`: its token and sessions stop working at once."""
    with writing(library.engine) as session:
        editors.remove_editor(session, name)


def editing_open(library: Library) -> bool:
    """True once at least one active editor exists (editing is off before)."""
    with reading(library.engine) as session:
        return editors.any_editor(session)


def editor_by_token(library: Library, token: str) -> EditorRow:
    """The active editor a Bearer token belongs to, or AuthError."""
    with reading(library.engine) as session:
        return editors.editor_for_token(session, token)


def editor_by_session(library: Library, session_id: str) -> tuple[EditorRow, SessionRow]:
    """The editor behind a live browser session, or AuthError. Looking up is a read (a
    random cookie never takes the write lock); only an expired session's row is then
    deleted, in a write of its own."""
    try:
        with reading(library.engine) as session:
            return editors.editor_for_session(session, session_id)
    except SessionExpired:
        with writing(library.engine) as session:
            editors.end_session(session, session_id)
        raise


def sign_in(library: Library, token: str) -> Login:
    """Trade an editor token for a new browser session, or AuthError."""
    with writing(library.engine) as session:
        return editors.start_session(session, editors.editor_for_token(session, token))


def sign_out(library: Library, session_id: str) -> None:
    """End a browser session on the server, whatever the browser keeps."""
    with writing(library.engine) as session:
        editors.end_session(session, session_id)
