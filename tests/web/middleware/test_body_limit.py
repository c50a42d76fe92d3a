"""A body over the limit is refused through the one error renderer: JSON where the path
answers JSON (API, health, MCP), the error page elsewhere; the connection is closed."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from failref.config import Settings
from failref.web.factory import create_app

LIMIT = 1024


@pytest.fixture
def small_client(settings: Settings) -> TestClient:
    return TestClient(create_app(settings.model_copy(update={"max_body_bytes": LIMIT})))


@pytest.mark.parametrize("path", ["/api/v1/match", "/healthz", "/mcp"])
def test_a_json_path_gets_the_error_shape(small_client: TestClient, path: str) -> None:
    with small_client as client:
        response = client.post(path, content=b"x" * (LIMIT + 1))
    assert response.status_code == 413
    assert response.headers["connection"] == "close"
    assert response.json()["error"] == {
        "code": "payload_too_large",
        "message": f"the body is over the {LIMIT}-byte limit (a pasted log fits up to "
        "100,000 lines)",
        "field": None,
    }


def test_a_page_gets_the_error_page(small_client: TestClient) -> None:
    with small_client as client:
        response = client.post("/", content=b"log=" + b"x" * LIMIT)
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("text/html")
    assert f"the body is over the {LIMIT}-byte limit" in response.text
    assert '<link rel="stylesheet"' in response.text  # the site's own error page
    assert f"{LIMIT:,} bytes" in response.text  # the limits, in lines and bytes
    assert "100,000 lines" in response.text
    assert "tail -n 5000 train.log | failref scan -" in response.text
