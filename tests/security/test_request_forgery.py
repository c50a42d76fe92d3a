"""Items 5, 6 and 7: a save is refused (403, nothing written) when it comes from another
site, carries a stale CSRF token or two kinds of credentials; state never changes through
GET, HEAD, TRACE or a method override; anonymous, expired, tampered and revoked credentials
get 401/403 on every mutating route and editor page, and nothing is written."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from editing_helpers import form_fields, new_editor, sign_in
from fastapi.testclient import TestClient
from httpx import Response
from security.helpers import Snapshot, library_of, module_settings, reference_text, snapshot
from sqlmodel import Session, func, select

from failref.store.editors import remove_editor
from failref.store.models import RevisionRow, SessionRow
from failref.web.factory import create_app
from failref.web.guards import SESSION_COOKIE

EDITED_MARK = "A host that died under us."


@dataclass
class World:
    """An app where editor "ann" is signed in by cookie (with an older session too), editor
    "bob" has a token, and revision `first_revision` differs from the file."""

    client: TestClient
    session_id: str
    older_session_csrf: str
    csrf: str
    token: str
    base: str
    etag: str
    first_revision: int
    text: str

    def edited(self) -> str:
        return self.text.replace("A dead host.", EDITED_MARK)

    def as_ann(self) -> TestClient:
        """The client with ann's current session cookie and nothing else."""
        self.client.cookies.clear()
        self.client.cookies.set(SESSION_COOKIE, self.session_id)
        return self.client


def build_world(client: TestClient) -> World:
    ann = sign_in(client, "ann")
    older_csrf = form_fields(client.get("/r/stuck-rank/edit").text)["csrf_token"]
    client.post("/login", data={"token": ann}, follow_redirects=False)  # a second session
    token = new_editor(client, "bob")
    library = library_of(client)
    text = (library.settings.references_dir / "stuck-rank.md").read_text()
    with Session(library.engine) as session:
        # An older revision that differs from the file: restoring it would change the file.
        older = RevisionRow(
            reference_id="stuck-rank",
            content_hash="0" * 64,
            content=text.replace("A deadlock", "A lock-up"),
            author="files",
            message="older",
        )
        session.add(older)
        session.commit()
        session.refresh(older)
        assert older.id is not None
        first = older.id
    fields = form_fields(client.get("/r/stuck-rank/edit").text)
    return World(
        client=client,
        session_id=client.cookies[SESSION_COOKIE],
        older_session_csrf=older_csrf,
        csrf=fields["csrf_token"],
        token=token,
        base=fields["base"],
        etag=client.get("/api/v1/references/stuck-rank").headers["etag"],
        first_revision=first,
        text=text,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One app for the tests whose requests must all be refused (so nothing changes)."""
    settings = module_settings(tmp_path_factory.mktemp("forgery"))
    with TestClient(create_app(settings)) as client:
        yield build_world(client)


@pytest.fixture
def world(site: World) -> World:
    site.as_ann()
    return site


@pytest.fixture
def fresh(client: TestClient) -> World:
    """A world of its own, for tests that save or revoke."""
    return build_world(client)


@dataclass(frozen=True)
class Call:
    """One request that changes state when it is accepted."""

    method: str
    path: str
    kind: str  # "edit", "new", "restore", "logout", "put"

    def send(
        self,
        client: TestClient,
        world: World,
        *,
        csrf: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        token = world.csrf if csrf is None else csrf
        path = self.path.format(rev=world.first_revision)
        form: dict[str, str] = {"csrf_token": token, "action": "save", "message": "forged"}
        if self.kind == "edit":
            form |= {"text": world.edited(), "base": world.base}
        elif self.kind == "new":
            form |= {"text": reference_text("forged-new")}
        elif self.kind == "put":
            all_headers = {"content-type": "text/markdown", "if-match": world.etag}
            all_headers |= headers or {}
            return client.put(path, content=world.edited().encode(), headers=all_headers)
        return client.request(
            self.method, path, data=form, headers=headers or {}, follow_redirects=False
        )


MUTATING = [
    pytest.param(Call("POST", "/r/stuck-rank/edit", "edit"), id="save-form"),
    pytest.param(Call("POST", "/new", "new"), id="create-form"),
    pytest.param(Call("POST", "/r/stuck-rank/restore/{rev}", "restore"), id="restore"),
    pytest.param(Call("POST", "/logout", "logout"), id="logout"),
    pytest.param(Call("PUT", "/api/v1/references/stuck-rank", "put"), id="api-put"),
]
EDITOR_PAGES = [
    pytest.param("/r/stuck-rank/edit", id="edit"),
    pytest.param("/new", id="new"),
    pytest.param("/r/stuck-rank/history", id="history"),
    pytest.param("/r/stuck-rank/history/1", id="revision-to-now"),
    pytest.param("/admin/gaps", id="gaps"),
    pytest.param("/admin/conflicts", id="conflicts"),
]


def live_sessions(client: TestClient) -> int:
    with Session(library_of(client).engine) as session:
        return session.exec(select(func.count()).select_from(SessionRow)).one()


def assert_nothing_written(client: TestClient, before: Snapshot, sessions: int) -> None:
    assert snapshot(client) == before
    assert live_sessions(client) == sessions
    assert not (library_of(client).settings.references_dir / "forged-new.md").exists()


# Item 5: cross-site saves -----------------------------------------------------------------

FOREIGN = [
    pytest.param({"sec-fetch-site": "cross-site"}, "cross-site requests", id="sec-fetch-cross"),
    pytest.param({"sec-fetch-site": "same-site"}, "cross-site requests", id="sec-fetch-same-site"),
    pytest.param({"origin": "https://evil.example"}, "another origin", id="foreign-origin"),
    pytest.param({"origin": "http://testserver.evil.example"}, "another origin", id="look-alike"),
    pytest.param({"origin": "https://testserver"}, "another origin", id="other-scheme"),
    pytest.param({"origin": "null"}, "another origin", id="null-origin"),
]


@pytest.mark.parametrize(("headers", "reason"), FOREIGN)
@pytest.mark.parametrize("call", MUTATING)
def test_a_save_from_another_site_is_403(
    world: World, call: Call, headers: dict[str, str], reason: str
) -> None:
    client = world.client
    before, sessions = snapshot(client), live_sessions(client)
    response = call.send(client, world, headers=headers)
    assert response.status_code == 403
    assert reason in response.text
    assert_nothing_written(client, before, sessions)


FORM_CALLS = [param for param in MUTATING if param.id != "api-put"]


@pytest.mark.parametrize("call", FORM_CALLS)
@pytest.mark.parametrize("stale", ["missing", "made-up", "previous-session"])
def test_a_form_without_this_sessions_csrf_token_is_403(
    world: World, call: Call, stale: str
) -> None:
    csrf = {"missing": "", "made-up": "x" * 43, "previous-session": world.older_session_csrf}
    client = world.client
    before, sessions = snapshot(client), live_sessions(client)
    response = call.send(client, world, csrf=csrf[stale])
    assert response.status_code == 403
    assert "CSRF token is missing or stale" in response.text
    assert_nothing_written(client, before, sessions)


@pytest.mark.parametrize("call", MUTATING)
def test_bearer_token_plus_cookie_is_403(world: World, call: Call) -> None:
    client = world.client
    before, sessions = snapshot(client), live_sessions(client)
    response = call.send(client, world, headers={"authorization": f"Bearer {world.token}"})
    assert response.status_code == 403
    assert "not both" in response.text
    assert_nothing_written(client, before, sessions)


def test_a_same_origin_save_succeeds(fresh: World) -> None:
    client = fresh.client
    before = snapshot(client)
    headers = {"sec-fetch-site": "same-origin", "origin": "http://testserver"}
    response = Call("POST", "/r/stuck-rank/edit", "edit").send(client, fresh, headers=headers)
    assert response.status_code == 303
    after = snapshot(client)
    assert EDITED_MARK.encode() in after.files["stuck-rank.md"]
    assert after.revisions == before.revisions + 1
    assert after.catalog_hashes["stuck-rank"] != before.catalog_hashes["stuck-rank"]


def test_a_token_save_needs_no_browser_headers(fresh: World) -> None:
    fresh.client.cookies.clear()
    call = Call("PUT", "/api/v1/references/stuck-rank", "put")
    response = call.send(fresh.client, fresh, headers={"authorization": f"Bearer {fresh.token}"})
    assert response.status_code == 200, response.text


# Item 6: no state change through other methods --------------------------------------------

OTHER_METHODS = [
    pytest.param("GET", "/r/stuck-rank/restore/{rev}", {}, id="GET-restore"),
    pytest.param("HEAD", "/r/stuck-rank/restore/{rev}", {}, id="HEAD-restore"),
    pytest.param("GET", "/logout", {}, id="GET-logout"),
    pytest.param("HEAD", "/logout", {}, id="HEAD-logout"),
    pytest.param("TRACE", "/r/stuck-rank/edit", {}, id="TRACE-edit"),
    pytest.param("TRACE", "/", {}, id="TRACE-home"),
    pytest.param("DELETE", "/api/v1/references/stuck-rank", {}, id="DELETE-api"),
    pytest.param("PATCH", "/api/v1/references/stuck-rank", {}, id="PATCH-api"),
    pytest.param("POST", "/api/v1/references/stuck-rank", {}, id="POST-api"),
    pytest.param(
        "POST", "/api/v1/references/stuck-rank", {"x-http-method-override": "PUT"}, id="override"
    ),
    pytest.param(
        "POST", "/api/v1/references/stuck-rank", {"x-method-override": "PUT"}, id="override-2"
    ),
    pytest.param("PUT", "/r/stuck-rank/edit", {}, id="PUT-edit-form"),
    pytest.param("DELETE", "/r/stuck-rank/edit", {}, id="DELETE-edit-form"),
]


@pytest.mark.parametrize("credential", ["session", "token"])
@pytest.mark.parametrize(("method", "path", "headers"), OTHER_METHODS)
def test_other_methods_are_405_and_write_nothing(
    world: World, method: str, path: str, headers: dict[str, str], credential: str
) -> None:
    client = world.client
    if credential == "token":
        client.cookies.clear()
        headers = {**headers, "authorization": f"Bearer {world.token}"}
    before, sessions = snapshot(client), live_sessions(client)
    all_headers = {"content-type": "text/markdown", "if-match": world.etag, **headers}
    response = client.request(
        method,
        path.format(rev=world.first_revision),
        content=world.edited().encode(),
        headers=all_headers,
    )
    assert response.status_code == 405
    if path.startswith("/api/") and method != "HEAD":
        assert response.json()["error"]["code"] == "method_not_allowed"
    assert_nothing_written(client, before, sessions)


@pytest.mark.parametrize("where", ["form", "query"])
def test_a_method_override_field_is_ignored(world: World, where: str) -> None:
    client = world.client
    before, sessions = snapshot(client), live_sessions(client)
    path = "/api/v1/references/stuck-rank"
    if where == "query":
        response = client.post(f"{path}?_method=PUT", content=world.edited().encode())
    else:
        response = client.post(path, data={"_method": "PUT", "text": world.edited()})
    assert response.status_code == 405
    overridden = client.post(
        f"/r/stuck-rank/restore/{world.first_revision}?_method=GET",
        data={"_method": "GET", "csrf_token": "stale"},
        headers={"x-http-method-override": "GET"},
    )
    assert overridden.status_code == 403  # still a POST: the CSRF check applies
    assert_nothing_written(client, before, sessions)


@pytest.mark.parametrize("path", ["/r/stuck-rank/edit", "/new"])
def test_a_save_through_get_writes_nothing(world: World, path: str) -> None:
    client = world.client
    before, sessions = snapshot(client), live_sessions(client)
    params = {"text": world.edited(), "base": world.base, "csrf_token": world.csrf}
    response = client.get(path, params={**params, "action": "save"})
    assert response.status_code == 200
    assert EDITED_MARK not in response.text
    assert_nothing_written(client, before, sessions)


# Item 7: who may change anything ----------------------------------------------------------


def expire_sessions(client: TestClient) -> None:
    with Session(library_of(client).engine) as session:
        for row in session.exec(select(SessionRow)):
            row.expires_at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            session.add(row)
        session.commit()


def revoke(client: TestClient, name: str) -> None:
    with Session(library_of(client).engine) as session:
        remove_editor(session, name)


def tampered(session_id: str) -> str:
    return ("A" if session_id[0] != "A" else "B") + session_id[1:]


def present(world: World, kind: str) -> dict[str, str]:
    """Put `kind` of credential on the client; return the headers to send with it."""
    client = world.client
    client.cookies.clear()
    if kind in ("expired-session", "revoked-session"):
        new_editor(client, "keeper")  # editing stays on: the refusal is about ann
        expire_sessions(client) if kind == "expired-session" else revoke(client, "ann")
        client.cookies.set(SESSION_COOKIE, world.session_id)
    elif kind == "tampered-session":
        client.cookies.set(SESSION_COOKIE, tampered(world.session_id))
    elif kind in TOKENS:
        if kind == "revoked-token":
            new_editor(client, "keeper")
            revoke(client, "bob")
        return {"authorization": f"Bearer {TOKENS[kind](world.token)}"}
    return {}


TOKENS = {
    "revoked-token": lambda token: token,
    "wrong-secret": lambda token: token[:-4] + "AAAA",
    "other-editors-id": lambda token: ".".join(["fr1", "1", token.split(".")[2]]),
    "foreign-format": lambda _: "ghp_" + "a" * 36,
}
CREDENTIALS = [
    "anonymous",
    "expired-session",
    "tampered-session",
    "revoked-session",
    *TOKENS,
]


@pytest.mark.parametrize("kind", CREDENTIALS)
def test_unproven_editors_change_nothing_and_see_no_editor_page(fresh: World, kind: str) -> None:
    client = fresh.client
    headers = present(fresh, kind)
    for param in MUTATING:
        call = param.values[0]
        assert isinstance(call, Call)
        before = snapshot(client)
        response = call.send(client, fresh, headers=headers)
        assert response.status_code == 401, (param.id, response.text)
        assert "sign in as an editor" in response.text or "token refused" in response.text
        assert snapshot(client) == before, param.id
        assert not (library_of(client).settings.references_dir / "forged-new.md").exists()
    for param in EDITOR_PAGES:
        response = client.get(str(param.values[0]), headers=headers)
        assert response.status_code == 401, param.id
        assert "csrf_token" not in response.text
        assert "torch._dynamo hit" not in response.text


def test_an_expired_session_is_deleted_on_sight(fresh: World) -> None:
    present(fresh, "expired-session")
    with Session(library_of(fresh.client).engine) as session:
        expired = session.exec(select(func.count()).select_from(SessionRow)).one()
    assert expired >= 2
    assert fresh.client.get("/r/stuck-rank/edit").status_code == 401
    with Session(library_of(fresh.client).engine) as session:
        left = session.exec(select(func.count()).select_from(SessionRow)).one()
    assert left == expired - 1
