"""The MCP server: its tools answer as the JSON API does, in memory, over stdio and over HTTP."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
import uvicorn
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from failref.config import Settings, package_version
from failref.mcp.tools import build_mcp_server
from failref.services.library import Library, open_library
from failref.web.factory import create_app

TOOLS = {"match_log", "scan_log", "get_reference", "list_references", "run_calculator"}
STUCK_LINE = "[rank5]: torch._dynamo hit config.recompile_limit (8)"
SLOW_LINE = "NCCL WARN Net : Connection closed by remote peer node17<10.1.2.3>"
LOG = "\n".join(["step 100 loss 2.31", SLOW_LINE, "step 101 loss 2.30", SLOW_LINE, STUCK_LINE])
STARTUP_SECONDS = 10

T = TypeVar("T")


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    """A library migrated and loaded from the fixture references."""
    opened = open_library(settings)
    yield opened
    opened.close()


@pytest.fixture
def server(library: Library) -> MCPServer:
    return build_mcp_server(lambda: library)


def with_client(target: Any, use: Callable[[Client], Awaitable[T]]) -> T:
    """Connect the SDK's client to `target` (a server, URL or stdio command) and run `use`."""

    async def run() -> T:
        async with Client(target) as client:
            return await use(client)

    return anyio.run(run)


def call(server: MCPServer, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    return with_client(server, lambda client: client.call_tool(tool, arguments))


def answer(server: MCPServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured result of a call that must succeed."""
    result = call(server, tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


def test_lists_every_tool_with_a_description_and_an_input_schema(server: MCPServer) -> None:
    tools = with_client(server, lambda client: client.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert len(tool.description or "") > 100, tool.name
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint
    by_name = {tool.name: tool for tool in tools}
    for name in ("match_log", "scan_log", "get_reference"):
        assert "never confirms a cause" in (by_name[name].description or "")
        assert "evidence checks" in (by_name[name].description or "")
    assert by_name["match_log"].input_schema["required"] == ["log"]
    assert by_name["get_reference"].input_schema["required"] == ["reference_id"]
    assert "pipeline-bubble" in (by_name["run_calculator"].description or "")


def test_match_log_ranks_the_reference_of_a_known_message_first(server: MCPServer) -> None:
    body = answer(server, "match_log", {"log": STUCK_LINE, "context": {"framework": "pytorch"}})
    best = body["matches"][0]
    assert (best["id"], best["url"], best["confident"]) == ("stuck-rank", "/r/stuck-rank", True)
    assert best["matched_message"] == "torch._dynamo hit config.recompile_limit (<n>)"
    assert body["query"]["inferred_context"]["framework"] == "pytorch"


def test_scan_log_counts_the_lines_of_each_reference(server: MCPServer) -> None:
    body = answer(server, "scan_log", {"log": LOG})
    assert body["lines"] == 5
    hits = {hit["id"]: hit for hit in body["hits"]}
    assert hits["slow-collective"]["count"] == 2
    assert hits["slow-collective"]["line_numbers"] == [2, 4]
    assert hits["slow-collective"]["example"] == SLOW_LINE
    assert hits["stuck-rank"]["line_numbers"] == [5]
    roots = body["diagnosis"]["roots"]
    assert [(root["id"], root["line"]) for root in roots] == [
        ("slow-collective", 2),
        ("stuck-rank", 5),
    ]


def test_get_reference_returns_the_structured_document(server: MCPServer) -> None:
    body = answer(server, "get_reference", {"reference_id": "slow-collective"})
    assert body["title"] == "A collective stalls on one slow link"
    assert [cause["title"] for cause in body["causes"]] == ["A degraded link", "A congested switch"]
    assert body["checks"][0]["commands"] == ["all_reduce_perf -b 8 -e 8G -f 2 -g 8"]
    assert body["url"] == "/r/slow-collective"


@pytest.mark.parametrize(
    ("filters", "ids"),
    [
        pytest.param({}, ["slow-collective", "stuck-rank"], id="all-in-title-order"),
        pytest.param({"tag": "hang"}, ["stuck-rank"], id="tag"),
        pytest.param(
            {"q": "NCCL", "tag": "nccl"}, ["slow-collective", "stuck-rank"], id="q-and-tag"
        ),
        pytest.param({"category": "inference"}, [], id="none"),
    ],
)
def test_list_references_filters(
    server: MCPServer, filters: dict[str, str], ids: list[str]
) -> None:
    body = answer(server, "list_references", filters)
    assert body["count"] == len(ids)
    assert [r["id"] for r in body["references"]] == ids


def test_list_references_comes_a_page_at_a_time(server: MCPServer) -> None:
    first = answer(server, "list_references", {"limit": 1})
    assert (first["count"], first["total"], first["next_offset"]) == (1, 2, 1)
    assert first["next"] == "/api/v1/references?limit=1&offset=1"
    second = answer(server, "list_references", {"limit": 1, "offset": first["next_offset"]})
    assert (second["count"], second["next_offset"], second["next"]) == (1, None, None)
    pages = first["references"] + second["references"]
    assert [r["id"] for r in pages] == ["slow-collective", "stuck-rank"]


def test_run_calculator_with_defaults_runs_the_worked_example(server: MCPServer) -> None:
    body = answer(server, "run_calculator", {"name": "pipeline-bubble"})
    assert body["outputs"]["step_ms"] == 14200
    assert body["inputs"]["microbatches"] == 32
    assert body["formula"].startswith("step time")


def test_run_calculator_takes_inputs(server: MCPServer) -> None:
    inputs = {"stage_ms": [200, 200, 400, 200], "microbatches": 8}
    body = answer(server, "run_calculator", {"name": "pipeline-bubble", "inputs": inputs})
    assert body["outputs"]["step_ms"] == 7 * 400 + 1000


@pytest.mark.parametrize(
    "name", ["attention-memory", "checkpoint-stall", "speculative-speedup", "matmul-time"]
)
def test_the_wave_2b_calculators_run_over_mcp(server: MCPServer, name: str) -> None:
    body = answer(server, "run_calculator", {"name": name})
    assert body["name"] == name
    assert body["outputs"]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        pytest.param(
            "get_reference",
            {"reference_id": "no-such-thing"},
            "no reference with id 'no-such-thing'",
            id="unknown-reference",
        ),
        pytest.param(
            "run_calculator",
            {"name": "no-such-calculator"},
            "no calculator 'no-such-calculator'",
            id="unknown-calculator",
        ),
        pytest.param(
            "run_calculator",
            {"name": "pipeline-bubble", "inputs": {"microbatches": 0}},
            "microbatches: must be at least 1",
            id="invalid-input",
        ),
        pytest.param("match_log", {"log": "x", "limit": 0}, "limit", id="limit-out-of-range"),
    ],
)
def test_domain_errors_are_tool_errors_with_their_message(
    server: MCPServer, tool: str, arguments: dict[str, Any], message: str
) -> None:
    assert message in error_text(call(server, tool, arguments))


def test_the_server_names_itself_with_the_package_version(server: MCPServer) -> None:
    async def use(client: Client) -> tuple[str, str]:
        assert client.server_info is not None
        return client.server_info.name, client.server_info.version

    assert with_client(server, use) == ("failref", package_version())
    assert package_version()


@pytest.mark.parametrize(
    ("tool", "arguments", "path", "body"),
    [
        pytest.param(
            "match_log",
            {"log": " ", "limit": 0, "context": 5},
            "/api/v1/match",
            {"log": " ", "limit": 0, "context": 5},
            id="match",
        ),
        pytest.param("scan_log", {"log": ""}, "/api/v1/scan", {"log": ""}, id="empty-log"),
        pytest.param(
            "run_calculator",
            {"name": "pipeline-bubble", "inputs": {"stages": 4, "microbatches": 0}},
            "/api/v1/calculators/pipeline-bubble",
            {"stages": 4, "microbatches": 0},
            id="calculator-inputs",
        ),
    ],
)
def test_argument_errors_name_every_wrong_argument_in_the_apis_words(
    server: MCPServer,
    client: TestClient,
    tool: str,
    arguments: dict[str, Any],
    path: str,
    body: dict[str, Any],
) -> None:
    text = error_text(call(server, tool, arguments))
    api_error = client.post(path, json=body).json()["error"]
    assert text == f"Error executing tool {tool}: {api_error['message']}"
    for problem in api_error["fields"]:
        assert f"{problem['field']}: " in text
    assert "validation error" not in text
    assert "pydantic.dev" not in text
    assert "input_value" not in text


def test_a_missing_argument_is_named(server: MCPServer) -> None:
    text = error_text(call(server, "get_reference", {}))
    assert text == "Error executing tool get_reference: reference_id: is required"


@pytest.mark.parametrize(
    ("tool", "arguments", "method", "path", "body"),
    [
        pytest.param(
            "match_log",
            {"log": SLOW_LINE, "limit": 3},
            "POST",
            "/api/v1/match",
            {"log": SLOW_LINE, "limit": 3},
            id="match",
        ),
        pytest.param("scan_log", {"log": LOG}, "POST", "/api/v1/scan", {"log": LOG}, id="scan"),
        pytest.param(
            "get_reference",
            {"reference_id": "stuck-rank"},
            "GET",
            "/api/v1/references/stuck-rank",
            None,
            id="get",
        ),
        pytest.param(
            "list_references",
            {"tag": "nccl"},
            "GET",
            "/api/v1/references?tag=nccl",
            None,
            id="list",
        ),
        pytest.param(
            "list_references",
            {"tag": "nccl", "limit": 1},
            "GET",
            "/api/v1/references?tag=nccl&limit=1",
            None,
            id="list-page",
        ),
        pytest.param(
            "run_calculator",
            {"name": "kv-cache"},
            "POST",
            "/api/v1/calculators/kv-cache",
            {},
            id="calculator",
        ),
    ],
)
def test_tools_answer_exactly_as_the_json_api(
    server: MCPServer,
    client: TestClient,
    tool: str,
    arguments: dict[str, Any],
    method: str,
    path: str,
    body: dict[str, Any] | None,
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == 200
    assert answer(server, tool, arguments) == response.json()


def test_failref_mcp_serves_the_tools_over_stdio(settings: Settings) -> None:
    command = Path(sys.executable).with_name("failref")
    environment = {
        "FAILREF_DATABASE_URL": settings.database_url,
        "FAILREF_REFERENCES_DIR": str(settings.references_dir),
    }
    parameters = StdioServerParameters(command=str(command), args=["mcp"], env=environment)

    async def use(client: Client) -> tuple[set[str], CallToolResult]:
        tools = await client.list_tools()
        return {tool.name for tool in tools.tools}, await client.call_tool("list_references", {})

    names, listed = with_client(parameters, use)
    assert names == TOOLS
    assert listed.structured_content is not None
    assert listed.structured_content["count"] == 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def served_app(settings: Settings) -> Iterator[str]:
    """The web app on a loopback port in a thread; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped before it started"
        assert time.monotonic() < deadline, "uvicorn did not start in time"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(STARTUP_SECONDS)


def test_web_app_serves_the_tools_over_streamable_http_at_mcp(served_app: str) -> None:
    async def use(client: Client) -> tuple[set[str], CallToolResult]:
        tools = await client.list_tools()
        found = await client.call_tool("get_reference", {"reference_id": "slow-collective"})
        return {tool.name for tool in tools.tools}, found

    names, found = with_client(f"{served_app}/mcp", use)
    assert names == TOOLS
    assert found.structured_content is not None
    assert found.structured_content["title"] == "A collective stalls on one slow link"
