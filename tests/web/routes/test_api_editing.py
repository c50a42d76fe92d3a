"""PUT /api/v1/references/{id}: ETags, preconditions, validation, racing writers; and
GET /api/v1/references/{id}/text, the file a PUT sends back."""

from __future__ import annotations

import threading

import pytest
from editing_helpers import library_of, new_editor
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from failref.store.models import DraftRow, RevisionRow


def put(client: TestClient, text: str, token: str | None, **headers: str):  # type: ignore[no-untyped-def]
    all_headers = {"content-type": "text/markdown", **headers}
    if token:
        all_headers["authorization"] = f"Bearer {token}"
    return client.put("/api/v1/references/stuck-rank", content=text.encode(), headers=all_headers)


def state(client: TestClient) -> tuple[bytes, int, str]:
    """File bytes, revision count and indexed hash: unchanged unless a 2xx came back."""
    library = library_of(client)
    data = (library.settings.references_dir / "stuck-rank.md").read_bytes()
    with Session(library.engine) as session:
        count = session.exec(select(func.count()).select_from(RevisionRow)).one()
    return data, count, library.catalog.references["stuck-rank"].content_hash


@pytest.fixture
def token(client: TestClient) -> str:
    return new_editor(client)


def current(client: TestClient) -> tuple[str, str]:
    response = client.get("/api/v1/references/stuck-rank")
    text = (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    return text, response.headers["etag"]


def test_get_carries_an_etag_and_honours_if_none_match(client: TestClient) -> None:
    response = client.get("/api/v1/references/stuck-rank")
    etag = response.headers["etag"]
    assert etag.startswith('"')
    assert len(etag) == 66
    cached = client.get("/api/v1/references/stuck-rank", headers={"if-none-match": etag})
    assert cached.status_code == 304


def test_put_with_the_current_etag_saves(client: TestClient, token: str) -> None:
    text, etag = current(client)
    edited = text.replace("A dead host.", "A host that died.")
    response = put(client, edited, token, **{"if-match": etag, "x-change-message": "api edit"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"id", "revision", "etag", "url"}
    assert response.headers["etag"] == body["etag"] != etag
    assert (
        client.get("/api/v1/references/stuck-rank").json()["causes"][2]["title"]
        == "A host that died"
    )


def test_put_with_a_stale_etag_is_412_with_a_diff(client: TestClient, token: str) -> None:
    text, etag = current(client)
    put(client, text.replace("A dead host.", "First."), token, **{"if-match": etag})
    before = state(client)
    response = put(client, text.replace("A dead host.", "Second."), token, **{"if-match": etag})
    assert response.status_code == 412
    error = response.json()["error"]
    assert error["code"] == "precondition_failed"
    assert "+3. **Second.**" in error["diff"]
    assert state(client) == before
    with Session(library_of(client).engine) as session:
        drafts = session.exec(select(DraftRow)).all()
    assert [d.text for d in drafts] == [text.replace("A dead host.", "Second.")]


def test_a_stale_etag_is_412_even_when_the_changes_would_merge(
    client: TestClient, token: str
) -> None:
    """If-Match is a precondition: the API never merges (the editor page does); the client
    merges on its 412."""
    text, etag = current(client)
    title = "title: One rank is stuck while the others wait"
    summary = "summary: A rank stops making progress and its peers time out in a collective."
    assert put(client, text.replace(title, "title: X"), token, **{"if-match": etag}).is_success
    before = state(client)
    response = put(client, text.replace(summary, "summary: Y."), token, **{"if-match": etag})
    assert response.status_code == 412
    assert state(client) == before


def test_crlf_bodies_save_plain_newlines_and_diff_only_what_changed(
    client: TestClient, token: str
) -> None:
    text, etag = current(client)
    crlf = text.replace("A dead host.", "First.").replace("\n", "\r\n")
    assert put(client, crlf, token, **{"if-match": etag}).status_code == 200
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    assert path.read_bytes() == text.replace("A dead host.", "First.").encode()
    stale = text.replace("A dead host.", "Second.").replace("\n", "\r\n")
    error = put(client, stale, token, **{"if-match": etag}).json()["error"]
    changed = [line for line in error["diff"].splitlines() if line[:1] in "+-"]
    assert changed[2:] == [
        "-3. **First.** The process is gone.",
        "+3. **Second.** The process is gone.",
    ]


def test_put_without_if_match_is_428(client: TestClient, token: str) -> None:
    before = state(client)
    response = put(client, current(client)[0], token)
    assert response.status_code == 428
    assert state(client) == before


def test_invalid_file_is_422_with_every_problem(client: TestClient, token: str) -> None:
    text, etag = current(client)
    before = state(client)
    broken = text.replace("## Sources", "## Sauces").replace("category: training", "category: x")
    response = put(client, broken, token, **{"if-match": etag})
    assert response.status_code == 422
    problems = response.json()["error"]["problems"]
    assert any("category must be one of" in p for p in problems)
    assert any("missing section 'Sources'" in p for p in problems)
    assert state(client) == before


@pytest.mark.parametrize(
    ("token_value", "status"),
    [
        pytest.param(None, 401, id="anonymous"),
        pytest.param("fr1.1.wrong", 401, id="wrong-token"),
    ],
)
def test_unauthenticated_put_is_refused(
    client: TestClient, token: str, token_value: str | None, status: int
) -> None:
    text, etag = current(client)
    before = state(client)
    assert put(client, text, token_value, **{"if-match": etag}).status_code == status
    assert state(client) == before


def test_wrong_content_type_and_oversized_body(client: TestClient, token: str) -> None:
    text, etag = current(client)
    before = state(client)
    wrong = put(client, text, token, **{"if-match": etag, "content-type": "application/json"})
    assert wrong.status_code == 415
    huge = put(client, text + "x" * 300_000, token, **{"if-match": etag})
    assert huge.status_code == 413
    assert state(client) == before


@pytest.mark.parametrize(
    "reference_id",
    ["..%2f..%2fetc%2fpasswd", "UPPER", "a_b", "x" * 200],
)
def test_bad_ids_are_refused_before_touching_files(
    client: TestClient, token: str, reference_id: str
) -> None:
    text, etag = current(client)
    response = client.put(
        f"/api/v1/references/{reference_id}",
        content=text.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": etag,
        },
    )
    assert response.status_code in (404, 422)


def test_create_with_if_none_match_star(client: TestClient, token: str) -> None:
    text, _ = current(client)
    created = text.replace("id: stuck-rank", "id: via-api").replace(
        "torch._dynamo hit", "api failure hit"
    )
    response = client.put(
        "/api/v1/references/via-api",
        content=created.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-none-match": "*",
        },
    )
    assert response.status_code == 201, response.text
    assert client.get("/api/v1/references/via-api").status_code == 200


@pytest.mark.parametrize("device", ["con", "nul", "com1", "lpt9"])
def test_a_windows_device_name_is_no_id(client: TestClient, token: str, device: str) -> None:
    """Issue 35, item 12: a checkout holding `con.md` cannot be cloned on Windows."""
    text, _ = current(client)
    response = client.put(
        f"/api/v1/references/{device}",
        content=text.replace("id: stuck-rank", f"id: {device}").encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-none-match": "*",
        },
    )
    assert response.status_code == 422, response.text
    assert "Windows device name" in response.json()["error"]["message"]
    assert client.get(f"/api/v1/references/{device}").status_code == 404


def test_racing_saves_from_one_base_exactly_one_wins(client: TestClient, token: str) -> None:
    text, etag = current(client)
    statuses: list[int] = []

    def save(number: int) -> None:
        edited = text.replace("A dead host.", f"Writer {number}.")
        statuses.append(put(client, edited, token, **{"if-match": etag}).status_code)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 412, 412, 412, 412, 412]


def test_if_match_star_overwrites_an_existing_file_only(client: TestClient, token: str) -> None:
    text, _ = current(client)
    edited = text.replace("A dead host.", "Any version will do.")
    assert put(client, edited, token, **{"if-match": "*"}).status_code == 200
    missing = client.put(
        "/api/v1/references/not-there",
        content=edited.replace("id: stuck-rank", "id: not-there")
        .replace("hit config.recompile_limit", "saw a frobnicator overflow")
        .encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": "*",
        },
    )
    assert missing.status_code == 412
    assert not (library_of(client).settings.references_dir / "not-there.md").exists()


def test_if_none_match_lists_and_weak_tags(client: TestClient) -> None:
    etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
    for header in (f'"other", {etag}', f"W/{etag}", "*"):
        response = client.get("/api/v1/references/stuck-rank", headers={"if-none-match": header})
        assert response.status_code == 304, header
    assert (
        client.get(
            "/api/v1/references/stuck-rank", headers={"if-none-match": '"other"'}
        ).status_code
        == 200
    )


def test_a_successful_save_discards_the_kept_draft(client: TestClient, token: str) -> None:
    text, etag = current(client)
    put(client, text.replace("A dead host.", "First."), token, **{"if-match": etag})
    put(client, text.replace("A dead host.", "Stale."), token, **{"if-match": etag})
    with Session(library_of(client).engine) as session:
        assert len(session.exec(select(DraftRow)).all()) == 1
    _, fresh = current(client)
    assert (
        put(
            client, text.replace("A dead host.", "Merged."), token, **{"if-match": fresh}
        ).status_code
        == 200
    )
    with Session(library_of(client).engine) as session:
        assert session.exec(select(DraftRow)).all() == []


def test_the_text_of_a_reference_is_read_with_the_etag_a_put_sends_back(
    client: TestClient, token: str
) -> None:
    """Audit item 14 (issue 35): a script following the If-Match flow had to scrape the
    editor's textarea for the Markdown."""
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    response = client.get("/api/v1/references/stuck-rank/text")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.content == path.read_bytes()
    etag = response.headers["etag"]
    assert etag == client.get("/api/v1/references/stuck-rank").headers["etag"]
    assert (
        client.get(
            "/api/v1/references/stuck-rank/text", headers={"if-none-match": etag}
        ).status_code
        == 304
    )
    edited = response.text.replace("A dead host.", "A host that died.")
    saved = put(client, edited, token, **{"if-match": etag})
    assert saved.status_code == 200, saved.text
    again = client.get("/api/v1/references/stuck-rank/text")
    assert again.text == edited
    assert again.headers["etag"] == saved.headers["etag"] != etag


@pytest.mark.parametrize("reference_id", ["no-such-thing", "UPPER", "con"])
def test_the_text_of_a_missing_or_bad_id_is_an_error_in_the_one_shape(
    client: TestClient, reference_id: str
) -> None:
    response = client.get(f"/api/v1/references/{reference_id}/text")
    assert response.status_code in (404, 422)
    assert response.json()["error"]["field"] == "id"
