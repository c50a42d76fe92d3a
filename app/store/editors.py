"""Editors, their tokens and browser sessions: who may change references, and proof of it.

A token is `fr1.<editor id>.<secret>`; only an scrypt hash of the secret is stored. A
browser trades the token for a session: the cookie carries a random id, the database only
its SHA-256, so neither a database dump nor a log line can be replayed.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from sqlmodel import Session, col, delete, select

from ..errors import AuthError, SessionExpired
from .models import EditorRow, SessionRow, utc_now

TOKEN_PREFIX = "fr1"  # noqa: S105 (a format marker, not a secret)
# `fr1.<id>.<secret>`: the id as the database wrote it (no sign, no leading zero, ASCII
# digits only) and the secret as `secrets.token_urlsafe(32)` writes it.
TOKEN_RE = re.compile(
    rf"{TOKEN_PREFIX}\.(?P<id>[1-9][0-9]{{0,17}})\.(?P<secret>[A-Za-z0-9_-]{{20,100}})"
)
# scrypt at n=2**14, r=8: 16 MiB and tens of milliseconds per check, the cost the
# Python docs suggest for interactive logins; the secret itself has 256 random bits.
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SESSION_LIFETIME = dt.timedelta(hours=12)
EDITOR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Login:
    """A fresh session: the cookie value (shown once) and its CSRF token."""

    session_id: str
    csrf_token: str
    editor: EditorRow


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """`scrypt$n$r$p$salt$hash` of `secret`, with a fresh salt unless one is given."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def secret_matches(secret: str, stored: str) -> bool:
    """True when `secret` hashes to `stored` (constant-time comparison)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        candidate = hashlib.scrypt(
            secret.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p)
        )
    except ValueError:
        return False
    return hmac.compare_digest(candidate.hex(), digest)


def add_editor(session: Session, name: str) -> str:
    """Create editor `name` and return its token; only a hash of it is kept."""
    if not EDITOR_NAME.match(name):
        raise AuthError("editor names are 1-64 letters, digits, '.', '_' or '-'")
    existing = session.exec(select(EditorRow).where(EditorRow.name == name)).first()
    if existing is not None and existing.revoked_at is None:
        raise AuthError(f"editor '{name}' exists; remove it first to issue a new token")
    secret = secrets.token_urlsafe(32)
    editor = existing or EditorRow(name=name, token_hash="")
    editor.token_hash = hash_secret(secret)
    editor.revoked_at = None
    editor.created_at = utc_now()
    session.add(editor)
    session.commit()
    session.refresh(editor)
    return f"{TOKEN_PREFIX}.{editor.id}.{secret}"


def remove_editor(session: Session, name: str) -> None:
    """Revoke editor `name`: its token stops working and its sessions end."""
    editor = session.exec(select(EditorRow).where(EditorRow.name == name)).first()
    if editor is None or editor.revoked_at is not None:
        raise AuthError(f"no active editor '{name}'")
    editor.revoked_at = utc_now()
    session.add(editor)
    session.exec(delete(SessionRow).where(col(SessionRow.editor_id) == editor.id))
    session.commit()


def any_editor(session: Session) -> bool:
    """True once at least one active editor exists (editing is off before)."""
    active = select(EditorRow.id).where(col(EditorRow.revoked_at).is_(None))
    return session.exec(active.limit(1)).first() is not None


def editor_for_token(session: Session, token: str) -> EditorRow:
    """The active editor the token belongs to, or AuthError."""
    found = TOKEN_RE.fullmatch(token.strip())
    if found is None:
        raise AuthError("not a failref token")
    editor = session.get(EditorRow, int(found.group("id")))
    live = editor is not None and editor.revoked_at is None
    # An unknown or revoked id costs the same hash as a known one: the answer's timing
    # must not tell which ids exist.
    stored = editor.token_hash if editor is not None and live else _dummy_hash()
    if not secret_matches(found.group("secret"), stored) or not live or editor is None:
        raise AuthError("unknown or revoked token")
    return editor


@functools.cache
def _dummy_hash() -> str:
    """A hash of a random secret nobody holds, made once, checked against for unknown ids."""
    return hash_secret(secrets.token_urlsafe(32))


def session_key(session_id: str) -> str:
    """What the database stores for a session id: its SHA-256."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def start_session(session: Session, editor: EditorRow) -> Login:
    """Open a browser session for `editor`."""
    session_id = secrets.token_urlsafe(32)
    csrf_token = secrets.token_urlsafe(32)
    assert editor.id is not None
    row = SessionRow(
        id_hash=session_key(session_id),
        editor_id=editor.id,
        csrf_token=csrf_token,
        expires_at=utc_now() + SESSION_LIFETIME,
    )
    session.add(row)
    session.commit()
    return Login(session_id, csrf_token, editor)


def editor_for_session(session: Session, session_id: str) -> tuple[EditorRow, SessionRow]:
    """The editor behind a live session, or AuthError (ended or revoked) or SessionExpired;
    a read only, so a page view with any cookie never waits for the write lock."""
    row = session.get(SessionRow, session_key(session_id))
    if row is None:
        raise AuthError("no such session")
    if _aware(row.expires_at) <= utc_now():
        raise SessionExpired("the session has expired")
    editor = session.get(EditorRow, row.editor_id)
    if editor is None or editor.revoked_at is not None:
        raise AuthError("the editor was removed")
    return editor, row


def end_session(session: Session, session_id: str) -> None:
    """Log out: the session id stops working on the server, whatever the browser keeps."""
    session.exec(delete(SessionRow).where(col(SessionRow.id_hash) == session_key(session_id)))
    session.commit()


def _aware(moment: dt.datetime) -> dt.datetime:
    # SQLite hands datetimes back without a zone; they were stored in UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
