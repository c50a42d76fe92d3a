"""Issue 34, item 3: retiring a reference, from the API and from the editor, in both stores
of record. It leaves every list at once; its page answers 410 with the reason or sends
readers to its replacement (301, with a note there); its history stays; restoring a
version brings it back; a stale version, a missing reason and an unknown replacement are
refused, naming the field, with nothing retired."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from editing_helpers import form_fields, library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from sqlmodel import select
from store_helpers import in_database_mode

from failref.config import Settings
from failref.services.folder_sync import export_references
from failref.store.db import reading
from failref.store.models import RetiredRow, RevisionRow
from failref.web.factory import create_app

RETIRE = "/api/v1/references/stuck-rank/retire"


@pytest.fixture(params=["folder", "database"])
def store_client(request: pytest.FixtureRequest, settings: Settings) -> Iterator[TestClient]:
    chosen = settings if request.param == "folder" else in_database_mode(settings)
    with TestClient(create_app(chosen)) as client:
        yield client


def etag(client: TestClient) -> str:
    return client.get("/api/v1/references/stuck-rank").headers["etag"]


def retire(client: TestClient, token: str, tag: str | None, **body: str | None):  # type: ignore[no-untyped-def]
    headers = {"authorization": f"Bearer {token}"}
    if tag is not None:
        headers["if-match"] = tag
    return client.post(RETIRE, json=body, headers=headers)


def listed(client: TestClient) -> set[str]:
    return {item["id"] for item in client.get("/api/v1/references").json()["references"]}


def test_the_api_retires_a_reference_with_its_reason(store_client: TestClient) -> None:
    client = store_client
    token = new_editor(client)
    response = retire(client, token, etag(client), reason="merged into the slow collective")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == "stuck-rank"
    assert body["reason"] == "merged into the slow collective"
    assert body["replaced_by"] is None
    assert body["history_url"] == "/r/stuck-rank/history"
    assert "stuck-rank" not in listed(client)
    gone = client.get("/api/v1/references/stuck-rank")
    assert gone.status_code == 410
    assert gone.json()["error"]["code"] == "gone"
    assert "merged into the slow collective" in gone.json()["error"]["message"]
    page = client.get("/r/stuck-rank")
    assert page.status_code == 410
    assert "merged into the slow collective" in page.text
    library = library_of(client)
    folder_file = library.settings.references_dir / "stuck-rank.md"
    assert folder_file.exists() == (library.settings.store_of_record == "database")
    with reading(library.engine) as session:
        assert session.get(RetiredRow, "stuck-rank") is not None
        kept = session.exec(select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank"))
        assert kept.all()


def test_a_replaced_reference_sends_readers_on_with_a_note(store_client: TestClient) -> None:
    client = store_client
    token = new_editor(client)
    response = retire(
        client, token, etag(client), reason="one page now", replaced_by="slow-collective"
    )
    assert response.status_code == 200, response.text
    moved = client.get("/r/stuck-rank", follow_redirects=False)
    assert moved.status_code == 301
    assert moved.headers["location"] == "/r/slow-collective?from=stuck-rank"
    landed = client.get(moved.headers["location"])
    assert "You were sent here from" in landed.text
    assert "one page now" in landed.text
    assert "You were sent here from" not in client.get("/r/slow-collective?from=x").text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reason": "   "}, "reason"),
        ({"reason": "x", "replaced_by": "no-such-page"}, "replaced_by"),
        ({"reason": "x", "replaced_by": "stuck-rank"}, "replaced_by"),
    ],
)
def test_a_bad_retirement_names_its_field_and_retires_nothing(
    client: TestClient, body: dict[str, str], field: str
) -> None:
    response = retire(client, new_editor(client), etag(client), **body)
    assert response.status_code == 422
    assert response.json()["error"]["field"] == field
    assert "stuck-rank" in listed(client)


def test_retiring_needs_the_current_version(client: TestClient) -> None:
    token = new_editor(client)
    assert retire(client, token, None, reason="x").status_code == 428
    stale = retire(client, token, '"' + "0" * 64 + '"', reason="x")
    assert stale.status_code == 412
    assert stale.json()["error"]["field"] == "If-Match"
    assert "stuck-rank" in listed(client)


def test_retiring_needs_an_editor(client: TestClient) -> None:
    new_editor(client)  # editing is on; this request names no editor
    response = client.post(RETIRE, json={"reason": "x"}, headers={"if-match": etag(client)})
    assert response.status_code == 401
    assert "stuck-rank" in listed(client)


def test_the_editor_retires_and_restoring_brings_it_back(store_client: TestClient) -> None:
    client = store_client
    sign_in(client)
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    response = client.post(
        "/r/stuck-rank/retire",
        data={**fields, "reason": "covered by the slow collective"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert client.get("/r/stuck-rank").status_code == 410
    history = client.get("/r/stuck-rank/history")
    assert history.status_code == 200
    restore = re_restore_form(history.text)
    back = client.post(restore, data=form_fields(history.text), follow_redirects=False)
    assert back.status_code == 303, back.text
    assert client.get("/r/stuck-rank").status_code == 200
    assert "stuck-rank" in listed(client)
    with reading(library_of(client).engine) as session:
        assert session.get(RetiredRow, "stuck-rank") is None


def re_restore_form(html: str) -> str:
    """The path of the newest revision's restore form on a history page."""
    found = re.search(r'action="[^"]*(/r/stuck-rank/restore/\d+)"', html)
    assert found is not None
    return found[1]


def test_the_editor_s_retire_form_shows_a_missing_reason_in_place(client: TestClient) -> None:
    sign_in(client)
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    response = client.post("/r/stuck-rank/retire", data={**fields, "reason": " "})
    assert response.status_code == 422
    assert 'id="retire-error"' in response.text
    assert "say why the reference is retired" in response.text
    assert client.get("/r/stuck-rank").status_code == 200


def test_a_database_mode_load_does_not_bring_back_the_retired_file(settings: Settings) -> None:
    """The folder of a database-mode replica still holds the file until an export: a
    restart must not import it again; an export removes it."""
    database = in_database_mode(settings)
    with TestClient(create_app(database)) as client:
        token = new_editor(client)
        assert retire(client, token, etag(client), reason="gone").status_code == 200
    with TestClient(create_app(database)) as restarted:
        assert restarted.get("/r/stuck-rank").status_code == 410
        exported = export_references(database, settings.references_dir)
    assert exported.removed == ["stuck-rank"]
    assert not (settings.references_dir / "stuck-rank.md").exists()


def test_a_file_brought_back_in_folder_mode_serves_again(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        text = (settings.references_dir / "stuck-rank.md").read_bytes()
        token = new_editor(client)
        assert retire(client, token, etag(client), reason="gone").status_code == 200
    (settings.references_dir / "stuck-rank.md").write_bytes(text)  # git restores it
    with TestClient(create_app(settings)) as restarted:
        assert restarted.get("/r/stuck-rank").status_code == 200
        with reading(library_of(restarted).engine) as session:
            assert session.get(RetiredRow, "stuck-rank") is None
