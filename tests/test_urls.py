"""Every path spelled once: the builders agree with the routes the app declares."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from failref import urls


def test_a_reference_path_is_the_route_of_its_page(client: TestClient) -> None:
    routed = client.app.url_path_for("reference_page", reference_id="stuck-rank")  # type: ignore[attr-defined]
    assert urls.reference_path("stuck-rank") == str(routed) == "/r/stuck-rank"
    assert client.get(urls.reference_path("stuck-rank")).status_code == 200


def test_the_api_reference_prefix_answers_a_reference(client: TestClient) -> None:
    assert client.get(urls.API_REFERENCE_PREFIX + "stuck-rank").json()["id"] == "stuck-rank"


def test_a_reference_list_path_is_the_route_of_the_api_list(client: TestClient) -> None:
    routed = client.app.url_path_for("api_list_references")  # type: ignore[attr-defined]
    assert urls.reference_list_path({}) == str(routed) == "/api/v1/references"
    query = {"tag": "nccl", "q": None, "limit": "1", "offset": "1"}
    path = urls.reference_list_path(query)
    assert path == "/api/v1/references?tag=nccl&limit=1&offset=1"
    assert [r["id"] for r in client.get(path).json()["references"]] == ["stuck-rank"]


@pytest.mark.parametrize(
    ("href", "found"),
    [("/r/stuck-rank", "stuck-rank"), ("/references", None), ("https://x.org/r/a", None)],
)
def test_a_site_link_names_its_reference(href: str, found: str | None) -> None:
    assert urls.reference_id_in_path(href) == found


@pytest.mark.parametrize(
    ("path", "json"),
    [
        ("/api/v1/match", True),
        ("/healthz", True),
        ("/readyz", True),
        ("/mcp", True),
        ("/", False),
        ("/r/stuck-rank", False),
        ("/apiary", False),
    ],
)
def test_which_paths_answer_json(path: str, json: bool) -> None:
    assert urls.answers_json(path) is json
