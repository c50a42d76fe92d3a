"""Static files say how long to keep them: revalidated on each use, since their URLs do not
change between releases."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/static/style.css", id="stylesheet"),
        pytest.param("/static/app.js", id="script"),
        pytest.param("/static/favicon.svg", id="icon"),
    ],
)
def test_static_files_carry_cache_control_with_their_etag(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    etag = response.headers["etag"]
    again = client.get(path, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.headers["cache-control"] == "no-cache"  # a 304 renews the same policy
    assert again.content == b""


def test_a_missing_file_is_a_plain_404(client: TestClient) -> None:
    response = client.get("/static/nope.css")
    assert response.status_code == 404
    assert "cache-control" not in response.headers
