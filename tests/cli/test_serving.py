"""`failref serve --workers 2`: two processes share the port and stop together."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from app.config import Settings

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
