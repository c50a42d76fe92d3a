"""GET /api/v1/references/{id} answered before routing: the same reply as the route."""

from __future__ import annotations

import asyncio

from fastapi.testclient import TestClient
from starlette.requests import Request

from failref.config import Settings
from failref.web.factory import create_app
from failref.web.routes.api import api_get_reference


def route_reply(
    client: TestClient, reference_id: str, if_none_match: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """What the FastAPI route itself answers, bypassing the fast path."""
    headers = [(b"if-none-match", if_none_match.encode())] if if_none_match else []
    scope = {"type": "http", "method": "GET", "path": "/", "headers": headers, "app": client.app}
    response = asyncio.run(api_get_reference(Request(scope), reference_id))
    return response.status_code, dict(response.headers), bytes(response.body)


def test_fast_path_answers_exactly_what_the_route_answers(client: TestClient) -> None:
    fast = client.get("/api/v1/references/stuck-rank")
    status, headers, body = route_reply(client, "stuck-rank")
    assert (fast.status_code, fast.content) == (status, body)
    assert fast.headers["etag"] == headers["etag"]
    assert fast.headers["content-type"] == headers["content-type"] == "application/json"
    assert fast.json()["url"] == "/r/stuck-rank"


def test_conditional_and_head_requests(client: TestClient) -> None:
    etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
    cached = client.get("/api/v1/references/stuck-rank", headers={"if-none-match": etag})
    assert cached.status_code == 304
    assert cached.content == b""
    assert route_reply(client, "stuck-rank", etag)[0] == 304
    head = client.head("/api/v1/references/stuck-rank")
    assert head.status_code == 200
    assert head.content == b""


def test_security_headers_still_apply(client: TestClient) -> None:
    headers = client.get("/api/v1/references/stuck-rank").headers
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"


def test_unknown_ids_aliases_and_deeper_paths_fall_through_to_the_app(client: TestClient) -> None:
    for path in ("/api/v1/references/nope", "/api/v1/references/old-slow-collective"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert client.get("/api/v1/references/stuck-rank/extra").status_code == 404
    assert client.get("/api/v1/references").json()["count"] == 2


def test_cors_headers_are_added_to_fast_replies(settings: Settings) -> None:
    with TestClient(
        create_app(settings.model_copy(update={"cors_origins": ["https://tool.example"]}))
    ) as cors:
        response = cors.get(
            "/api/v1/references/stuck-rank", headers={"origin": "https://tool.example"}
        )
    assert response.headers["access-control-allow-origin"] == "https://tool.example"
