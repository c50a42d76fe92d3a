"""Helpers for the editing tests: an editor, a signed-in client, and what a form carries."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from failref.services.library import Library
from failref.store.db import writing
from failref.store.editors import add_editor

CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')
BASE = re.compile(r'name="base" value="([^"]*)"')


def library_of(client: TestClient) -> Library:
    library: Library = client.app.state.library  # type: ignore[attr-defined]
    return library


def new_editor(client: TestClient, name: str = "ann") -> str:
    """Create an editor and return its token (as the app writes: taking the write lock
    first, so a gap the app is writing meanwhile is waited for, not a "database is locked")."""
    with writing(library_of(client).engine) as session:
        return add_editor(session, name)


def sign_in(client: TestClient, name: str = "ann") -> str:
    """Create an editor, sign the client in, and return the token."""
    token = new_editor(client, name)
    response = client.post("/login", data={"token": token, "next": "/"}, follow_redirects=False)
    assert response.status_code == 303
    return token


def form_fields(html: str) -> dict[str, str]:
    """The CSRF token and base revision an edit form carries."""
    fields = {"csrf_token": CSRF.search(html).group(1)}  # type: ignore[union-attr]
    base = BASE.search(html)
    if base:
        fields["base"] = base.group(1)
    return fields
