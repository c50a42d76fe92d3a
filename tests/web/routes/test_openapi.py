"""What the OpenAPI document promises matches what the server does (issue 13, item 12)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from failref.config import package_version


@pytest.fixture
def spec(client: TestClient) -> dict[str, Any]:
    document: dict[str, Any] = client.get("/openapi.json").json()
    return document


def test_malformed_json_names_the_body_and_the_400_is_documented(
    client: TestClient, spec: dict[str, Any]
) -> None:
    response = client.post(
        "/api/v1/match", content=b'{"log": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "body"
    assert response.json()["error"]["message"].startswith("body: JSON decode error at character")
    for path in ("/api/v1/match", "/api/v1/scan", "/api/v1/calculators/{name}"):
        assert "400" in spec["paths"][path]["post"]["responses"]


def test_the_put_documents_its_conditional_headers(spec: dict[str, Any]) -> None:
    put = spec["paths"]["/api/v1/references/{reference_id}"]["put"]
    headers = {p["name"] for p in put["parameters"] if p["in"] == "header"}
    assert {"If-Match", "If-None-Match", "X-Change-Message"} <= headers
    assert {"412", "428"} <= set(put["responses"])


def test_a_405_lists_every_method_of_the_path(client: TestClient) -> None:
    response = client.delete("/api/v1/references/stuck-rank")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, PUT"


def test_the_calculator_body_names_only_known_inputs(
    client: TestClient, spec: dict[str, Any]
) -> None:
    schema = spec["paths"]["/api/v1/calculators/{name}"]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]
    names = schema["propertyNames"]["enum"]
    assert "gradient_gb" in names
    assert "warp_factor" not in names
    refused = client.post("/api/v1/calculators/allreduce-slow-link", json={"warp_factor": 9})
    assert refused.status_code == 422


def test_every_operation_has_one_tag_from_the_documented_list(spec: dict[str, Any]) -> None:
    documented = [tag["name"] for tag in spec["tags"]]
    assert documented == ["matching", "references", "calculators", "editing", "health"]
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            assert len(operation["tags"]) == 1, (method, path, operation["tags"])
            assert operation["tags"][0] in documented, (method, path)


def test_every_422_is_documented_in_the_error_shape(spec: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    fields = spec["components"]["schemas"]["ErrorDetail"]["properties"]["fields"]
    assert fields["anyOf"][0]["items"] == {"$ref": "#/components/schemas/FieldProblem"}


def test_the_put_declares_the_editor_token(spec: dict[str, Any]) -> None:
    scheme = spec["components"]["securitySchemes"]["editorToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    put = spec["paths"]["/api/v1/references/{reference_id}"]["put"]
    assert put["security"] == [{"editorToken": []}]


def test_a_log_must_hold_some_text(spec: dict[str, Any]) -> None:
    for name in ("MatchRequest", "ScanRequest"):
        log = spec["components"]["schemas"][name]["properties"]["log"]
        assert log["pattern"] == r"\S", name


def test_the_document_reports_the_package_version(spec: dict[str, Any]) -> None:
    assert spec["info"]["version"] == package_version() != ""
