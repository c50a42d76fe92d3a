"""Load benchmark of the JSON API, on loopback only, bounded in time.

    .venv/bin/python bench/bench_api.py [--seconds 8] [--connections 32]

Starts, one after the other, a bare ASGI app that returns a constant JSON body and
failref (`failref serve --workers 1`, then 2) (on a temporary SQLite database with the
shipped references), then drives each with `wrk` (Debian package `wrk`) and prints
requests per second and p50/p99 latency for `GET /api/v1/references/{id}` and
`POST /api/v1/match`, and the ratios issue #7 asks for:
- GET /references/{id} (1 worker) at >= 25% of the bare app's requests per second;
- POST /match with two workers >= 1.7x one worker.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_ID = "allreduce-slow-link"
MATCH_BODY = {
    "log": "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1543, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=600000) ran for 600215 milliseconds before timing out."
}
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Figures:
    requests_per_s: float
    p50_ms: float
    p99_ms: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, deadline_s: float = 60) -> None:
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up in {deadline_s} s")


def start_bare(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "uvicorn", "bench.bare_app:app", "--host", LOOPBACK]
    command += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stderr=server_log(env))


def server_log(env: dict[str, str]) -> TextIO:
    """Servers log to a file beside the database, so their lines do not hide the figures."""
    folder = Path(env["FAILREF_DATABASE_URL"].removeprefix("sqlite:///")).parent
    return (folder / "servers.log").open("a")


def start_failref(port: int, workers: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`failref serve` as it is deployed, without the access log (the bare app has none)."""
    failref = str(Path(sys.executable).parent / "failref")
    command = [failref, "serve", "--host", LOOPBACK, "--port", str(port)]
    command += ["--workers", str(workers), "--no-access-log"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stderr=server_log(env))


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def wrk(url: str, seconds: int, connections: int, script: Path | None = None) -> Figures:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    if script is not None:
        command += ["-s", str(script)]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    return Figures(rps, _percentile(output, "50"), _percentile(output, "99"))


def _percentile(output: str, which: str) -> float:
    match = re.search(rf"^\s+{which}%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no {which}% latency in wrk output:\n{output}")
    value, unit = float(match.group(1)), match.group(2)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def post_script(folder: Path) -> Path:
    script = folder / "post.lua"
    body = json.dumps(MATCH_BODY).replace("\\", "\\\\").replace('"', '\\"')
    script.write_text(
        'wrk.method = "POST"\n'
        f'wrk.body = "{body}"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
    )
    return script


def measure_failref(
    workers: int, env: dict[str, str], args: argparse.Namespace, lua: Path
) -> dict[str, Figures]:
    port = free_port()
    process = start_failref(port, workers, env)
    base = f"http://{LOOPBACK}:{port}"
    try:
        wait_until_up(f"{base}/readyz")
        return {
            "get": wrk(f"{base}/api/v1/references/{REFERENCE_ID}", args.seconds, args.connections),
            "match": wrk(f"{base}/api/v1/match", args.seconds, args.connections, lua),
        }
    finally:
        stop(process)


def measure_bare(env: dict[str, str], args: argparse.Namespace) -> Figures:
    port = free_port()
    process = start_bare(port, env)
    try:
        wait_until_up(f"http://{LOOPBACK}:{port}/")
        return wrk(f"http://{LOOPBACK}:{port}/", args.seconds, args.connections)
    finally:
        stop(process)


def show(name: str, figures: Figures) -> None:
    print(
        f"{name:<44} {figures.requests_per_s:>10.0f} req/s"
        f"   p50 {figures.p50_ms:>8.2f} ms   p99 {figures.p99_ms:>8.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=8, help="length of each measurement")
    parser.add_argument("--connections", type=int, default=32, help="concurrent clients")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is missing: apt-get install -y wrk")
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "FAILREF_DATABASE_URL": f"sqlite:///{folder}/bench.db",
            # The per-client budget would turn most of a load test into 429s.
            "FAILREF_RATE_LIMIT_PER_MINUTE": "100000000",
        }
        # Migrate and load once, so the workers start on a ready database.
        failref = Path(sys.executable).parent / "failref"
        subprocess.run([str(failref), "load"], cwd=ROOT, env=env, check=True)
        lua = post_script(Path(folder))
        print(f"{os.cpu_count()} cores, {args.connections} connections, {args.seconds} s each\n")
        bare = measure_bare(env, args)
        show("bare ASGI app, constant JSON", bare)
        one = measure_failref(1, env, args, lua)
        show("GET /api/v1/references/{id}, 1 worker", one["get"])
        show("POST /api/v1/match, 1 worker", one["match"])
        two = measure_failref(2, env, args, lua)
        show("GET /api/v1/references/{id}, 2 workers", two["get"])
        show("POST /api/v1/match, 2 workers", two["match"])
    get_ratio = one["get"].requests_per_s / bare.requests_per_s
    match_ratio = two["match"].requests_per_s / one["match"].requests_per_s
    print()
    print(f"GET /references/{{id}} / bare app (1 worker): {get_ratio:.2f}  (target >= 0.25)")
    print(f"POST /match 2 workers / 1 worker:           {match_ratio:.2f}x (target >= 1.7x)")


if __name__ == "__main__":
    main()
