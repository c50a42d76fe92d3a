"""What the OpenAPI document promises matches what the server does (issue 13, item 12)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from editing_helpers import new_editor
from fastapi.testclient import TestClient

from failref.config import package_version
from failref.domain.calculators import CALCULATORS

RUN = "/api/v1/calculators/{}"


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
    for path in ("/api/v1/match", "/api/v1/scan", RUN.format("kv-cache")):
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


def json_body(operation: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = operation["requestBody"]["content"]["application/json"]
    return content


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_each_calculator_run_takes_only_its_own_inputs(
    client: TestClient, spec: dict[str, Any], name: str
) -> None:
    """Issue 35, item 17: one body schema for every calculator admitted each one's inputs
    everywhere, but a calculator answers 422 for another's."""
    body = json_body(spec["paths"][RUN.format(name)]["post"])
    inputs = [spec.name for spec in CALCULATORS[name].inputs]
    assert list(body["schema"]["properties"]) == inputs
    assert body["schema"]["additionalProperties"] is False
    assert client.post(RUN.format(name), json=body["example"]).status_code == 200
    foreign = next(
        spec.name
        for other in CALCULATORS.values()
        for spec in other.inputs
        if spec.name not in inputs
    )
    refused = client.post(RUN.format(name), json={foreign: 1})
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == foreign


def test_the_calculator_run_is_published_once_per_calculator(spec: dict[str, Any]) -> None:
    assert "post" not in spec["paths"]["/api/v1/calculators/{name}"]
    runs = [
        path for path, item in spec["paths"].items() if "post" in item and "calculators/" in path
    ]
    assert runs == [RUN.format(name) for name in CALCULATORS]


def test_a_calculator_path_lists_every_method_the_server_allows_there(
    spec: dict[str, Any], client: TestClient
) -> None:
    for name in CALCULATORS:
        path = RUN.format(name)
        allowed = client.options(path).headers.get("allow", "")
        published = {method.upper() for method in spec["paths"][path]}
        # HEAD comes with every GET; the document leaves it implied.
        assert published == {method.strip() for method in allowed.split(",")} - {"HEAD"}, path
        assert client.get(path).status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "content_type", "body"),
    [
        pytest.param("put", "", "text/markdown", b"", id="put"),
        pytest.param("post", "/retire", "application/json", b'{"reason": "gone"}', id="retire"),
    ],
)
def test_if_match_is_required_as_the_server_requires_it(
    client: TestClient, spec: dict[str, Any], method: str, path: str, content_type: str, body: bytes
) -> None:
    """Issue 35, item 17: the document called If-Match optional; the server answers 428."""
    operation = spec["paths"]["/api/v1/references/{reference_id}" + path][method]
    if_match = [p for p in operation["parameters"] if p["name"] == "If-Match"]
    assert [(p["in"], p["required"]) for p in if_match] == [("header", True)]
    assert "428" in operation["responses"]
    headers = {"authorization": f"Bearer {new_editor(client)}", "content-type": content_type}
    url = "/api/v1/references/stuck-rank" + path
    response = client.request(method, url, content=body, headers=headers)
    assert response.status_code == 428
    assert response.json()["error"]["code"] == "precondition_required"


def test_the_put_body_schema_refuses_a_file_without_front_matter(
    client: TestClient, spec: dict[str, Any]
) -> None:
    """Issue 35, item 17: an empty body was schema-valid yet answered 422; the schema now
    asks for the front matter's opening line, which the loader checks first."""
    operation = spec["paths"]["/api/v1/references/{reference_id}"]["put"]
    pattern = operation["requestBody"]["content"]["text/markdown"]["schema"]["pattern"]
    current = client.get("/api/v1/references/stuck-rank/text")
    assert re.search(pattern, current.text)
    for text in ("", "# stuck-rank\n", "--\n"):
        assert not re.search(pattern, text), text
    headers = {
        "authorization": f"Bearer {new_editor(client)}",
        "content-type": "text/markdown",
        "if-match": current.headers["etag"],
    }
    saved = client.put("/api/v1/references/stuck-rank", content=current.content, headers=headers)
    assert saved.status_code == 200
    empty = client.put("/api/v1/references/stuck-rank", content=b"", headers=headers)
    assert empty.status_code == 422


@pytest.mark.parametrize("path", ["/api/v1/match", "/api/v1/scan"])
@pytest.mark.parametrize("keep", [0, 1, "true"])
def test_keep_is_a_boolean_as_documented(
    client: TestClient, spec: dict[str, Any], path: str, keep: object
) -> None:
    """Issue 35, item 17: `keep: 0` was schema-invalid yet answered 200."""
    schema = json_body(spec["paths"][path]["post"])["schema"]["$ref"].rsplit("/", 1)[1]
    assert spec["components"]["schemas"][schema]["properties"]["keep"]["type"] == "boolean"
    response = client.post(path, json={"log": "CUDA out of memory", "keep": keep})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "keep"


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
