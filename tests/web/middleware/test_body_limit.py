"""A body over the limit is refused through the one error renderer: JSON where the path
answers JSON (API, health, MCP), the error page elsewhere; the connection is closed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from failref.config import Settings
from failref.web.factory import create_app
from failref.web.middleware.body_limit import LARGE_BODY_BYTES, BodyLimit

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


# Large bodies (issue 35, item 2): only a few are processed at once.
LARGE = LARGE_BODY_BYTES + 1


class HeldApp:
    """Reads the body, then holds its slot until `release` is set; answers 200."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.reading = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # refused while streaming
            if not message.get("more_body"):
                break
        self.reading += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})


async def post(middleware: BodyLimit, size: int, chunked: bool = False) -> list[Message]:
    """The messages `middleware` sends for a POST of `size` bytes, in 64 KiB chunks."""
    header = (b"transfer-encoding", b"chunked") if chunked else (b"content-length", b"%d" % size)
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/scan",
        "query_string": b"",
        "headers": [header],
    }
    chunks = [65_536] * (size // 65_536) + [size % 65_536]
    sent: list[Message] = []

    async def receive() -> Message:
        if chunks:
            return {"type": "http.request", "body": b"x" * chunks.pop(), "more_body": bool(chunks)}
        await asyncio.Event().wait()  # the client waits for its answer
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    await middleware(scope, receive, send)
    return sent


def status(sent: list[Message]) -> int:
    return int(sent[0]["status"])


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0)


def middleware_for(app: HeldApp, wait_s: float) -> BodyLimit:
    return BodyLimit(app, 30_000_000, 100_000, large_bodies=2, large_wait_s=wait_s)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_third_large_body_waits_unread_for_a_slot_and_is_then_served(chunked: bool) -> None:
    async def scenario() -> None:
        app = HeldApp()
        middleware = middleware_for(app, wait_s=60)
        first = [asyncio.create_task(post(middleware, LARGE, chunked)) for _ in range(2)]
        await until(lambda: app.reading == 2)
        third = asyncio.create_task(post(middleware, LARGE, chunked))
        for _ in range(100):
            await asyncio.sleep(0)
        assert app.reading == 2  # the third waits, its body unread
        app.release.set()
        answers = await asyncio.gather(*first, third)
        assert [status(sent) for sent in answers] == [200, 200, 200]

    asyncio.run(scenario())


def test_a_small_body_never_waits_for_the_large_ones() -> None:
    async def scenario() -> None:
        app = HeldApp()
        middleware = middleware_for(app, wait_s=60)
        large = [asyncio.create_task(post(middleware, LARGE)) for _ in range(2)]
        await until(lambda: app.reading == 2)
        small = asyncio.create_task(post(middleware, 1_000))
        await until(lambda: app.reading == 3)
        app.release.set()
        answers = await asyncio.gather(*large, small)
        assert [status(sent) for sent in answers] == [200, 200, 200]

    asyncio.run(scenario())


@pytest.mark.parametrize("chunked", [False, True])
def test_a_large_body_that_finds_no_slot_in_time_gets_503_with_retry_after(
    chunked: bool,
) -> None:
    async def scenario() -> list[Message]:
        app = HeldApp()
        middleware = middleware_for(app, wait_s=0.01)
        held = [asyncio.create_task(post(middleware, LARGE)) for _ in range(2)]
        await until(lambda: app.reading == 2)
        refused = await post(middleware, LARGE, chunked)
        app.release.set()
        await asyncio.gather(*held)
        return refused

    refused = asyncio.run(scenario())
    assert status(refused) == 503
    headers = dict(refused[0]["headers"])
    assert headers[b"retry-after"] == b"10"
    assert headers[b"connection"] == b"close"
    error = json.loads(b"".join(m.get("body", b"") for m in refused[1:]))["error"]
    assert error["code"] == "unavailable"
    assert error["message"].startswith("the server is busy with 2 other large pastes")
