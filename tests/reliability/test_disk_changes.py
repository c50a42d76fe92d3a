"""The file changes or disappears on disk (a `git pull`, a `git rm`) while an editor holds
the old version: the save is refused (409 form, 412 API) with both versions, the text is
kept as a draft, the git change is kept, and a deleted file is never re-created by a save.

tests/test_editor.py covers a form save after a git change (409, both versions, draft);
this module covers the API side, deletion on both sides, changes that land in the middle
of a save, and the invariant: file bytes, revision count, the indexed hash and the
`reference` row are unchanged unless a 2xx came back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from editing_helpers import form_fields, library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from httpx import Response
from sqlmodel import Session, col, func, select

from failref.store import saves
from failref.store.models import DraftRow, ReferenceRow, RevisionRow

REFERENCE = "stuck-rank"
GIT_LINE = "3. **A host changed in git.**"
MY_LINE = "3. **My change.**"
CHANGED = "the reference changed since you started; nothing was saved"
DELETED = "the reference was deleted since you started; it was not re-created"


def path_of(client: TestClient) -> Path:
    return library_of(client).settings.references_dir / f"{REFERENCE}.md"


def state(client: TestClient) -> tuple[Any, ...]:
    """File bytes (None when absent), revision count, indexed hash, `reference` row."""
    library = library_of(client)
    path = path_of(client)
    data = path.read_bytes() if path.exists() else None
    with Session(library.engine) as session:
        revisions = session.exec(select(func.count()).select_from(RevisionRow)).one()
        row = session.get(ReferenceRow, REFERENCE)
        columns = (row.content_hash, row.document, row.loaded_at) if row else None
    return data, revisions, library.catalog.references[REFERENCE].content_hash, columns


def drafts(client: TestClient) -> list[str]:
    with Session(library_of(client).engine) as session:
        query = select(DraftRow).where(DraftRow.reference_id == REFERENCE)
        return [draft.text for draft in session.exec(query.order_by(col(DraftRow.id)))]


def leftovers(client: TestClient) -> list[Path]:
    return sorted(path_of(client).parent.glob(".*tmp-*"))


def git_pull(client: TestClient, data: bytes | None) -> None:
    """What a pull does to the working tree: new bytes, or the file gone."""
    if data is None:
        path_of(client).unlink()
    else:
        path_of(client).write_bytes(data)


def mine(text: str) -> str:
    return text.replace("3. **A dead host.**", MY_LINE)


def put(client: TestClient, token: str, text: str, **headers: str) -> Response:
    return client.put(
        f"/api/v1/references/{REFERENCE}",
        content=text.encode(),
        headers={"content-type": "text/markdown", "authorization": f"Bearer {token}", **headers},
    )


@pytest.fixture
def token(client: TestClient) -> str:
    return new_editor(client)


@pytest.fixture
def original(client: TestClient) -> str:
    return path_of(client).read_text()


def test_api_save_after_a_git_change_is_412_with_both_versions(
    client: TestClient, token: str, original: str
) -> None:
    etag = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    pulled = original.replace("3. **A dead host.**", GIT_LINE).encode()
    git_pull(client, pulled)
    before = state(client)
    for _attempt in range(2):  # never last-write-wins, however often it is retried
        response = put(client, token, mine(original), **{"if-match": etag})
        assert response.status_code == 412
        error = response.json()["error"]
        assert (error["code"], error["field"], error["message"]) == (
            "precondition_failed",
            "If-Match",
            CHANGED,
        )
        assert f"-{GIT_LINE}" in error["diff"]
        assert f"+{MY_LINE}" in error["diff"]
        assert state(client) == before
    assert path_of(client).read_bytes() == pulled
    assert drafts(client) == [mine(original)] * 2
    assert leftovers(client) == []


def test_the_git_change_is_kept_and_recorded_at_the_next_load(
    client: TestClient, token: str, original: str
) -> None:
    """After a 412 nothing of the pull is lost: the next load records it as a revision
    by `files`, serves its ETag, and a save based on that ETag succeeds."""
    etag = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    pulled = original.replace("3. **A dead host.**", GIT_LINE)
    git_pull(client, pulled.encode())
    assert put(client, token, mine(original), **{"if-match": etag}).status_code == 412
    library_of(client).reload()
    with Session(library_of(client).engine) as session:
        latest = session.exec(select(RevisionRow).order_by(col(RevisionRow.id).desc())).first()
    assert latest is not None
    assert (latest.author, latest.content) == ("files", pulled)
    fresh = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    assert fresh != etag
    merged = pulled.replace("Compilation on one rank.", "Compilation on one rank, merged.")
    assert put(client, token, merged, **{"if-match": fresh}).status_code == 200
    assert path_of(client).read_text() == merged


@pytest.mark.parametrize(
    ("change", "status"),
    [
        pytest.param(lambda data: data.replace(b"\n", b"\r\n"), 412, id="line-endings"),
        pytest.param(lambda data: data, 200, id="same-bytes-rewritten"),
    ],
)
def test_only_a_change_of_bytes_is_a_conflict(
    client: TestClient, token: str, original: str, change: Any, status: int
) -> None:
    """The base is the file's SHA-256: a checkout that rewrites line endings conflicts, one
    that rewrites the same bytes (a new mtime) does not."""
    etag = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    git_pull(client, change(original.encode()))
    before = state(client)
    response = put(client, token, mine(original), **{"if-match": etag})
    assert response.status_code == status
    if status == 200:
        assert path_of(client).read_text() == mine(original)
    else:
        assert state(client) == before


def test_api_save_to_a_deleted_file_is_412_and_never_recreates_it(
    client: TestClient, token: str, original: str
) -> None:
    etag = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    git_pull(client, None)
    before = state(client)
    attempts = [
        ({"if-match": etag}, 412),
        ({"if-match": "*"}, 412),  # "any current version": there is none
        ({}, 428),
    ]
    for headers, status in attempts:
        response = put(client, token, mine(original), **headers)
        assert response.status_code == status, response.text
        assert state(client) == before
        assert not path_of(client).exists()
    error = put(client, token, mine(original), **{"if-match": etag}).json()["error"]
    assert error["message"] == DELETED
    assert f"+{MY_LINE}" in error["diff"]
    assert drafts(client) == [mine(original)] * 3
    assert leftovers(client) == []
    # Only an explicit creation brings it back.
    created = put(client, token, mine(original), **{"if-none-match": "*"})
    assert created.status_code == 201
    assert path_of(client).read_text() == mine(original)


def test_form_save_to_a_deleted_file_is_409_and_never_recreates_it(
    client: TestClient, original: str
) -> None:
    sign_in(client)
    fields = form_fields(client.get(f"/r/{REFERENCE}/edit").text)
    git_pull(client, None)
    before = state(client)
    data = {**fields, "text": mine(original), "action": "save"}
    conflict = client.post(f"/r/{REFERENCE}/edit", data=data)
    assert conflict.status_code == 409
    assert DELETED in conflict.text
    assert "My change." in conflict.text
    assert state(client) == before
    assert drafts(client) == [mine(original)]
    # The conflict page's own form carries no base now; sending it again is refused too.
    again = {**form_fields(conflict.text), "text": mine(original), "action": "save"}
    assert again.get("base", "") == ""
    resent = client.post(f"/r/{REFERENCE}/edit", data=again)
    assert resent.status_code == 404
    assert state(client) == before
    assert client.get(f"/r/{REFERENCE}/edit").status_code == 404
    assert leftovers(client) == []


def test_restoring_a_revision_of_a_deleted_file_does_not_recreate_it(
    client: TestClient, original: str
) -> None:
    sign_in(client)
    fields = form_fields(client.get(f"/r/{REFERENCE}/edit").text)
    edit = {**fields, "text": mine(original), "action": "save"}
    assert client.post(f"/r/{REFERENCE}/edit", data=edit, follow_redirects=False).is_redirect
    history = client.get(f"/r/{REFERENCE}/history").text
    revision = min(int(n) for n in re.findall(rf"/r/{REFERENCE}/restore/(\d+)", history))
    git_pull(client, None)
    before = state(client)
    response = client.post(
        f"/r/{REFERENCE}/restore/{revision}", data={"csrf_token": fields["csrf_token"]}
    )
    assert response.status_code == 404
    assert state(client) == before


def test_form_conflict_after_a_git_change_offers_the_new_base(
    client: TestClient, original: str
) -> None:
    """The 409 page's form is based on the pulled file, so the editor can save a merge."""
    sign_in(client)
    fields = form_fields(client.get(f"/r/{REFERENCE}/edit").text)
    pulled = original.replace("3. **A dead host.**", GIT_LINE)
    git_pull(client, pulled.encode())
    before = state(client)
    data = {**fields, "text": mine(original), "action": "save"}
    conflict = client.post(f"/r/{REFERENCE}/edit", data=data)
    assert conflict.status_code == 409
    assert state(client) == before
    merged = pulled.replace("Compilation on one rank.", "Compilation on one rank, merged.")
    resolved = {**form_fields(conflict.text), "text": merged, "action": "save"}
    assert resolved["base"] != fields["base"]
    saved = client.post(f"/r/{REFERENCE}/edit", data=resolved, follow_redirects=False)
    assert saved.status_code == 303
    assert path_of(client).read_text() == merged


@pytest.mark.parametrize(
    ("landing", "message"),
    [
        pytest.param(None, DELETED, id="deleted"),
        pytest.param(b"pulled mid-save\n", CHANGED, id="changed"),
    ],
)
def test_a_change_landing_mid_save_is_caught_before_the_rename(
    client: TestClient,
    token: str,
    original: str,
    monkeypatch: pytest.MonkeyPatch,
    landing: bytes | None,
    message: str,
) -> None:
    """The base is compared after the temporary file is written, just before the rename:
    a pull that lands while the text is being written is still caught."""
    etag = client.get(f"/api/v1/references/{REFERENCE}").headers["etag"]
    write_temporary = saves.write_temporary

    def write_then_pull(path: Path, data: bytes) -> Path:
        temporary = write_temporary(path, data)
        git_pull(client, landing)
        return temporary

    before = state(client)
    monkeypatch.setattr(saves, "write_temporary", write_then_pull)
    response = put(client, token, mine(original), **{"if-match": etag})
    monkeypatch.undo()
    assert response.status_code == 412
    assert state(client)[1:] == before[1:]  # the file is git's now, the rest untouched
    assert response.json()["error"]["message"] == message
    if landing is None:
        assert not path_of(client).exists()
    else:
        assert path_of(client).read_bytes() == landing
    assert leftovers(client) == []
