"""Load benchmark of the JSON API, on loopback only, bounded in time.

    .venv/bin/python bench/bench_api.py [--seconds 8] [--connections 32]

Starts, one after the other, a bare ASGI app that returns a constant JSON body and
failref (`failref serve --workers 1`, then 2) (on a temporary SQLite database with the
shipped references), then drives each with `wrk` (Debian package `wrk`) and prints
requests per second and p50/p99 latency for `GET /api/v1/references/{id}` and
`POST /api/v1/match`, and the ratios issue #7 asks for:
- GET /references/{id} (1 worker) at >= 25% of the bare app's requests per second;
- POST /match with two workers >= 1.7x one worker.
Then, with two workers, `POST /api/v1/match` of lines nothing answers (each a gap to
store, a new one per request) while an editor saves a reference every half second, with
storing on and off: with gaps written off the request path (issue 35, item 4), storing
costs little (p99 within 2x of storing off), no request is refused and a save waits at
most 2 s for the write lock. The same with the probe's crafted lines (5,000 characters
of hyphenated labels before the random words), at full rate, not at the 7.4 req/s the
probe's default budgets allowed.
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
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from load_mix import save_once

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


# The probe's crafted gap (defect 6): a 5,000-character line of hyphenated labels, whose
# redaction took ~150 ms while it was quadratic and inside the write lock.
CRAFTED_RUN = "a-" * 30 + "a."
CRAFTED_REPEATS = 5_000 // len(CRAFTED_RUN)


def unanswered_script(folder: Path, crafted: bool = False) -> Path:
    """POSTs of a line no reference answers, a different one each time (random words; with
    `crafted`, each after the probe's crafted run of hyphenated labels)."""
    script = folder / ("crafted.lua" if crafted else "unanswered.lua")
    padding = f"RuntimeError: {CRAFTED_RUN * CRAFTED_REPEATS} " if crafted else ""
    script.write_text(
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        "local letters = 'abcdefghijklmnopqrstuvwxyz'\n"
        f"local padding = '{padding}'\n"
        "function word()\n"
        "  local out = ''\n"
        "  for _ = 1, 8 do\n"
        "    local at = math.random(1, 26)\n"
        "    out = out .. letters:sub(at, at)\n"
        "  end\n"
        "  return out\n"
        "end\n"
        "request = function()\n"
        "  local line = padding .. 'frobnicator ' .. word() .. ' refused ' .. word()\n"
        "  local body = '{\"log\": \"' .. line .. '\"}'\n"
        "  return wrk.format(nil, nil, nil, body)\n"
        "end\n"
        "done = function(summary, latency, requests)\n"
        '  io.write(string.format("non-2xx %d\\n", summary.errors.status))\n'
        "end\n"
    )
    return script


@dataclass(frozen=True)
class Loaded:
    figures: Figures
    refused: int  # answers that were not 2xx
    saves: int
    slowest_save_s: float


def measure_unanswered(
    env: dict[str, str], args: argparse.Namespace, store: bool, crafted: bool = False
) -> Loaded:
    """Two workers answering unanswered lines while an editor saves every half second."""
    port = free_port()
    process = start_failref(port, 2, {**env, "FAILREF_STORE_QUERIES": str(store).lower()})
    base = f"http://{LOOPBACK}:{port}"
    try:
        wait_until_up(f"{base}/readyz")
        saver = Saver(base, env["FAILREF_BENCH_TOKEN"])
        saver.start()
        folder = Path(env["FAILREF_DATABASE_URL"].removeprefix("sqlite:///")).parent
        lua = unanswered_script(folder, crafted)
        command = ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "--latency"]
        command += ["--timeout", "30s", "-s", str(lua), f"{base}/api/v1/match"]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        saver.stop()
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
        refused = int(re.search(r"non-2xx (\d+)", output).group(1))  # type: ignore[union-attr]
        figures = Figures(rps, _percentile(output, "50"), _percentile(output, "99"))
        return Loaded(figures, refused, saver.saves, max(saver.times, default=0.0))
    finally:
        stop(process)


class Saver(threading.Thread):
    """An editor saving one reference every half second, timing each save."""

    def __init__(self, base: str, token: str) -> None:
        super().__init__(daemon=True)
        self.base, self.token = base, token
        self.times: list[float] = []
        self.saves = 0
        self._halt = threading.Event()

    def run(self) -> None:
        url = f"{self.base}/api/v1/references/{REFERENCE_ID}"
        while not self._halt.wait(0.5):
            self.times.append(save_once(url, self.token, self.saves))
            self.saves += 1

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=60)


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
        # A copy of the references: the editor's saves write the store of record.
        shutil.copytree(ROOT / "references", Path(folder) / "references")
        env = {
            **os.environ,
            "FAILREF_DATABASE_URL": f"sqlite:///{folder}/bench.db",
            "FAILREF_REFERENCES_DIR": f"{folder}/references",
            # The per-client budget would turn most of a load test into 429s.
            "FAILREF_RATE_LIMIT_PER_MINUTE": "100000000",
        }
        # Migrate and load once, so the workers start on a ready database.
        failref = Path(sys.executable).parent / "failref"
        subprocess.run([str(failref), "load"], cwd=ROOT, env=env, check=True)
        lua = post_script(Path(folder))
        added = subprocess.run(
            [str(failref), "editor", "add", "bench"],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        env["FAILREF_BENCH_TOKEN"] = added.stdout.split()[-1]
        print(f"{os.cpu_count()} cores, {args.connections} connections, {args.seconds} s each\n")
        bare = measure_bare(env, args)
        show("bare ASGI app, constant JSON", bare)
        one = measure_failref(1, env, args, lua)
        show("GET /api/v1/references/{id}, 1 worker", one["get"])
        show("POST /api/v1/match, 1 worker", one["match"])
        two = measure_failref(2, env, args, lua)
        show("GET /api/v1/references/{id}, 2 workers", two["get"])
        show("POST /api/v1/match, 2 workers", two["match"])
        print("\nUnanswered lines (a gap each), 2 workers, an editor saving every 0.5 s:")
        stored = measure_unanswered(env, args, store=True)
        unstored = measure_unanswered(env, args, store=False)
        crafted = measure_unanswered(env, args, store=True, crafted=True)
        runs = (("storing gaps", stored), ("storing off", unstored), ("crafted lines", crafted))
        for name, loaded in runs:
            show(f"POST /api/v1/match, {name}", loaded.figures)
            print(
                f"{'':<44} {loaded.refused} not 2xx; {loaded.saves} saves, "
                f"slowest {loaded.slowest_save_s:.2f} s"
            )
    get_ratio = one["get"].requests_per_s / bare.requests_per_s
    match_ratio = two["match"].requests_per_s / one["match"].requests_per_s
    print()
    print(f"GET /references/{{id}} / bare app (1 worker): {get_ratio:.2f}  (target >= 0.25)")
    print(f"POST /match 2 workers / 1 worker:           {match_ratio:.2f}x (target >= 1.7x)")
    gap_cost = stored.figures.p99_ms / unstored.figures.p99_ms
    print(f"unanswered p99 storing / not storing:       {gap_cost:.2f}x (target <= 2x)")
    print(f"unanswered answers not 2xx, storing:        {stored.refused} (target 0)")
    print(
        f"slowest save, storing gaps:                 {stored.slowest_save_s:.2f} s (target <= 2 s)"
    )
    print(
        f"crafted lines: not 2xx, slowest save:       {crafted.refused}, "
        f"{crafted.slowest_save_s:.2f} s (target 0, <= 2 s; the probe saw 13 of 332 503 "
        "and saves up to 23.3 s at 7.4 req/s)"
    )


if __name__ == "__main__":
    main()
