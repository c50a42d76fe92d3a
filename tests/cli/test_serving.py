"""`failref serve --workers 2`: two processes share the port, refuse a port taken by another
process, replace a worker that dies, and stop together (even when the supervisor is
killed)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from servers import answers, free_port, serve_command, serve_env, wait_for

from failref.cli import serving
from failref.config import Settings
from failref.errors import Unavailable


def start_supervisor(settings: Settings, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`failref serve --workers 2` on a free port, its log in tmp_path/server.log."""
    port = free_port()
    command = serve_command(port, "--workers", "2")
    with (tmp_path / "server.log").open("w") as log:  # the child keeps its own copy
        server = subprocess.Popen(command, env=serve_env(settings), stderr=log)
    return server, port


def test_two_workers_share_one_port_and_stop_on_sigterm(settings: Settings, tmp_path: Path) -> None:
    server, port = start_supervisor(settings, tmp_path)
    try:
        wait_for(lambda: len(_children(server.pid)) == 2 and answers(port), "two workers")
        workers = _children(server.pid)
        assert answers(port, "/readyz"), (tmp_path / "server.log").read_text()[-2000:]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
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
    monkeypatch.setenv("FAILREF_CLIENT_CONNECTIONS", "7")
    options = serving.uvicorn_options(access_log=False)
    policy = options["http"].policy
    assert (policy.header_timeout_s, policy.body_timeout_s) == (3.0, 60.0)
    assert (policy.write_timeout_s, policy.client_connections) == (30.0, 7)
    assert serving.MIN_CONNECTIONS <= options["limit_concurrency"] <= serving.MAX_CONNECTIONS
    assert options["timeout_keep_alive"] == serving.KEEP_ALIVE_S


def test_a_worker_listens_only_once_its_app_has_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 35, defect 9: a worker listened before loading (2-3 s), so the kernel queued
    connections on it meanwhile, and a worker killed while loading reset them all. uvicorn
    gets a bound socket that is not listening; it listens after the app's start-up."""
    given: list[socket.socket] = []

    class Server:
        def __init__(self, _config: object) -> None:
            pass

        def run(self, sockets: list[socket.socket]) -> None:
            given.extend(sockets)

    monkeypatch.setattr(serving.logging.config, "dictConfig", lambda _config: None)
    monkeypatch.setattr(serving, "fix_mmap_threshold", lambda: True)
    monkeypatch.setattr(serving, "_stop_when_orphaned", lambda _pid: None)
    monkeypatch.setattr(serving.uvicorn, "Server", Server)
    port = free_port()
    serving._worker("127.0.0.1", port, False, os.getpid())
    with given[0] as sock:
        assert sock.getsockname() == ("127.0.0.1", port)
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 0
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1


def test_under_a_small_open_file_limit_one_address_leaves_half_the_slots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 35, defect 1: at an open-file limit of 64 a worker takes 32 connections; with a
    per-address cap of 32, 31 slow readers from one address left a bystander 503s."""
    monkeypatch.setattr(serving.resource, "getrlimit", lambda _which: (64, 64))
    options = serving.uvicorn_options(access_log=False)
    assert options["limit_concurrency"] == 32
    assert options["http"].policy.client_connections == 16


# Issue 35, items 2 and 9: deaths in one slot never stop the others' workers.


def test_a_slot_dying_quickly_waits_longer_each_time_up_to_a_cap() -> None:
    restarts = serving.Restarts(2)
    waits = [restarts.died(0, lived_s=1.0) for _ in range(10)]
    assert waits[:4] == [serving.BACKOFF_S * 2**n for n in range(4)]
    assert waits == sorted(waits)
    assert waits[-1] == serving.MAX_BACKOFF_S
    assert restarts.died(0, lived_s=serving.QUICK_DEATH_S + 1) == 0.0  # lived long: reset
    assert restarts.died(0, lived_s=1.0) == serving.BACKOFF_S


def test_a_slot_that_never_lives_is_retried_while_another_worker_serves() -> None:
    restarts = serving.Restarts(2)
    for _ in range(1000):  # a worker killed for memory, round after round
        assert restarts.died(0, lived_s=0.5) <= serving.MAX_BACKOFF_S
        assert not restarts.crash_loop(alive=1)


def test_every_slot_dying_at_start_with_none_alive_is_a_crash_loop() -> None:
    restarts = serving.Restarts(2)
    for _ in range(serving.MAX_QUICK_DEATHS + 1):
        restarts.died(0, lived_s=0.1)
    assert not restarts.crash_loop(alive=0)  # the other slot has not failed yet
    for _ in range(serving.MAX_QUICK_DEATHS + 1):
        restarts.died(1, lived_s=0.1)
    assert restarts.crash_loop(alive=0)
    assert not restarts.crash_loop(alive=1)
