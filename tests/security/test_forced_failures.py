"""Item 22: forced failures (the database locked past its timeout, a database error inside a
save, corrupt reference files, malformed JSON, a wrong content type, an exception inside a
template) give the API's one error shape with a stable code and browsers the error page,
never a stack trace, SQL, a file path or a secret, and the app keeps serving."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from databases import WriteLockHolder
from editing_helpers import form_fields, new_editor, sign_in
from fastapi.testclient import TestClient
from httpx import Response
from security.helpers import Snapshot, library_of, snapshot
from sqlalchemy.exc import OperationalError

from failref.config import Settings
from failref.errors import HTTP_CODES
from failref.services import gap_queue
from failref.store import db, saves
from failref.web.factory import create_app
from failref.web.guards import SESSION_COOKIE
from failref.web.templating import templates

# Planted in the failures themselves: none of it may reach a response.
SECRET_SQL = "SELECT token_hash FROM editor WHERE password='Hunter2-Qx9zV'"
SECRET_PATH = "/srv/failref/private/keys.pem"
LEAKS = (
    "Traceback",
    'File "',
    "sqlite",
    "SELECT",
    "INSERT",
    "UPDATE ",
    "BEGIN",
    "Hunter2",
    "token_hash",
    SECRET_PATH,
    "/work/",
    ".py",
    "site-packages",
)


@dataclass
class Editors:
    client: TestClient
    token: str
    session_id: str
    csrf: str
    base: str
    etag: str
    text: str
    root: Path

    def edited(self) -> str:
        return self.text.replace("A dead host.", "A host lost under a lock.")

    def put(self) -> Response:
        self.client.cookies.clear()
        response = self.client.put(
            "/api/v1/references/stuck-rank",
            content=self.edited().encode(),
            headers={
                "content-type": "text/markdown",
                "authorization": f"Bearer {self.token}",
                "if-match": self.etag,
            },
        )
        self.client.cookies.set(SESSION_COOKIE, self.session_id)
        return response

    def save_form(self) -> Response:
        self.client.cookies.set(SESSION_COOKIE, self.session_id)
        data = {"csrf_token": self.csrf, "base": self.base, "text": self.edited()}
        return self.client.post("/r/stuck-rank/edit", data={**data, "action": "save"})


def build_editors(client: TestClient, root: Path) -> Editors:
    sign_in(client)
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    folder = library_of(client).settings.references_dir
    return Editors(
        client=client,
        token=new_editor(client, "bob"),
        session_id=client.cookies[SESSION_COOKIE],
        csrf=fields["csrf_token"],
        base=fields["base"],
        etag=client.get("/api/v1/references/stuck-rank").headers["etag"],
        text=(folder / "stuck-rank.md").read_text(),
        root=root,
    )


def assert_no_leak(response: Response, root: Path) -> None:
    for fragment in (*LEAKS, str(root)):
        assert fragment not in response.text, f"{fragment!r} leaked"


def assert_json_error(response: Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert {"code", "message", "field"} <= set(body["error"])
    assert body["error"]["code"] == HTTP_CODES[status]


def assert_error_page(response: Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert f"<h1>{status}</h1>" in response.text
    assert 'class="error-message"' in response.text


def assert_editor_kept_the_text(response: Response, status: int, editors: Editors) -> None:
    """A failed form save shows the editor again, with the editor's text and why."""
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert 'name="text"' in response.text
    assert "A host lost under a lock." in response.text
    assert "nothing was saved" in response.text


def assert_still_serving(client: TestClient) -> None:
    assert client.get("/readyz").status_code == 200
    assert client.get("/r/stuck-rank").status_code == 200
    assert client.post("/api/v1/match", json={"log": "NCCL timeout"}).status_code == 200


# The database locked past its busy timeout ------------------------------------------------


@pytest.fixture
def locked_app(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Editors]:
    # Writers give up after 0.2 s instead of 15 s, so a held lock fails fast.
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 200)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield build_editors(client, tmp_path)


@pytest.fixture
def held_lock(settings: Settings) -> Iterator[WriteLockHolder]:
    """Another process's writer on the database, holding the lock from `take` to `release`."""
    holder = WriteLockHolder(settings.database_url)
    yield holder
    holder.close()


def test_a_database_locked_past_the_timeout_is_a_clean_503(
    locked_app: Editors, held_lock: WriteLockHolder
) -> None:
    """A save answers 503; a paste is still answered, only its gap is lost (issue 35,
    item 7), and `/readyz` says so."""
    client = locked_app.client
    before = snapshot(client)
    held_lock.take()
    matched = client.post("/api/v1/match", json={"log": "an unheard-of failure xq7"})
    assert matched.status_code == 200, matched.text
    pasted = client.post("/", data={"log": "an unheard-of failure xq7"})
    assert pasted.status_code == 200
    assert library_of(client).gaps.flush(timeout=60)  # the writer met the lock, gave up
    assert "busy or unavailable" in client.get("/readyz").json()["storage"]
    put = locked_app.put()
    assert_json_error(put, 503)
    form = locked_app.save_form()
    assert_editor_kept_the_text(form, 503, locked_app)
    for response in (matched, pasted, put, form):
        assert_no_leak(response, locked_app.root)
        assert "locked" not in response.text
    assert snapshot(client) == before
    held_lock.release()
    assert_still_serving(client)
    assert locked_app.put().status_code == 200


# A database error inside a write ----------------------------------------------------------


def failing_database(*_args: Any, **_kwargs: Any) -> None:
    cause = sqlite3.OperationalError("disk I/O error")
    raise OperationalError(SECRET_SQL, {"path": SECRET_PATH}, cause)


@pytest.fixture
def quiet(settings: Settings) -> Iterator[TestClient]:
    """A client that gets the 500 response rather than the server's exception."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def editors(quiet: TestClient, tmp_path: Path) -> Editors:
    return build_editors(quiet, tmp_path)


@pytest.mark.parametrize("where", ["api", "form"])
def test_a_database_error_after_the_rename_puts_the_old_file_back(
    editors: Editors, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    client = editors.client
    before: Snapshot = snapshot(client)
    monkeypatch.setattr(saves, "store_reference", failing_database)
    response = editors.put() if where == "api" else editors.save_form()
    if where == "api":
        assert_json_error(response, 503)
    else:
        assert_editor_kept_the_text(response, 503, editors)
    assert_no_leak(response, editors.root)
    assert snapshot(client) == before
    assert list(library_of(client).settings.references_dir.glob(".*tmp-*")) == []
    monkeypatch.undo()
    assert_still_serving(client)
    assert editors.put().status_code == 200


def test_a_database_error_while_creating_leaves_no_file(
    editors: Editors, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = editors.client
    before = snapshot(client)
    monkeypatch.setattr(saves, "store_reference", failing_database)
    client.cookies.clear()
    text = editors.text.replace("id: stuck-rank", "id: brand-new").replace(
        "torch._dynamo hit", "a brand new failure hit"
    )
    response = client.put(
        "/api/v1/references/brand-new",
        content=text.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {editors.token}",
            "if-none-match": "*",
        },
    )
    assert_json_error(response, 503)
    assert_no_leak(response, editors.root)
    assert snapshot(client) == before
    assert not (library_of(client).settings.references_dir / "brand-new.md").exists()


def test_a_database_error_while_storing_a_gap_costs_the_gap_not_the_answer(
    editors: Editors, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35, item 7: the answer was worked out; a failed gap write must not throw it
    away. `/readyz` names the fault without the SQL or the path."""
    monkeypatch.setattr(gap_queue, "store_templates", failing_database)
    line = f"failure reading {SECRET_PATH} with password=Hunter2-Qx9zV"
    api = editors.client.post("/api/v1/match", json={"log": line})
    assert api.status_code == 200, api.text
    page = editors.client.post("/", data={"log": line})
    assert page.status_code == 200
    assert library_of(editors.client).gaps.flush(timeout=30)
    ready = editors.client.get("/readyz")
    assert "the database is busy or unavailable" in ready.json()["storage"]
    # The answers echo the paste (the reader's own text); the fault's SQL does not reach
    # them, nor anything of it `/readyz`.
    assert_no_leak(ready, editors.root)
    for response in (api, page):
        assert SECRET_SQL not in response.text
    monkeypatch.undo()
    assert_still_serving(editors.client)


# Corrupt reference files at load ----------------------------------------------------------

CORRUPT = {
    "invalid-utf8.md": b"---\nid: invalid-utf8\ntitle: \xff\xfe broken\n---\n",
    "nul-bytes.md": b"---\x00\nid: nul-bytes\x00\n---\n\x00\x00",
    "empty.md": b"",
    "only-dashes.md": b"---\n---\n",
    "binary.md": bytes(range(256)) * 8,
    "truncated.md": b"---\nid: truncated\ntitle: A file cut off mid-wri",
}


def test_corrupt_reference_files_are_reported_and_the_rest_serves(
    settings: Settings, references_dir: Path, tmp_path: Path
) -> None:
    for name, data in CORRUPT.items():
        (references_dir / name).write_bytes(data)
    (references_dir / "a-folder.md").mkdir()
    with TestClient(create_app(settings)) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["problems"] >= len(CORRUPT)
        problems = {p.path for p in library_of(client).catalog.problems}
        assert {f"references/{name}" for name in CORRUPT} <= problems
        for name in CORRUPT:
            page = client.get(f"/r/{name.removesuffix('.md')}")
            assert page.status_code == 404
            assert_no_leak(page, tmp_path)
        assert_still_serving(client)


# Malformed bodies and wrong content types -------------------------------------------------

MALFORMED_JSON = [
    pytest.param(b'{"log": ', id="truncated"),
    pytest.param(b"[" * 100_000, id="nested-100k"),
    pytest.param(b"null", id="null"),
    pytest.param(b'"just a string"', id="string"),
    pytest.param(b"[]", id="array"),
    pytest.param(b'{"log": 5}', id="wrong-type"),
    pytest.param(b'{"log": "x", "limit": NaN}', id="nan"),
    pytest.param(b'{"log": "x", "limit": 1e999999}', id="huge-number"),
    pytest.param(b'{"log": "\xff\xfe"}', id="invalid-utf8"),
    pytest.param(b'\xef\xbb\xbf{"log": "x"}', id="bom"),
    pytest.param(b'{"log": "x", "log": "' + b"y" * 10 + b'"}', id="duplicate-key"),
    pytest.param(b"", id="empty"),
]


@pytest.mark.parametrize("body", MALFORMED_JSON)
@pytest.mark.parametrize(
    "path", ["/api/v1/match", "/api/v1/scan", "/api/v1/calculators/pipeline-bubble"]
)
def test_malformed_json_gets_the_error_shape(
    shared_client: TestClient, path: str, body: bytes, tmp_path: Path
) -> None:
    response = shared_client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code < 500
    if response.status_code >= 400:
        assert_json_error(response, response.status_code)
    assert_no_leak(response, tmp_path)


WRONG_TYPES = [
    pytest.param("text/plain", id="text-plain"),
    pytest.param("application/x-www-form-urlencoded", id="form"),
    pytest.param("multipart/form-data; boundary=x", id="multipart"),
    pytest.param("application/jsonp", id="jsonp"),
    pytest.param("text/json", id="text-json"),
    pytest.param("", id="missing"),
]


@pytest.mark.parametrize("content_type", WRONG_TYPES)
def test_a_wrong_content_type_is_415(shared_client: TestClient, content_type: str) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = shared_client.post("/api/v1/match", content=b'{"log": "x"}', headers=headers)
    assert_json_error(response, 415)


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/x-www-form-urlencoded", ""]
)
def test_a_put_with_a_wrong_content_type_is_415(editors: Editors, content_type: str) -> None:
    before = snapshot(editors.client)
    editors.client.cookies.clear()
    headers = {"authorization": f"Bearer {editors.token}", "if-match": editors.etag}
    if content_type:
        headers["content-type"] = content_type
    response = editors.client.put(
        "/api/v1/references/stuck-rank", content=editors.edited().encode(), headers=headers
    )
    assert_json_error(response, 415)
    assert snapshot(editors.client) == before


def test_a_put_of_invalid_utf8_is_422(editors: Editors) -> None:
    before = snapshot(editors.client)
    editors.client.cookies.clear()
    response = editors.client.put(
        "/api/v1/references/stuck-rank",
        content=editors.edited().encode() + b"\xff\xfe\x00",
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {editors.token}",
            "if-match": editors.etag,
        },
    )
    assert_json_error(response, 422)
    assert snapshot(editors.client) == before


def test_a_json_body_to_the_paste_form_gets_a_page(shared_client: TestClient) -> None:
    response = shared_client.post(
        "/", content=b'{"log": "x"}', headers={"content-type": "application/json"}
    )
    assert 400 <= response.status_code < 500
    assert response.headers["content-type"].startswith("text/html")


# An exception inside a template -----------------------------------------------------------


def exploding(*_args: Any, **_kwargs: Any) -> str:
    raise RuntimeError(f"template failed reading {SECRET_PATH}: {SECRET_SQL}")


@pytest.mark.parametrize("path", ["/r/slow-collective", "/r/stuck-rank"])
def test_an_exception_inside_a_template_gets_the_error_page(
    quiet: TestClient, monkeypatch: pytest.MonkeyPatch, path: str, tmp_path: Path
) -> None:
    monkeypatch.setitem(templates.env.globals, "url_with_query", exploding)
    response = quiet.get(path)
    assert_error_page(response, 500)
    assert "Something went wrong" in response.text
    assert_no_leak(response, tmp_path)
    monkeypatch.undo()
    assert_still_serving(quiet)


def test_an_exception_inside_the_error_page_still_leaks_nothing(
    quiet: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(templates.env.globals, "url_for", exploding)
    page = quiet.get("/references")
    api = quiet.get("/api/v1/references/no-such-id")
    assert page.status_code == 500
    assert_no_leak(page, tmp_path)
    assert "RuntimeError" not in page.text
    assert_json_error(api, 404)  # the API draws no template
    monkeypatch.undo()
    assert_still_serving(quiet)
