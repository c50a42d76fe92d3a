"""The PostgreSQL server stopped under a running app, then started again: while it is gone
every request that needs it answers 503 in the one error shape (a page for browsers), the
rest keeps serving from the snapshot (a paste loses only its gap, a reference page only its
readers' counts), nothing is saved; once it is back the same app (no
restart) is ready, matches, and saves again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from databases import POSTGRESQL_ONLY, PostgresServer
from editing_helpers import new_editor
from fastapi.testclient import TestClient
from httpx import Response

from failref.config import Settings
from failref.web.factory import create_app

# Nothing in the fixtures matches it, so a match records a gap: a write.
UNHEARD_OF = "an unheard-of failure zq81 in the flux capacitor"


@pytest.fixture
def stopped_and_started(postgres_server: PostgresServer) -> Iterator[PostgresServer]:
    """The server, started again at the end whatever the test did to it."""
    yield postgres_server
    postgres_server.control("start")


def put(client: TestClient, token: str, text: str, etag: str) -> Response:
    headers = {"content-type": "text/markdown", "authorization": f"Bearer {token}"}
    headers["if-match"] = etag
    return client.put("/api/v1/references/stuck-rank", content=text.encode(), headers=headers)


def assert_unavailable(response: Response) -> None:
    assert response.status_code == 503
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "field"}
    assert error["code"] == "unavailable"
    assert "postgres" not in response.text.lower()


@POSTGRESQL_ONLY
@pytest.mark.stops_postgresql
def test_the_database_going_away_is_a_503_and_the_app_recovers(
    settings: Settings, stopped_and_started: PostgresServer
) -> None:
    path = settings.references_dir / "stuck-rank.md"
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        token = new_editor(client)
        etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
        before = path.read_bytes()
        edited = before.decode().replace("A dead host.", "Saved after the outage.")

        stopped_and_started.control("stop")
        assert_unavailable(client.get("/readyz"))
        assert_unavailable(put(client, token, edited, etag))
        # Reads come from the snapshot, which outlives the database: a paste is answered
        # (only its gap is lost), and so is a reference page (without readers' counts).
        assert client.post("/api/v1/match", json={"log": UNHEARD_OF}).status_code == 200
        page = client.post("/", data={"log": UNHEARD_OF})
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert client.get("/r/stuck-rank").status_code == 200
        assert client.get("/api/v1/references/stuck-rank").headers["etag"] == etag
        assert path.read_bytes() == before

        stopped_and_started.control("start")
        assert client.get("/readyz").status_code == 200
        assert client.post("/api/v1/match", json={"log": UNHEARD_OF}).status_code == 200
        saved = put(client, token, edited, etag)
        assert saved.status_code == 200, saved.text
        assert client.get("/api/v1/references/stuck-rank").headers["etag"] != etag
