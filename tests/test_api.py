"""The JSON API: status, content type, exact keys, and the one error shape."""

from __future__ import annotations

from fastapi.testclient import TestClient

SUMMARY_KEYS = {
    "id",
    "title",
    "summary",
    "category",
    "tags",
    "frameworks",
    "phases",
    "hardware",
    "updated",
    "url",
}


def test_list_references_returns_summaries_in_title_order(client: TestClient) -> None:
    response = client.get("/api/v1/references")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["count"] == 2
    assert [r["id"] for r in body["references"]] == ["slow-collective", "stuck-rank"]
    assert set(body["references"][0]) == SUMMARY_KEYS
    assert body["references"][0]["url"] == "/r/slow-collective"


def test_list_filters_combine(client: TestClient) -> None:
    def ids(**params: str) -> list[str]:
        response = client.get("/api/v1/references", params=params)
        return [r["id"] for r in response.json()["references"]]

    assert ids(tag="hang") == ["stuck-rank"]
    assert ids(phase="compilation") == ["stuck-rank"]
    assert ids(framework="nccl") == ["slow-collective"]
    assert ids(category="inference") == []
    assert ids(q="recompile_limit") == ["stuck-rank"]
    assert ids(q="NCCL", tag="nccl") == ["slow-collective", "stuck-rank"]


def test_get_reference_returns_the_structured_document(client: TestClient) -> None:
    response = client.get("/api/v1/references/slow-collective")
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "A collective stalls on one slow link"
    assert [c["title"] for c in body["causes"]] == ["A degraded link", "A congested switch"]
    assert body["checks"][0]["commands"] == ["all_reduce_perf -b 8 -e 8G -f 2 -g 8"]
    assert body["sources"][0]["url"].startswith("https://github.com/NVIDIA/nccl-tests")
    assert body["calculator"] == {
        "name": "pipeline-bubble",
        "inputs": {"stage_ms": [200, 200, 400, 200], "microbatches": 8},
    }
    assert body["context_markdown"].startswith("Appears at scale")
    assert body["url"] == "/r/slow-collective"


def test_unknown_reference_is_a_404_with_the_error_shape(client: TestClient) -> None:
    response = client.get("/api/v1/references/no-such-thing")
    assert response.status_code == 404
    assert response.json() == {
        "error": {
            "code": "not_found",
            "message": "no reference with id 'no-such-thing'",
            "field": "id",
        }
    }


def test_unknown_api_route_is_json_too(client: TestClient) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "references": None, "problems": None}
    assert client.get("/readyz").json() == {"status": "ok", "references": 2, "problems": 0}


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/v1/references", "/r/missing", "/static/style.css"):
        headers = client.get(path).headers
        assert "default-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
