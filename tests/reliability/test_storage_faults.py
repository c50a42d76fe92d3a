"""Disk full, read-only filesystem, fsync failure, a full or locked database: a clear
507/503, the text given back (and kept as a draft when the database can take it), the old
file intact, nothing recorded, and the app still serving."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from editing_helpers import form_fields, library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, func, select

from failref.store import files, saves
from failref.store.models import DraftRow, RevisionRow


def failing(code: int) -> Any:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    return fail


def revision_count(client: TestClient) -> int:
    with Session(library_of(client).engine) as session:
        return session.exec(select(func.count()).select_from(RevisionRow)).one()


def drafts(client: TestClient) -> list[str]:
    with Session(library_of(client).engine) as session:
        return [row.text for row in session.exec(select(DraftRow))]


def full_database(*_args: object, **_kwargs: object) -> None:
    raise OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))


class ReadOnlyDisk:
    """Opening a new file fails with EROFS, and so does removing one (even a missing one,
    as a read-only mount answers)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_open = Path.open

        def open_(path: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if "x" in mode or "w" in mode:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))
            return real_open(path, mode, *args, **kwargs)

        monkeypatch.setattr(Path, "open", open_)
        monkeypatch.setattr(Path, "unlink", failing(errno.EROFS))


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
    assert drafts(client) == [mine]
    assert client.get("/r/stuck-rank").status_code == 200


def test_a_read_only_disk_is_a_503_that_keeps_the_text(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clean-up of the temporary file fails too; that must not turn into a 500."""
    token = new_editor(client, "bob")
    sign_in(client)
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    old = path.read_bytes()
    mine = old.decode().replace("A dead host.", "My unsaved words.")
    ReadOnlyDisk(monkeypatch)
    form = client.post("/r/stuck-rank/edit", data={**fields, "text": mine, "action": "save"})
    client.cookies.clear()
    api = client.put(
        "/api/v1/references/stuck-rank",
        content=mine.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": etag,
        },
    )
    monkeypatch.undo()
    assert form.status_code == 503
    assert "My unsaved words." in form.text
    assert api.status_code == 503
    assert "Read-only file system" in api.json()["error"]["message"]
    assert path.read_bytes() == old
    assert drafts(client) == [mine, mine]


def test_a_full_database_disk_is_a_507_that_keeps_the_text(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    sign_in(client)
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    old, before = path.read_bytes(), revision_count(client)
    mine = old.decode().replace("A dead host.", "My unsaved words.")
    monkeypatch.setattr(saves, "record_revision", full_database)
    saved = client.post("/r/stuck-rank/edit", data={**fields, "text": mine, "action": "save"})
    monkeypatch.undo()
    assert saved.status_code == 507
    assert "My unsaved words." in saved.text
    assert "nothing was saved" in saved.text
    assert (path.read_bytes(), revision_count(client)) == (old, before)
    assert drafts(client) == [mine]


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
