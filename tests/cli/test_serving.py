"""`failref serve --workers 2`: two processes share the port, refuse a port taken by another
process, replace a worker that dies, and stop together (even when the supervisor is
killed)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from app.cli import serving
from app.config import Settings
from app.errors import Unavailable

STARTUP_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_workers_share_one_port_and_stop_on_sigterm(settings: Settings, tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "FAILREF_DATABASE_URL": settings.database_url,
        "FAILREF_REFERENCES_DIR": str(settings.references_dir),
    }
    failref = str(Path(sys.executable).parent / "failref")
    command = [failref, "serve", "--port", str(port), "--workers", "2", "--no-access-log"]
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stderr=log)
    try:
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        workers = _children(server.pid)
        assert len(workers) == 2, (tmp_path / "server.log").read_text()[-2000:]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
            assert response.status == 200
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
    assert server.returncode == 0
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)


def _children(pid: int) -> list[int]:
    """The direct child processes of `pid` (Linux /proc), ignoring the resource tracker."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"resource_tracker" not in cmdline:
            children.append(int(entry.name))
    return children


def test_a_port_someone_listens_on_is_refused(settings: Settings) -> None:
    """Issue 13, item 5: with SO_REUSEPORT a second instance silently took half the requests."""
    with socket.socket() as stranger:
        stranger.bind(("127.0.0.1", 0))
        stranger.listen()
        port = stranger.getsockname()[1]
        with pytest.raises(Unavailable, match="is in use"):
            serving.serve("127.0.0.1", port, 2, False)


def start_supervisor(settings: Settings, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {
        **os.environ,
        "FAILREF_DATABASE_URL": settings.database_url,
        "FAILREF_REFERENCES_DIR": str(settings.references_dir),
    }
    failref = str(Path(sys.executable).parent / "failref")
    command = [failref, "serve", "--port", str(port), "--workers", "2", "--no-access-log"]
    with (tmp_path / "server.log").open("w") as log:  # the child keeps its own copy
        server = subprocess.Popen(command, env=env, stderr=log)
    return server, port


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll until `condition` holds; STARTUP_S only tells a hang from a slow start."""
    deadline = time.monotonic() + STARTUP_S
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.2)


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
            return True
    except OSError:
        return False


def test_a_dead_worker_is_logged_and_replaced(settings: Settings, tmp_path: Path) -> None:
    server, port = start_supervisor(settings, tmp_path)
    try:
        wait_for(lambda: len(_children(server.pid)) == 2 and answers(port), "two workers")
        first, second = _children(server.pid)
        os.kill(first, signal.SIGKILL)
        wait_for(
            lambda: first not in _children(server.pid) and len(_children(server.pid)) == 2,
            "a replacement worker",
        )
        assert second in _children(server.pid)
        wait_for(lambda: answers(port), "the replacement to answer")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    logged = (tmp_path / "server.log").read_text()
    assert f"(pid {first}) died with exit code -9" in logged
    assert server.returncode == 0


def test_workers_stop_when_their_supervisor_is_killed(settings: Settings, tmp_path: Path) -> None:
    server, port = start_supervisor(settings, tmp_path)
    wait_for(lambda: len(_children(server.pid)) == 2 and answers(port), "two workers")
    workers = _children(server.pid)
    server.kill()
    server.wait(timeout=30)
    wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers), "orphans to exit")
    assert not answers(port)


def test_every_worker_runs_with_deadlines_and_a_connection_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 13, item 6: the options uvicorn gets, from the settings and the fd limit."""
    monkeypatch.setenv("FAILREF_HEADER_TIMEOUT_S", "3")
    options = serving.uvicorn_options(access_log=False)
    assert options["http"].header_timeout_s == 3.0
    assert options["http"].body_timeout_s == 60.0
    assert serving.MIN_CONNECTIONS <= options["limit_concurrency"] <= serving.MAX_CONNECTIONS
    assert options["timeout_keep_alive"] == serving.KEEP_ALIVE_S
