"""Two replicas on one PostgreSQL server: how soon a save on one is served by the other, and
`/api/v1/match` under 32 clients spread over both. Loopback only, bounded.

    bash scripts/with-postgres .venv/bin/python bench/bench_replicas.py [--saves 30]

Needs `FAILREF_TEST_PG_URL` (scripts/with-postgres sets it); makes a database of its own
and drops it. Starts two `failref serve` processes (each with its own copy of the shipped
references, as two machines have; reload interval 2 s, the default, so the periodic check
alone would take up to 2 s), then:
- saves one reference `--saves` times on replica A with `PUT` and times, for each, from
  A's 200 to the moment B serves the new ETag (B's `GET` polled every millisecond);
- sends `POST /api/v1/match` from `--clients` threads (half to each replica, one
  keep-alive connection each) for `--seconds`, and prints requests per second, p50/p99
  and the errors (any status but 200). The rate limit is lifted: every client is
  127.0.0.1 here.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench_api import LOOPBACK, MATCH_BODY, free_port, stop, wait_until_up
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_ID = "nccl-collective-timeout"
FAILREF = str(Path(sys.executable).parent / "failref")


def create_database(server_url: str) -> str:
    name = f"failref_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop_database(server_url: str, url: str) -> None:
    admin = create_engine(server_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"DROP DATABASE {make_url(url).database} WITH (FORCE)"))


def replica_env(url: str, folder: Path, name: str) -> dict[str, str]:
    references = folder / name
    shutil.copytree(ROOT / "references", references)
    env = dict(os.environ)
    env.update(
        FAILREF_DATABASE_URL=url,
        FAILREF_REFERENCES_DIR=str(references),
        FAILREF_RATE_LIMIT_PER_MINUTE="100000000",
    )
    return env


def start(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [FAILREF, "serve", "--host", LOOPBACK, "--port", str(port), "--no-access-log"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stderr=log.open("a"))


def add_editor(env: dict[str, str]) -> str:
    output = subprocess.run(
        [FAILREF, "editor", "add", "bench"], env=env, capture_output=True, text=True, check=True
    ).stdout
    return output.split()[-1]


def get(connection: http.client.HTTPConnection, path: str) -> tuple[int, str, bytes]:
    """GET `path`, opening the connection again if the server closed it while idle."""
    for attempt in range(2):
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.getheader("etag") or "", response.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            connection.close()
            if attempt:
                raise
    raise AssertionError("unreachable")


def save_latencies(ports: tuple[int, int], token: str, saves: int, folder: Path) -> list[float]:
    """Seconds from A's acknowledgement of a save to B serving it, per save; `folder` is
    A's references."""
    a = http.client.HTTPConnection(LOOPBACK, ports[0], timeout=30)
    b = http.client.HTTPConnection(LOOPBACK, ports[1], timeout=30)
    path = f"/api/v1/references/{REFERENCE_ID}"
    latencies = []
    for number in range(saves):
        _, etag, _ = get(a, path)
        source = (folder / f"{REFERENCE_ID}.md").read_text()
        # Only this temporary copy changes: one more sentence in the Context section.
        edited = source.replace("## Context\n\n", f"## Context\n\nBench save {number}. ", 1)
        headers = {"authorization": f"Bearer {token}", "if-match": etag}
        headers["content-type"] = "text/markdown"
        a.request("PUT", path, body=edited.encode(), headers=headers)
        response = a.getresponse()
        answer = response.read()
        acknowledged = time.perf_counter()
        if response.status != 200:
            raise RuntimeError(f"save {number} answered {response.status}: {answer[:300]!r}")
        new_etag = response.getheader("etag")
        while get(b, path)[1] != new_etag:
            time.sleep(0.001)
            if time.perf_counter() - acknowledged > 30:
                raise RuntimeError("replica B did not catch up in 30 s")
        latencies.append(time.perf_counter() - acknowledged)
    return latencies


def match_load(ports: tuple[int, int], clients: int, seconds: float) -> dict[str, float]:
    body = json.dumps(MATCH_BODY).encode()
    latencies: list[float] = []
    errors: list[int] = []
    lock = threading.Lock()
    until = time.perf_counter() + seconds

    def client(port: int) -> None:
        connection = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
        mine: list[float] = []
        bad: list[int] = []
        while time.perf_counter() < until:
            started = time.perf_counter()
            connection.request(
                "POST", "/api/v1/match", body=body, headers={"content-type": "application/json"}
            )
            response = connection.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status != 200:
                bad.append(response.status)
        with lock:
            latencies.extend(mine)
            errors.extend(bad)

    threads = [threading.Thread(target=client, args=(ports[n % 2],)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "requests_per_s": len(ordered) / seconds,
        "p50_ms": ordered[len(ordered) // 2] * 1000,
        "p99_ms": ordered[int(len(ordered) * 0.99)] * 1000,
        "errors": len(errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=30)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    server_url = os.environ.get("FAILREF_TEST_PG_URL")
    if not server_url:
        raise SystemExit("FAILREF_TEST_PG_URL is not set: run me under scripts/with-postgres")
    url = create_database(server_url)
    folder = Path(tempfile.mkdtemp(prefix="failref-bench-replicas-"))
    processes = []
    try:
        envs = [replica_env(url, folder, name) for name in ("a", "b")]
        token = add_editor(envs[0])
        ports = (free_port(), free_port())
        for env, port in zip(envs, ports, strict=True):
            processes.append(start(env, port, folder / "servers.log"))
        for port in ports:
            wait_until_up(f"http://{LOOPBACK}:{port}/readyz", deadline_s=300)
        references_a = Path(envs[0]["FAILREF_REFERENCES_DIR"])
        latencies = save_latencies(ports, token, args.saves, references_a)
        ordered = sorted(latencies)
        print(f"save on A -> served by B, {len(ordered)} saves:")
        print(
            f"  p50 {statistics.median(ordered) * 1000:.1f} ms, "
            f"p99 {ordered[int(len(ordered) * 0.99)] * 1000:.1f} ms, "
            f"max {ordered[-1] * 1000:.1f} ms (periodic check alone: up to 2000 ms)"
        )
        load = match_load(ports, args.clients, args.seconds)
        print(f"POST /api/v1/match, {args.clients} clients over both replicas, {args.seconds} s:")
        print(
            f"  {load['requests_per_s']:.0f} req/s, p50 {load['p50_ms']:.1f} ms, "
            f"p99 {load['p99_ms']:.1f} ms, {load['errors']} errors of {load['requests']}"
        )
    except Exception:
        print((folder / "servers.log").read_text()[-3000:], file=sys.stderr)
        raise
    finally:
        for process in processes:
            stop(process)
        drop_database(server_url, url)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
