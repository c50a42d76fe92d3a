"""Item 8: sign-in redirects stay on this site, tokens never travel in URLs, the session
cookie is hardened, and logging out ends the session on the server."""

from __future__ import annotations

from collections.abc import Iterator
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import pytest
from databases import SQLITE_ONLY
from editing_helpers import form_fields, new_editor, sign_in
from fastapi.testclient import TestClient
from security.helpers import checkpoint, database_files, library_of, snapshot
from sqlmodel import Session, func, select

from failref.config import Settings
from failref.store.models import SessionRow
from failref.web.factory import create_app
from failref.web.guards import SESSION_COOKIE

OFF_SITE = [
    "//evil.example",
    "https://evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "///evil.example",
    "/\\/evil.example",
    " //evil.example",
    "\t//evil.example",
    "/\t/evil.example",
    "https:evil.example",
    "javascript:alert(1)",
    "/%0d%0aSet-Cookie:x=1",
    "/\r\nSet-Cookie: x=1",
    "evil.example",
]


def sessions(client: TestClient) -> int:
    with Session(library_of(client).engine) as session:
        return session.exec(select(func.count()).select_from(SessionRow)).one()


def is_same_origin_path(location: str) -> bool:
    """What a browser resolves `location` to, relative to http://testserver/, stays there."""
    parts = urlsplit(location.replace("\\", "/").strip())
    return (
        not parts.scheme
        and not parts.netloc
        and location.startswith("/")
        and not location.startswith(("//", "/\\"))
        and not any(c in location for c in "\r\n\t")
    )


@pytest.fixture
def token(client: TestClient) -> str:
    return new_editor(client)


@pytest.fixture(scope="module")
def shared_token(shared_client: TestClient) -> str:
    return new_editor(shared_client, "redirected")


@pytest.mark.parametrize("target", OFF_SITE)
def test_sign_in_never_redirects_off_site(
    shared_client: TestClient, shared_token: str, target: str
) -> None:
    response = shared_client.post(
        "/login", data={"token": shared_token, "next": target}, follow_redirects=False
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert is_same_origin_path(location), location
    assert "evil" not in location
    assert "set-cookie: x" not in str(response.headers).lower()


@pytest.mark.parametrize("target", OFF_SITE)
def test_the_sign_in_form_carries_only_a_same_origin_next(
    shared_client: TestClient, target: str
) -> None:
    page = shared_client.get("/login", params={"next": target})
    assert page.status_code == 200
    assert 'name="next" value="/"' in page.text


def test_a_same_origin_next_is_kept(client: TestClient, token: str) -> None:
    response = client.post(
        "/login", data={"token": token, "next": "/r/stuck-rank?x=1"}, follow_redirects=False
    )
    assert response.headers["location"] == "/r/stuck-rank?x=1"


@pytest.mark.parametrize("name", ["token", "access_token"])
def test_a_token_in_the_url_is_refused(client: TestClient, token: str, name: str) -> None:
    before = sessions(client)
    form = client.get("/login", params={name: token})
    # `?token=` is refused outright; any other name is simply never read as a credential.
    assert form.status_code == (422 if name == "token" else 200)
    # Posting the token in the query string instead of the form signs nobody in.
    posted = client.post(f"/login?{name}={token}", follow_redirects=False)
    assert posted.status_code == 422
    assert SESSION_COOKIE not in posted.headers.get("set-cookie", "")
    assert sessions(client) == before


@pytest.mark.parametrize("name", ["token", "access_token", "authorization"])
def test_the_api_ignores_a_token_in_the_url(client: TestClient, token: str, name: str) -> None:
    before = snapshot(client)
    etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
    text = (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    response = client.put(
        f"/api/v1/references/stuck-rank?{name}={token}",
        content=text.replace("A dead host.", "Saved via the URL.").encode(),
        headers={"content-type": "text/markdown", "if-match": etag},
    )
    assert response.status_code == 401
    assert snapshot(client) == before


def session_cookie(response_headers: list[tuple[str, str]]) -> str:
    cookies = [value for name, value in response_headers if name.lower() == "set-cookie"]
    [cookie] = [value for value in cookies if value.startswith(f"{SESSION_COOKIE}=")]
    return cookie


@pytest.fixture
def https_client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        yield client


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_the_session_cookie_is_hardened(
    client: TestClient, https_client: TestClient, scheme: str
) -> None:
    chosen = https_client if scheme == "https" else client
    token = new_editor(chosen, f"ed-{scheme}")
    response = chosen.post("/login", data={"token": token}, follow_redirects=False)
    raw = session_cookie(response.headers.multi_items())
    morsel = SimpleCookie(raw)[SESSION_COOKIE]
    assert morsel["httponly"] is True
    assert morsel["samesite"].lower() in ("lax", "strict")
    assert morsel["path"] == "/"
    assert bool(morsel["secure"]) is (scheme == "https")
    assert token not in raw
    assert len(morsel.value) >= 32


def test_logout_ends_the_session_on_the_server(client: TestClient) -> None:
    sign_in(client)
    stolen = client.cookies[SESSION_COOKIE]
    csrf = form_fields(client.get("/r/stuck-rank/edit").text)["csrf_token"]
    assert sessions(client) == 1
    response = client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert response.status_code == 303
    assert 'failref_session=""' in response.headers["set-cookie"]
    assert sessions(client) == 0
    client.cookies.set(SESSION_COOKIE, stolen)  # a copy of the cookie kept elsewhere
    assert client.get("/r/stuck-rank/edit").status_code == 401


@SQLITE_ONLY  # reads the database file and its WAL byte for byte
def test_the_database_holds_no_session_id_or_token(client: TestClient) -> None:
    token = sign_in(client)
    session_id = client.cookies[SESSION_COOKIE]
    for when in ("before", "after"):
        files = database_files(library_of(client))
        assert files, "no database file found"
        for name, data in files.items():
            assert session_id.encode() not in data, (when, name)
            assert token.split(".")[2].encode() not in data, (when, name)
        checkpoint(library_of(client))
