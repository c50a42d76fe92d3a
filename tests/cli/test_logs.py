"""Structured logs escape what a paste could use to forge or hide a line."""

from __future__ import annotations

import json
import logging

from failref.cli.logs import JsonFormatter, logging_config


def format_message(name: str, message: str, *args: object) -> dict[str, object]:
    record = logging.LogRecord(name, logging.WARNING, __file__, 1, message, args, None)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    assert "\x1b" not in line
    assert "\u202e" not in line
    parsed: dict[str, object] = json.loads(line)
    return parsed


def test_newlines_ansi_and_bidi_are_escaped() -> None:
    forged = "ok\n2026-11-29 INFO app: editor ann logged in \x1b[2K\u202eevil"
    entry = format_message("failref.web", "paste: %s", forged)
    assert entry["message"] == f"paste: {forged}"
    assert entry["level"] == "WARNING"


def test_access_log_lines_lose_their_query_string() -> None:
    args = ("127.0.0.1:5000", "GET", "/?q=password%3Dhunter2", "1.1", 200)
    entry = format_message("uvicorn.access", '%s - "%s %s HTTP/%s" %d', *args)
    assert "hunter2" not in str(entry["message"])
    assert '"GET / HTTP/1.1" 200' in str(entry["message"])


def test_config_covers_uvicorn_and_the_app() -> None:
    config = logging_config("INFO")
    assert {"uvicorn.access", "uvicorn.error", "failref"} <= set(config["loggers"])
