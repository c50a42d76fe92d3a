"""Static files say how long to keep them: our own are revalidated (their URL does not
change between releases), versioned vendor files are kept a year."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

BUNDLE = "/static/vendor/swagger-ui-5.35.0/swagger-ui.css"


@pytest.mark.parametrize(
    ("path", "cache_control"),
    [
        pytest.param("/static/style.css", "no-cache", id="stylesheet"),
        pytest.param("/static/app.js", "no-cache", id="script"),
        pytest.param("/static/favicon.svg", "no-cache", id="icon"),
        pytest.param(BUNDLE, "public, max-age=31536000, immutable", id="vendored"),
    ],
)
def test_static_files_carry_cache_control_with_their_etag(
    client: TestClient, path: str, cache_control: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == cache_control
    etag = response.headers["etag"]
    again = client.get(path, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.headers["cache-control"] == cache_control  # a 304 renews the same policy
    assert again.content == b""


def test_a_missing_file_is_a_plain_404(client: TestClient) -> None:
    response = client.get("/static/nope.css")
    assert response.status_code == 404
    assert "cache-control" not in response.headers
