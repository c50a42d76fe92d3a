"""Item 21: a pasted newline with a forged log line, ANSI escapes and bidi overrides can
neither forge nor hide a line: app logs are one JSON object a line with control characters
escaped, and the admin gaps page shows them as visible escapes."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from editing_helpers import sign_in
from fastapi.testclient import TestClient
from security.helpers import raw_request
from sqlalchemy.exc import OperationalError

from failref.cli.logs import JsonFormatter
from failref.web.routes import api

FORGED = '\n2026-11-29T00:00:00 CRITICAL app.auth: editor root signed in {"level": "INFO"}'
ANSI = "\x1b[2K\x1b[1A\x1b[31mred\x1b[0m"
BIDI = "\u202eevil\u202c\u2066isolated\u2069"
INVISIBLE = ("\n", "\r", "\x1b", "\u202e", "\u202c", "\u2066", "\u2069", "\u200b")
INJECTION = f"x{FORGED}{ANSI}{BIDI}\u200bend"


@pytest.fixture
def app_log() -> Iterator[io.StringIO]:
    """The app's log lines, as the production JSON formatter writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(lambda record: record.name.startswith(("failref", "uvicorn")))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)


def log_entries(stream: io.StringIO) -> list[dict[str, object]]:
    """Each line must be one whole JSON object free of raw control or bidi characters."""
    lines = stream.getvalue().split("\n")
    assert lines[-1] == ""
    entries = []
    for line in lines[:-1]:
        assert not any(char in line for char in INVISIBLE), repr(line)
        entries.append(json.loads(line))
    return entries


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(
            OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked")),
            id="database-error",
        ),
        pytest.param(RuntimeError(f"boom {INJECTION}"), id="unhandled-error"),
    ],
)
def test_a_forged_line_in_a_logged_path_stays_inside_its_entry(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    app_log: io.StringIO,
    failure: Exception,
) -> None:
    def fail(*_args: object) -> None:
        raise failure

    monkeypatch.setattr(api, "get_reference", fail)
    raw_path = b"/api/v1/references/" + quote(INJECTION, safe="").encode()
    response = raw_request(client, "GET", raw_path)
    assert response.status_code in (500, 503)
    assert "editor root" not in response.text
    entries = [e for e in log_entries(app_log) if str(e["logger"]).startswith("failref")]
    [entry] = [e for e in entries if "error on GET" in str(e["message"])]
    # The hostile path arrived in one entry, as text (Python's URL parsing drops the newline
    # of a path; ANSI and bidi characters stay, escaped by the formatter).
    assert INJECTION.replace("\n", "") in str(entry["message"])
    assert all("editor root signed in" not in str(e["message"]) for e in entries if e != entry)


def test_the_admin_gaps_page_shows_control_characters_as_escapes(client: TestClient) -> None:
    sign_in(client)
    client.post("/", data={"log": f"strange failure {ANSI} {BIDI}\u200b tail{FORGED}"})
    page = client.get("/admin/gaps").text
    assert "strange failure" in page
    assert not any(char in page for char in INVISIBLE[2:])
    assert "\\u001b[31mred" in page
    assert "\\u202eevil" in page
    assert "\\u200b" in page
    # Only the first line of a paste is kept: the forged second line is not stored at all.
    assert "editor root signed in" not in page
