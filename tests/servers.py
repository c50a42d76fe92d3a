"""Real `failref serve` processes for the tests that need one: a free loopback port, the
command and environment a server is started with, and polling until it answers."""

from __future__ import annotations

import os
import socket
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from failref.config import Settings

FAILREF = Path(sys.executable).parent / "failref"
LOOPBACK = "127.0.0.1"
# Only tells a hang from a slow start on a loaded machine: nothing is timed against it.
STARTUP_S = 60.0


def free_port() -> int:
    """A loopback port nobody listens on at the moment of asking."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def serve_command(port: int, *options: str) -> list[str]:
    """`failref serve` on `port`, access log off, with `options`."""
    return [str(FAILREF), "serve", "--port", str(port), "--no-access-log", *options]


def serve_env(settings: Settings, references: Path | None = None, **extra: str) -> dict[str, str]:
    """This process's environment with the test's database and folder, and `extra`
    (`FAILREF_...` settings by name)."""
    return {
        **os.environ,
        "FAILREF_DATABASE_URL": settings.database_url,
        "FAILREF_REFERENCES_DIR": str(references or settings.references_dir),
        **extra,
    }


def wait_for(condition: Callable[[], bool], what: str, within_s: float = STARTUP_S) -> None:
    """Poll until `condition` holds; fail naming `what` after `within_s`."""
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.1)


def answers(port: int, path: str = "/healthz") -> bool:
    """True when the server on `port` answers `path` with a 2xx."""
    try:
        with urllib.request.urlopen(f"http://{LOOPBACK}:{port}{path}", timeout=2):
            return True
    except OSError:
        return False
