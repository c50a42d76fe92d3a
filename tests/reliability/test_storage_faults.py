"""Disk full, read-only filesystem, fsync failure: a clear 507/503, the text given back,
the old file intact, nothing recorded, and the app still serving."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest
from editing_helpers import form_fields, library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.store import files
from app.store.models import RevisionRow


def failing(code: int) -> Any:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    return fail


def revision_count(client: TestClient) -> int:
    with Session(library_of(client).engine) as session:
        return session.exec(select(func.count()).select_from(RevisionRow)).one()


@pytest.mark.parametrize(
    ("target", "code", "status"),
    [
        pytest.param("fsync", errno.ENOSPC, 507, id="disk-full-on-fsync"),
        pytest.param("fsync", errno.EIO, 503, id="fsync-io-error"),
        pytest.param("replace", errno.EROFS, 503, id="read-only-filesystem"),
    ],
)
def test_form_save_under_storage_faults(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, target: str, code: int, status: int
) -> None:
    sign_in(client)
    response = client.get("/r/stuck-rank/edit")
    fields = form_fields(response.text)
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    old, before = path.read_bytes(), revision_count(client)
    mine = old.decode().replace("A dead host.", "My unsaved words.")
    monkeypatch.setattr(files.os, target, failing(code))
    saved = client.post("/r/stuck-rank/edit", data={**fields, "text": mine, "action": "save"})
    monkeypatch.undo()
    assert saved.status_code == status
    assert "nothing was saved" in saved.text
    assert "My unsaved words." in saved.text
    assert path.read_bytes() == old
    assert revision_count(client) == before
    assert list(path.parent.glob(".*tmp-*")) == []
    assert client.get("/r/stuck-rank").status_code == 200


def test_api_save_on_a_full_disk_is_507(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_editor(client)
    etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    old = path.read_bytes()
    monkeypatch.setattr(files.os, "fsync", failing(errno.ENOSPC))
    response = client.put(
        "/api/v1/references/stuck-rank",
        content=old.replace(b"A dead host.", b"Other."),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": etag,
        },
    )
    monkeypatch.undo()
    assert response.status_code == 507
    assert response.json()["error"]["code"] == "insufficient_storage"
    assert path.read_bytes() == old
    assert client.get("/readyz").status_code == 200
