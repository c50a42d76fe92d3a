"""/mcp inside the web app: tool calls spend the same per-client budget as pastes and API
calls, and a refusal comes in the one error shape."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from failref.config import Settings
from failref.urls import MCP_PATH
from failref.web.factory import create_app

# The streamable HTTP transport wants both kinds of answer declared.
MCP_HEADERS = {"accept": "application/json, text/event-stream"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
# A burst of a quarter of the minute's budget: two requests.
PER_MINUTE = 8


def limited(settings: Settings) -> TestClient:
    return TestClient(create_app(settings.model_copy(update={"rate_limit_per_minute": PER_MINUTE})))


def test_api_calls_use_up_the_budget_of_mcp_calls(settings: Settings) -> None:
    with limited(settings) as client:
        for number in range(2):
            answer = client.post("/api/v1/match", json={"log": f"junk {number}"})
            assert answer.status_code == 200
        refused = client.post(MCP_PATH, json=LIST_TOOLS, headers=MCP_HEADERS)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/json"
    assert refused.json() == {
        "error": {
            "code": "too_many_requests",
            "message": "too many requests from this client; wait a minute and retry",
            "field": None,
        }
    }


def test_mcp_calls_use_up_the_budget_of_api_calls(settings: Settings) -> None:
    with limited(settings) as client:
        for _ in range(2):
            answer = client.post(MCP_PATH, json=LIST_TOOLS, headers=MCP_HEADERS)
            assert answer.status_code == 200, answer.text[:200]
        refused = client.post("/api/v1/match", json={"log": "junk"})
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_requests"


def test_a_get_is_405_rather_than_a_stream_held_open(client: TestClient) -> None:
    """Issue 13, item 6: the stateless transport has no stream for a GET to open."""
    response = client.get(MCP_PATH, headers={"accept": "text/event-stream"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_a_body_not_sent_as_json_is_415_in_the_error_shape(client: TestClient) -> None:
    """Issue 35, item 18: the SDK's transport guard answered a plain-text 400."""
    headers = {**MCP_HEADERS, "content-type": "text/plain"}
    response = client.post(MCP_PATH, content=json.dumps(LIST_TOOLS), headers=headers)
    assert response.status_code == 415
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "error": {
            "code": "unsupported_media_type",
            "message": "send the JSON-RPC message as application/json",
            "field": None,
        }
    }
