"""Pathological pastes through `POST /api/v1/scan`, `POST /api/v1/match` and the paste form
(`POST /`): a result or a 4xx naming the limit; never a 5xx, never a hang, the work bounded
by the matcher's caps, and memory bounded by a small multiple of the body.

Work. The body limit (10 MiB) bounds a paste; the matcher's caps (`FUZZY_TEMPLATE_CAP`
distinct templates scored, `MAX_QUERY_LINES` lines of one message, `MAX_LINE_CHARS`
characters of a line, `MAX_MATCH_CHARS` and `MAX_MATCH_LINES` for one message,
`max_log_lines` for a log) bound the work, and these tests count it: the fuzzy searches
(`score_line` calls) a paste causes never pass the caps. How fast that work runs is
measured in bench/, not here: a wall-clock budget fails on a loaded machine. The only
clock is HANG_S, which tells a hang from slowness: the slowest paste (50,000 distinct
lines through the form) takes about 5 s under tracemalloc on an idle 2-core machine, and
HANG_S is over 20 times that. Memory: the peak of Python allocations stays under
MEMORY_FACTOR times the body sent. Most pastes peak at 3-7 times; 50,000 short
high-entropy lines reach about 10 times, since the matcher keeps a key, a template and a
group per distinct line (bounded by the body limit and the line limit all the same).
"""

from __future__ import annotations

import json
import random
import string
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest
from deadlines import hang_guard
from fastapi.testclient import TestClient
from httpx import Response
from searches import FuzzySearches, count_searches

from failref.config import Settings
from failref.domain.matching.logs.scan import FUZZY_TEMPLATE_CAP
from failref.domain.matching.messages.match import MAX_MATCH_CHARS, MAX_MATCH_LINES
from failref.web.factory import create_app

HANG_S = 120.0  # past this the request is taken for a hang and the test fails
MEMORY_FACTOR = 12
DEFAULT_BODY_BYTES = 10 * 1024 * 1024
RAISED_BODY_BYTES = 32 * 1024 * 1024
# A line of the fixture reference stuck-rank, as a log prints it.
KNOWN_LINE = "W1129 12:00:01.123 torch._dynamo hit config.recompile_limit (8)"
RAW_INVALID = b"NCCL WARN \x00\x00 \xff\xfe\xc3( \xed\xa0\x80 timeout"


def high_entropy_lines(count: int) -> str:
    """Lines that share no template: random letters, digits and punctuation."""
    rng = random.Random(9)
    alphabet = string.ascii_letters + string.digits + "_-:/=."
    return "\n".join("".join(rng.choices(alphabet, k=64)) for _ in range(count))


PASTES: dict[str, Callable[[], str]] = {
    "high-entropy-50k": lambda: high_entropy_lines(50_000),
    "identical-50k": lambda: "\n".join([KNOWN_LINE] * 50_000),
    "one-10mib-line": lambda: "x" * DEFAULT_BODY_BYTES,
    "cr-only-50k": lambda: "\r".join([KNOWN_LINE] * 50_000),
    "one-char-1m": lambda: "a\n" * 1_000_000,
}


@dataclass(frozen=True)
class Sent:
    """One request: the answer and the peak of Python allocations it caused."""

    response: Response
    peak_bytes: int
    body_bytes: int


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> FuzzySearches:
    """Count every fuzzy search the scan and the single-message ranking make."""
    return count_searches(monkeypatch)


def send(client: TestClient, path: str, body: bytes, content_type: str) -> Sent:
    """POST an already encoded body, tracing the allocations it causes."""
    tracemalloc.start()
    try:
        with hang_guard(HANG_S):
            response = client.post(path, content=body, headers={"content-type": content_type})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return Sent(response, peak, len(body))


def send_paste(client: TestClient, route: str, text: str) -> Sent:
    """The paste as a browser (form) or a script (JSON) sends it."""
    if route == "/":
        return send(
            client, "/", urlencode({"log": text}).encode(), "application/x-www-form-urlencoded"
        )
    return send(client, route, json.dumps({"log": text}).encode(), "application/json")


def assert_bounded(sent: Sent) -> None:
    assert sent.response.status_code < 500, sent.response.text[:500]
    assert sent.peak_bytes <= MEMORY_FACTOR * sent.body_bytes, (
        f"peak {sent.peak_bytes / 1e6:.0f} MB for a {sent.body_bytes / 1e6:.1f} MB body"
    )


def error_message(sent: Sent) -> str:
    """The message of a 4xx, from the JSON error shape or the HTML page."""
    if sent.response.headers["content-type"].startswith("application/json"):
        error = sent.response.json()["error"]
        assert set(error) >= {"code", "message", "field"}
        return str(error["message"])
    return sent.response.text


def settings_with(settings: Settings, max_body_bytes: int) -> Settings:
    # The rate limit is not what these tests are about: 30 pastes must all get through.
    update = {"max_body_bytes": max_body_bytes, "rate_limit_per_minute": 10_000}
    return settings.model_copy(update=update)


@pytest.fixture
def paste_client(settings: Settings) -> Iterator[TestClient]:
    """The app with the default 10 MiB body limit."""
    with TestClient(create_app(settings_with(settings, DEFAULT_BODY_BYTES))) as client:
        yield client


@pytest.fixture
def roomy_client(settings: Settings) -> Iterator[TestClient]:
    """The app with the body limit raised so a 10 MiB line reaches the matcher."""
    with TestClient(create_app(settings_with(settings, RAISED_BODY_BYTES))) as client:
        yield client


ONE_MESSAGE_LIMIT = f"({MAX_MATCH_CHARS} characters, {MAX_MATCH_LINES} lines)"


@pytest.mark.parametrize(
    ("paste", "route", "status", "says"),
    [
        pytest.param(
            "high-entropy-50k", "/api/v1/match", 422, ONE_MESSAGE_LIMIT, id="entropy-match"
        ),
        pytest.param("high-entropy-50k", "/", 200, None, id="entropy-form"),
        pytest.param(
            "identical-50k", "/api/v1/match", 422, ONE_MESSAGE_LIMIT, id="identical-match"
        ),
        pytest.param("identical-50k", "/", 200, None, id="identical-form"),
        pytest.param("cr-only-50k", "/api/v1/scan", 200, None, id="cr-only-scan"),
        pytest.param("cr-only-50k", "/api/v1/match", 422, ONE_MESSAGE_LIMIT, id="cr-only-match"),
        pytest.param("cr-only-50k", "/", 422, ONE_MESSAGE_LIMIT, id="cr-only-form"),
        pytest.param("one-char-1m", "/api/v1/scan", 422, "100000-line limit", id="1m-lines-scan"),
        pytest.param("one-char-1m", "/api/v1/match", 422, ONE_MESSAGE_LIMIT, id="1m-lines-match"),
        pytest.param("one-char-1m", "/", 422, "100000-line limit", id="1m-lines-form"),
    ],
)
def test_pathological_paste(
    paste_client: TestClient,
    searches: FuzzySearches,
    paste: str,
    route: str,
    status: int,
    says: str | None,
) -> None:
    sent = send_paste(paste_client, route, PASTES[paste]())
    assert sent.response.status_code == status, sent.response.text[:300]
    assert_bounded(sent)
    assert searches.within_caps(), searches
    if says is not None:
        assert says in error_message(sent)


def test_high_entropy_scan_stops_at_the_fuzzy_cap(
    paste_client: TestClient, searches: FuzzySearches
) -> None:
    """Without the cap each of some 48,000 distinct templates would get a fuzzy search."""
    sent = send_paste(paste_client, "/api/v1/scan", PASTES["high-entropy-50k"]())
    assert sent.response.status_code == 200
    assert_bounded(sent)
    assert (searches.scan, searches.match) == (FUZZY_TEMPLATE_CAP, 0)
    result = sent.response.json()
    assert result["lines"] == 50_000
    assert result["templates"] > 9 * FUZZY_TEMPLATE_CAP
    assert (result["fuzzy_templates"], result["capped"]) == (FUZZY_TEMPLATE_CAP, True)


def test_identical_lines_are_scored_once_and_counted(paste_client: TestClient) -> None:
    sent = send_paste(paste_client, "/api/v1/scan", PASTES["identical-50k"]())
    assert sent.response.status_code == 200
    assert_bounded(sent)
    result = sent.response.json()
    assert (result["templates"], result["fuzzy_templates"]) == (1, 1)
    [hit] = result["hits"]
    assert (hit["id"], hit["count"], hit["first_line"], hit["last_line"]) == (
        "stuck-rank",
        50_000,
        1,
        50_000,
    )


def test_cr_only_endings_are_one_long_line_cut_to_its_first_characters(
    paste_client: TestClient,
) -> None:
    """Only `\\n` ends a line; a CR-only log is one line, of which the matcher reads the
    first MAX_LINE_CHARS characters, so 2 MB of it cost no more than a long line."""
    sent = send_paste(paste_client, "/api/v1/scan", PASTES["cr-only-50k"]())
    result = sent.response.json()
    assert (result["lines"], result["templates"], result["fuzzy_templates"]) == (1, 1, 1)


@pytest.mark.parametrize("route", ["/api/v1/scan", "/api/v1/match", "/"])
def test_a_10_mib_line_is_over_the_default_body_limit(
    paste_client: TestClient, searches: FuzzySearches, route: str
) -> None:
    """JSON or form encoding adds a few bytes: the body passes 10 MiB and BodyLimit says so
    from its declared length, before reading it (hence `connection: close`)."""
    sent = send_paste(paste_client, route, PASTES["one-10mib-line"]())
    assert sent.response.status_code == 413
    assert f"over the {DEFAULT_BODY_BYTES}-byte limit" in error_message(sent)
    assert sent.response.headers["connection"] == "close"
    assert (searches.scan, searches.match) == (0, 0)


@pytest.mark.parametrize(
    ("route", "status", "says"),
    [
        pytest.param("/api/v1/scan", 200, None, id="scan"),
        pytest.param("/api/v1/match", 422, ONE_MESSAGE_LIMIT, id="match"),
        pytest.param("/", 422, ONE_MESSAGE_LIMIT, id="form"),
    ],
)
def test_a_10_mib_line_under_a_raised_body_limit(
    roomy_client: TestClient, route: str, status: int, says: str | None
) -> None:
    sent = send_paste(roomy_client, route, PASTES["one-10mib-line"]())
    assert sent.response.status_code == status
    assert_bounded(sent)
    if says is not None:
        assert says in error_message(sent)
    else:
        assert sent.response.json()["lines"] == 1


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(b"log=" + RAW_INVALID, "application/x-www-form-urlencoded", id="form-raw"),
        pytest.param(
            b"log=NCCL+WARN+%00%00+%FF%FE%C3%28+%ED%A0%80+timeout",
            "application/x-www-form-urlencoded",
            id="form-percent",
        ),
        pytest.param(
            b'--b\r\nContent-Disposition: form-data; name="log"\r\n\r\n'
            + RAW_INVALID
            + b"\r\n--b--\r\n",
            "multipart/form-data; boundary=b",
            id="form-multipart",
        ),
    ],
)
def test_nul_and_invalid_utf8_in_a_form_become_replacement_characters(
    paste_client: TestClient, body: bytes, content_type: str
) -> None:
    sent = send(paste_client, "/", body, content_type)
    assert sent.response.status_code == 200
    assert "timeout" in sent.response.text
    assert "\ufffd" in sent.response.text or "\xff" in sent.response.text


@pytest.mark.parametrize("route", ["/api/v1/scan", "/api/v1/match"])
@pytest.mark.parametrize(
    "log",
    [
        pytest.param("NCCL WARN \x00\x00 timeout\n" * 40, id="nul"),
        pytest.param("NCCL WARN \ud800 timeout \udfff\n" * 40, id="lone-surrogates"),
    ],
)
def test_nul_and_lone_surrogates_in_json(paste_client: TestClient, route: str, log: str) -> None:
    """`\\u0000` is a character like any other; `\\ud800` is no character at all and would
    fail to encode when stored (gaps) or sent back, so it becomes U+FFFD."""
    body = json.dumps({"log": log, "context": {"notes": "\ud800"}}).encode()
    assert b"\\ud800" in body
    sent = send(paste_client, route, body, "application/json")
    assert sent.response.status_code == 200, sent.response.text[:300]


def test_a_surrogate_in_a_scan_hit_is_sent_back_replaced(paste_client: TestClient) -> None:
    log = f"{KNOWN_LINE} \ud800\n" * 40
    sent = send(paste_client, "/api/v1/scan", json.dumps({"log": log}).encode(), "application/json")
    assert sent.response.status_code == 200, sent.response.text[:300]
    [hit] = sent.response.json()["hits"]
    assert hit["example"].endswith("(8) \ufffd")


def test_invalid_utf8_in_json_is_a_400_in_the_error_shape(paste_client: TestClient) -> None:
    body = b'{"log": "' + RAW_INVALID.replace(b"\x00", b"") + b'"}'
    sent = send(paste_client, "/api/v1/match", body, "application/json")
    assert sent.response.status_code == 400
    assert sent.response.json()["error"]["code"] == "bad_request"
