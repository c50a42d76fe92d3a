"""The API page (/docs): a site page listing every operation once and every MCP tool with
its arguments, read from the OpenAPI document and the MCP server, with nothing from afar."""

from __future__ import annotations

import json
from html import unescape
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from failref.web.views.api_reference import WRONG_MATCH_BODY, anchor

TOOL_ARGUMENTS = {
    "match_log": ["log", "context", "context.framework", "limit"],
    "scan_log": ["log", "context", "context.gpus"],
    "get_reference": ["reference_id"],
    "list_references": ["category", "tag", "framework", "phase", "q"],
    "run_calculator": ["name", "inputs"],
}


class Page(HTMLParser):
    """What the tests read of the page: ids, headings' ids, assets, and code texts."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.heading_ids: list[str] = []
        self.assets: list[str] = []
        self.current: list[str] = []  # links marked as the current page
        self.anchors: list[str] = []  # links within the page
        self.codes: list[str] = []
        self._code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if "id" in found:
            self.ids.append(found["id"])
            if tag == "h3":
                self.heading_ids.append(found["id"])
        if tag in ("script", "link", "img") and (found.get("src") or found.get("href")):
            self.assets.append(found.get("src") or found["href"])
        if tag == "a" and found.get("href", "").startswith("#"):
            self.anchors.append(found["href"][1:])
        if found.get("aria-current") == "page":
            self.current.append(found.get("href", ""))
        if tag == "code":
            self._code = []

    def handle_data(self, data: str) -> None:
        if self._code is not None:
            self._code.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._code is not None:
            self.codes.append(unescape("".join(self._code)))
            self._code = None


def read(response: Response) -> Page:
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = Page()
    page.feed(response.text)
    return page


def test_the_api_page_is_a_page_of_the_site_with_local_assets_only(client: TestClient) -> None:
    response = client.get("/docs")
    page = read(response)
    assert response.template.name == "api_docs.html"  # type: ignore[attr-defined]
    assert '<header class="site">' in response.text
    assert '<footer class="site">' in response.text
    assert "/static/style.css" in page.assets
    assert "/static/api-docs.js" in page.assets
    assert all(asset.startswith("/") for asset in page.assets), page.assets
    assert "swagger" not in response.text.lower()
    assert page.current == ["/docs"]
    assert '<link rel="alternate" type="application/json" href="/openapi.json">' in response.text


def test_every_operation_of_the_openapi_document_is_listed_once(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    expected = [anchor(method, path) for path, item in document["paths"].items() for method in item]
    page = read(client.get("/docs"))
    operations = [found for found in page.heading_ids if not found.startswith("tool-")]
    assert sorted(operations) == sorted(expected)
    assert len(set(page.ids)) == len(page.ids)  # each anchor once: PUT is not listed twice
    assert operations.count("put-api-v1-references-reference_id") == 1
    assert page.anchors
    assert set(page.anchors) <= set(page.ids)  # the table of contents leads somewhere


def test_every_mcp_tool_is_listed_with_its_arguments(client: TestClient) -> None:
    response = client.get("/docs")
    page = read(response)
    assert [found for found in page.heading_ids if found.startswith("tool-")] == [
        f"tool-{name}" for name in TOOL_ARGUMENTS
    ]
    tools = {tool.name: tool for tool in response.context["tools"]}  # type: ignore[attr-defined]
    for name, arguments in TOOL_ARGUMENTS.items():
        listed = [argument.name for argument in tools[name].arguments]
        assert all(argument in listed for argument in arguments), (name, listed)
    assert "POST http://testserver/mcp" in page.codes


@pytest.mark.parametrize(
    ("operation", "fragment"),
    [
        pytest.param(
            "post-api-v1-match",
            "curl -sS -X POST http://testserver/api/v1/match -H 'Content-Type: application/json'",
            id="json-body",
        ),
        pytest.param(
            "put-api-v1-references-reference_id",
            '-H "Authorization: Bearer $FAILREF_TOKEN" ',
            id="editor-token",
        ),
    ],
)
def test_each_operation_has_a_curl_command(
    client: TestClient, operation: str, fragment: str
) -> None:
    groups = client.get("/docs").context["groups"]  # type: ignore[attr-defined]
    found = {op.anchor: op for group in groups for op in group.operations}
    assert fragment in found[operation].curl


def test_the_error_example_is_what_the_api_answers(client: TestClient) -> None:
    answer = client.post("/api/v1/match", json=WRONG_MATCH_BODY)
    assert answer.status_code == 422
    page = read(client.get("/docs"))
    assert json.dumps(answer.json(), indent=2) in page.codes
    assert len(answer.json()["error"]["fields"]) == 3
