"""gzip for text responses: pages, JSON, the fast path, static files and streams, with
ETags, 304s and ranges left working."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

from fastapi.testclient import TestClient
from starlette.requests import Request

from failref.config import Settings
from failref.urls import MCP_PATH
from failref.web.factory import create_app
from failref.web.middleware.compression import GZIP_MINIMUM_BYTES, gzipped
from failref.web.routes.api import api_get_reference

GZIP = {"accept-encoding": "gzip"}
IDENTITY = {"accept-encoding": "identity"}
# Starlette sends a file in chunks of 64 KiB: this one (260 KB) streams.
LARGE_FILE = b"const answer = 42;\n" * 14_000


def raw(client: TestClient, path: str, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
    """Headers and the body exactly as sent, without httpx's decoding."""
    with client.stream("GET", path, headers=headers) as response:
        return dict(response.headers), b"".join(response.iter_raw())


def test_a_page_is_gzipped_for_a_client_that_takes_it(client: TestClient) -> None:
    headers, body = raw(client, "/references", GZIP)
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body)
    assert "default-src 'self'" in headers["content-security-policy"]
    plain_headers, plain = raw(client, "/references", IDENTITY)
    assert "content-encoding" not in plain_headers
    assert plain_headers["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == plain
    assert len(body) < len(plain) / 2


def test_a_test_client_still_sees_the_template_through_compression(client: TestClient) -> None:
    response = client.get("/references", headers=GZIP)
    assert response.headers["content-encoding"] == "gzip"
    assert response.template.name == "browse.html"  # type: ignore[attr-defined]
    assert response.context["total"] == 2  # type: ignore[attr-defined]


def test_small_responses_and_errors_in_json_stay_readable(client: TestClient) -> None:
    headers, body = raw(client, "/healthz", GZIP)
    assert len(body) < GZIP_MINIMUM_BYTES
    assert "content-encoding" not in headers
    missing = client.get("/api/v1/references/nope", headers=GZIP)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


def test_the_fast_path_sends_the_reference_gzipped_once_per_version(client: TestClient) -> None:
    library = client.app.state.library  # type: ignore[attr-defined]
    document = library.catalog.documents["stuck-rank"]
    assert len(document) >= GZIP_MINIMUM_BYTES
    headers, body = raw(client, "/api/v1/references/stuck-rank", GZIP)
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert body == gzipped(document)
    assert gzip.decompress(body) == document
    assert int(headers["content-length"]) == len(body)
    head = client.head("/api/v1/references/stuck-rank", headers=GZIP)
    assert head.headers["content-length"] == headers["content-length"]
    plain_headers, plain = raw(client, "/api/v1/references/stuck-rank", IDENTITY)
    assert plain == document
    assert "content-encoding" not in plain_headers
    assert plain_headers["vary"] == "Accept-Encoding"
    assert plain_headers["etag"] == headers["etag"]


def test_the_route_behind_the_fast_path_answers_the_same_bytes(client: TestClient) -> None:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [(b"accept-encoding", b"gzip")],
        "app": client.app,
    }
    response = asyncio.run(api_get_reference(Request(scope), "stuck-rank"))
    assert response.headers["content-encoding"] == "gzip"
    assert bytes(response.body) == raw(client, "/api/v1/references/stuck-rank", GZIP)[1]


def test_304s_stay_bodyless_and_keep_their_etag(client: TestClient) -> None:
    for path in ("/api/v1/references/stuck-rank", "/static/style.css"):
        etag = client.get(path, headers=GZIP).headers["etag"]
        headers, body = raw(client, path, {**GZIP, "if-none-match": etag})
        assert (body, headers["etag"]) == (b"", etag)
        assert "content-encoding" not in headers
        assert client.get(path, headers={**GZIP, "if-none-match": etag}).status_code == 304


def test_a_large_static_file_streams_gzipped(settings: Settings, tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "large.js").write_bytes(LARGE_FILE)
    with TestClient(create_app(settings.model_copy(update={"static_dir": static}))) as client:
        headers, body = raw(client, "/static/large.js", GZIP)
    assert headers["content-encoding"] == "gzip"
    assert "content-length" not in headers  # compressed chunk by chunk as it streams
    assert gzip.decompress(body) == LARGE_FILE


def test_a_range_request_is_answered_unencoded(client: TestClient) -> None:
    headers, body = raw(client, "/static/style.css", {**GZIP, "range": "bytes=0-99"})
    assert "content-encoding" not in headers
    assert headers["content-range"].startswith("bytes 0-99/")
    assert len(body) == 100


def test_mcp_answers_are_gzipped_and_still_parse(client: TestClient) -> None:
    with client.stream(
        "POST",
        MCP_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={**GZIP, "accept": "application/json, text/event-stream"},
    ) as response:
        body = b"".join(response.iter_raw())
    assert response.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(body))["result"]["tools"]
