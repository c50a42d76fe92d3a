"""`failref mcp` on stdio answers every request it read before standard input closed
(issue 13, item 17): the SDK alone dropped the answers still being computed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from failref.config import Settings
from failref.mcp.stdio import InFlight

HANG_S = 120.0  # tells a hang from an answer; the scan below takes well under a second


def test_requests_in_flight_when_stdin_closes_are_answered(settings: Settings) -> None:
    log = "\n".join(f"line {n} value {n * 7919 % 1_000_003}" for n in range(40_000))
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "scan_log", "arguments": {"log": log}},
        },
        {"jsonrpc": "2.0", "id": "three", "method": "tools/list", "params": {}},
    ]
    env = {
        **os.environ,
        "FAILREF_DATABASE_URL": settings.database_url,
        "FAILREF_REFERENCES_DIR": str(settings.references_dir),
    }
    failref = str(Path(sys.executable).parent / "failref")
    run = subprocess.run(
        [failref, "mcp"],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
        check=True,
    )
    answers = {json.loads(line)["id"]: json.loads(line) for line in run.stdout.splitlines()}
    assert set(answers) == {1, 2, "three"}
    assert answers[2]["result"]["structuredContent"]["lines"] == 40_000


def test_only_requests_are_waited_for() -> None:
    flight = InFlight()
    flight.asked(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    flight.asked(b"not json\n")
    assert flight.wait_until_answered(0)
    flight.asked(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}\n')
    assert not flight.wait_until_answered(0)
    flight.answered(b'{"jsonrpc": "2.0", "id": 7, "result": {}}\n')
    assert flight.wait_until_answered(0)
