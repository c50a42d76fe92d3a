"""Greedy and hostile clients of the reliability probe (issue 35), loopback only, bounded.

    .venv/bin/python bench/bench_clients.py                  # every scenario, ~5 min
    .venv/bin/python bench/bench_clients.py --only idle      # one of them

Each runs `failref serve` on a temporary SQLite database with the shipped references while
a bystander on another address (127.0.0.2) asks `GET /healthz` on a new connection every
0.5 s. Targets from the issue: the bystander answered >= 99 % of the time, no worker dies.
The slow and idle clients come from 127.0.0.3 (uvicorn trusts 127.0.0.1 as a proxy).
- slow: 31 clients post an 8.6 MB form and never read the answer, against a worker whose
  open-file limit is 64 (a 32-connection cap); connections still held after 45 s.
- idle: 1,000 TCP connections that send nothing, held 20 s.
- forwarded: 300 `POST /api/v1/match` from 127.0.0.1 with `X-Forwarded-For: <random>,
  203.0.113.9`, the default rate limit and compose.yaml's FORWARDED_ALLOW_IPS; how many
  pass (the probe's 300 of 300 with "*"; one client's burst is about 60).
- load: 32 keep-alive clients of the probe's mix (bench/load_mix.py) on `--workers 2` for
  60 s with queries stored; match p99 (target <= 1 s) and 503s (target 0).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import load_mix
from bench_faults import children, free_port, rss_mb

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = load_mix.LOOPBACK
BYSTANDER = "127.0.0.2"
# The slow and idle clients' address: not 127.0.0.1, which uvicorn trusts as a proxy by
# default and so exempts from the per-address cap.
ATTACKER = "127.0.0.3"
COMPOSE_TRUST = "172.28.0.0/24"  # compose.yaml's FORWARDED_ALLOW_IPS
SLOW_READERS = 31
SLOW_BODY_LINES = 62_000  # ~8.6 MB urlencoded, as the probe's
SLOW_HOLD_S = 45.0
IDLE_CONNECTIONS = 1_000
IDLE_HOLD_S = 20.0
FORWARDED_REQUESTS = 300
LOAD_CLIENTS = 32
LOAD_S = 60.0


class Bystander(threading.Thread):
    """`GET /healthz` from another address on a new connection every 0.5 s."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.answers: Counter[str] = Counter()
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(0.5):
            try:
                with socket.create_connection((LOOPBACK, self.port), 5, (BYSTANDER, 0)) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    head = sock.recv(64).split(b" ")
                    self.answers[head[1].decode() if len(head) > 1 else "closed"] += 1
            except OSError as error:
                self.answers[type(error).__name__] += 1

    def stop(self) -> str:
        self._halt.set()
        self.join(10)
        total = sum(self.answers.values())
        if not total:
            return "bystander: no poll (the scenario took under 0.5 s)"
        share = 100 * self.answers["200"] / total if total else 0.0
        return f"bystander {share:.1f} % of {total} answered 200 {dict(self.answers)} (>= 99 %)"


def serve(
    port: int, workers: int, env: dict[str, str], log: Path, files: int | None = None
) -> subprocess.Popen[bytes]:
    failref = str(Path(sys.executable).parent / "failref")
    command = [failref, "serve", "--host", LOOPBACK, "--port", str(port)]
    command += ["--workers", str(workers), "--no-access-log"]
    limit = (lambda: _limit_files(files)) if files else None
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=log.open("a"), preexec_fn=limit)
    deadline = time.monotonic() + 90
    while not _answers(port):
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not come up in 90 s")
        time.sleep(0.2)
    return server


def _limit_files(files: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{LOOPBACK}:{port}/healthz", timeout=2):
            return True
    except OSError:
        return False


def workers_of(server: subprocess.Popen[bytes], workers: int) -> list[int]:
    return [server.pid] if workers == 1 else children(server.pid)


def held(port: int) -> int:
    """Established connections to `port` from ATTACKER, as the server sees them."""
    out = subprocess.run(
        ["ss", "-tnH", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in out.splitlines() if line.split()[-1].startswith(f"{ATTACKER}:"))


def slow_readers(port: int, server: subprocess.Popen[bytes]) -> None:
    lines = "\n".join(
        f"[2025-03-01 10:00:{n % 60:02d},123] [INFO] [rank{n % 8}]: step {n} | loss 0.{n:06d}"
        f" | tokens/s {n * 7} | grad_norm {n % 13}.{n % 97} | lr 0.000{n % 997}"
        for n in range(SLOW_BODY_LINES)
    )
    body = urllib.parse.urlencode({"log": lines}).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    base = rss_mb(server.pid)
    socks = []
    for _ in range(SLOW_READERS):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.bind((ATTACKER, 0))
        sock.connect((LOOPBACK, port))
        socks.append(sock)
    senders = [threading.Thread(target=_send, args=(s, head + body)) for s in socks]
    for sender in senders:
        sender.start()
    peak = base
    started = time.monotonic()
    while time.monotonic() - started < SLOW_HOLD_S:
        peak = max(peak, rss_mb(server.pid))
        time.sleep(0.5)
    still = held(port)
    for sock in socks:
        sock.close()
    print(f"{SLOW_READERS} slow readers, {len(body) / 1e6:.1f} MB each, never reading")
    print(f"  worker RSS {base:.0f} -> peak {peak:.0f} MB; held after {SLOW_HOLD_S:.0f} s: {still}")


def _send(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(data)


def idle(port: int, _server: subprocess.Popen[bytes]) -> None:
    socks, refused = [], Counter[str]()
    for _ in range(IDLE_CONNECTIONS):
        try:
            socks.append(socket.create_connection((LOOPBACK, port), 5, (ATTACKER, 0)))
        except OSError as error:
            refused[type(error).__name__] += 1
    time.sleep(2)
    open_after = held(port)
    time.sleep(IDLE_HOLD_S - 2)
    for sock in socks:
        sock.close()
    print(f"{IDLE_CONNECTIONS} idle connections from one address, held {IDLE_HOLD_S:.0f} s")
    print(f"  connected {len(socks)}, refused {dict(refused)}; still open after 2 s: {open_after}")


def forwarded(port: int, _server: subprocess.Popen[bytes]) -> None:
    statuses: Counter[int] = Counter()
    rng = random.Random(35)
    body = json.dumps({"log": "NCCL WARN Call to ibv_reg_mr failed"}).encode()
    for _ in range(FORWARDED_REQUESTS):
        spoofed = ".".join(str(rng.randint(1, 254)) for _ in range(4))
        request = urllib.request.Request(
            f"http://{LOOPBACK}:{port}/api/v1/match",
            data=body,
            headers={
                "content-type": "application/json",
                "x-forwarded-for": f"{spoofed}, 203.0.113.9",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                statuses[answer.status] += 1
        except urllib.error.HTTPError as error:
            statuses[error.code] += 1
    print(f"{FORWARDED_REQUESTS} matches with a rotating X-Forwarded-For, trust {COMPOSE_TRUST}")
    print(f"  answers {dict(sorted(statuses.items()))}   (the probe, trusting '*': 300 x 200)")


def load(port: int, server: subprocess.Popen[bytes]) -> None:
    tally, halt = load_mix.Tally(), threading.Event()
    workers = children(server.pid)
    load_mix.start_clients(port, LOAD_CLIENTS, tally, halt)
    time.sleep(LOAD_S)
    halt.set()
    time.sleep(2)
    count = sum(tally.statuses.values())
    refused = sum(n for status, n in tally.statuses.items() if status.endswith(" 503"))
    print(f"{LOAD_CLIENTS} clients of the probe's mix, 2 workers, queries stored, {LOAD_S:.0f} s")
    print(f"  {count / LOAD_S:.1f} req/s; {dict(sorted(tally.statuses.items()))}")
    for kind in ("match", "scan", "page"):
        p50, p99 = tally.percentile(kind, 0.5), tally.percentile(kind, 0.99)
        print(f"  {kind}: p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    print(f"  match p99 {tally.percentile('match', 0.99):.0f} ms (<= 1,000); 503s {refused} (0)")
    print(f"  workers unchanged: {children(server.pid) == workers}")


SCENARIOS: dict[str, tuple[Callable[[int, subprocess.Popen[bytes]], None], int, dict[str, str]]] = {
    "slow": (slow_readers, 1, {}),
    "idle": (idle, 1, {}),
    "forwarded": (forwarded, 1, {"FORWARDED_ALLOW_IPS": COMPOSE_TRUST}),
    "load": (load, 2, {}),
}
LIFTED = {"FAILREF_RATE_LIMIT_PER_MINUTE": "100000000"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SCENARIOS), action="append")
    chosen = parser.parse_args().only or list(SCENARIOS)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = {**os.environ, "FAILREF_DATABASE_URL": f"sqlite:///{folder}/bench.db"}
        failref = Path(sys.executable).parent / "failref"
        subprocess.run([str(failref), "load"], cwd=ROOT, env=env, check=True, capture_output=True)
        for which in chosen:
            run, workers, extra = SCENARIOS[which]
            scenario_env = {**env, **extra, **({} if which == "forwarded" else LIFTED)}
            port = free_port()
            files = 64 if which == "slow" else None
            server = serve(port, workers, scenario_env, folder / f"{which}.log", files)
            bystander = Bystander(port)
            try:
                pids = workers_of(server, workers)
                bystander.start()
                run(port, server)
                print("  " + bystander.stop())
                alive = all(Path(f"/proc/{pid}").exists() for pid in pids)
                print(f"  server running {server.poll() is None}, first workers alive {alive}\n")
            finally:
                server.terminate()
                server.wait(timeout=30)


if __name__ == "__main__":
    main()
