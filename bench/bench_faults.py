"""Two of the reliability probe's scenarios (issue 35), loopback only, bounded in time.

    .venv/bin/python bench/bench_faults.py                 # about 6 min
    .venv/bin/python bench/bench_faults.py --only soak     # one scenario

1. Parallel large pastes: 16 form posts of a 100,000-line log (~13 MB urlencoded) at once
   to `failref serve --workers 1`; the worker's peak RSS (sampled every 50 ms from /proc)
   and the answers. Target: peak <= 600 MB and every answer a 200 or a 503 with
   Retry-After, never a reset (the probe saw 2.6 GB and both workers OOM-killed).
2. Killed workers: `failref serve --workers 2`, one worker SIGKILLed every 2 s, 8 times,
   `/healthz` polled every 0.1 s meanwhile and for 10 s after. Target: the supervisor still
   runs and both workers are back (the probe saw the supervisor stop both for good).
3. Soak: `failref serve --workers 1` under the probe's load mix (bench/load_mix.py: 32
   keep-alive clients, match, scan and pages) for `--soak-seconds` while an editor saves
   one reference in a loop, then the same load without saves; the worker's RSS every
   5 s. Target: RSS at the end with saves <= 1.2x without (the probe saw 169 -> 501 MB
   with saves, 198 -> 237 MB without).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
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
from pathlib import Path

import load_mix

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
PASTES = 16
PASTE_LINES = 100_000
KILLS = 8
KILL_EVERY_S = 2.0
AFTER_KILLS_S = 10.0
PEAK_TARGET_MB = 600
SOAK_CLIENTS = 32
SOAK_SAMPLE_S = 5.0
SOAK_TARGET_RATIO = 1.2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{LOOPBACK}:{port}/healthz", timeout=2):
            return True
    except OSError:
        return False


def serve(port: int, workers: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    failref = str(Path(sys.executable).parent / "failref")
    command = [failref, "serve", "--host", LOOPBACK, "--port", str(port)]
    command += ["--workers", str(workers), "--no-access-log"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=log.open("a"))
    deadline = time.monotonic() + 60
    while not answers(port):
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not come up in 60 s")
        time.sleep(0.2)
    return server


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def paste_body() -> bytes:
    lines = (
        f"[2025-03-01 10:00:{n % 60:02d},123] [INFO] [rank{n % 8}]: step {n} | "
        f"loss {n * 0.001:.4f} | tokens/s {n * 7} | grad_norm {n % 13}.{n % 97}"
        for n in range(PASTE_LINES)
    )
    return urllib.parse.urlencode({"log": "\n".join(lines)}).encode()


def post(port: int, body: bytes, statuses: list[str]) -> None:
    request = urllib.request.Request(
        f"http://{LOOPBACK}:{port}/",
        data=body,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            answer.read()
            statuses.append(str(answer.status))
    except urllib.error.HTTPError as error:
        retry = error.headers.get("retry-after")
        statuses.append(f"{error.code}" + (" with Retry-After" if retry else ""))
    except OSError as error:
        statuses.append(type(error).__name__)


def parallel_pastes(env: dict[str, str], folder: Path) -> None:
    port = free_port()
    server = serve(port, 1, env, folder / "pastes.log")
    try:
        body = paste_body()
        base = rss_mb(server.pid)
        statuses: list[str] = []
        threads = [
            threading.Thread(target=post, args=(port, body, statuses)) for _ in range(PASTES)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        peak = base
        while any(thread.is_alive() for thread in threads):
            peak = max(peak, rss_mb(server.pid))
            time.sleep(0.05)
        took = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    counted = ", ".join(
        f"{count} x {status}" for status, count in sorted(Counter(statuses).items())
    )
    print(f"{PASTES} parallel pastes of {len(body) / 1e6:.1f} MB, 1 worker, in {took:.1f} s")
    print(f"  worker RSS {base:.0f} -> peak {peak:.0f} MB   (target <= {PEAK_TARGET_MB} MB)")
    print(f"  answers: {counted}   (target: 200, or 503 with Retry-After; never a reset)")


def children(pid: int) -> list[int]:
    """The worker processes of the supervisor `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"resource_tracker" not in command:
            found.append(int(entry.name))
    return sorted(found)


def killed_workers(env: dict[str, str], folder: Path) -> None:
    port = free_port()
    supervisor = serve(port, 2, env, folder / "kills.log")
    try:
        while len(children(supervisor.pid)) < 2:
            time.sleep(0.2)
        polls = Counter[bool]()
        kills = 0
        next_kill = time.monotonic()
        end = next_kill + KILLS * KILL_EVERY_S + AFTER_KILLS_S
        while time.monotonic() < end:
            if kills < KILLS and time.monotonic() >= next_kill:
                workers = children(supervisor.pid)
                if workers:
                    os.kill(workers[0], signal.SIGKILL)
                    kills += 1
                next_kill = time.monotonic() + KILL_EVERY_S
            polls[answers(port)] += 1
            time.sleep(0.1)
        alive = supervisor.poll() is None
        workers = len(children(supervisor.pid)) if alive else 0
    finally:
        supervisor.terminate()
        supervisor.wait(timeout=30)
    total = polls[True] + polls[False]
    print(f"{kills} workers SIGKILLed {KILL_EVERY_S:.0f} s apart, 2 workers")
    print(f"  /healthz answered {polls[True]} of {total} polls (shown)")
    print(f"  supervisor running: {alive}, workers now: {workers}   (target: True, 2)")


def soak_rss(env: dict[str, str], folder: Path, seconds: float, saving: bool) -> list[float]:
    """The worker's RSS every SOAK_SAMPLE_S under the load mix, with or without a saver."""
    port = free_port()
    server = serve(port, 1, env, folder / "soak.log")
    halt = threading.Event()
    tally = load_mix.Tally()
    try:
        samples = [rss_mb(server.pid)]
        load_mix.start_clients(port, SOAK_CLIENTS, tally, halt)
        saver = load_mix.Saver(port, env["FAILREF_BENCH_TOKEN"], halt, 0.1)
        if saving:
            saver.start()
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            time.sleep(SOAK_SAMPLE_S)
            samples.append(rss_mb(server.pid))
        halt.set()
    finally:
        server.terminate()
        server.wait(timeout=30)
    answers = sum(tally.statuses.values())
    bad = {status: n for status, n in tally.statuses.items() if not status.endswith(" 200")}
    saves = f", {saver.saves} saves, failed {dict(saver.failures) or 0}" if saving else ""
    print(f"  {'with' if saving else 'without'} saves: RSS {samples[0]:.0f} -> ", end="")
    print(f"{samples[len(samples) // 2]:.0f} (half-way) -> {samples[-1]:.0f} MB; ", end="")
    print(f"{answers} answers, not 200: {bad or 0}{saves}")
    return samples


def soak(env: dict[str, str], folder: Path, seconds: float) -> None:
    # A copy of the references: the editor's saves write the store of record.
    shutil.copytree(ROOT / "references", folder / "references")
    env = {**env, "FAILREF_REFERENCES_DIR": f"{folder}/references", "FAILREF_STORE_QUERIES": "true"}
    failref = str(Path(sys.executable).parent / "failref")
    added = subprocess.run(
        [failref, "editor", "add", "soak"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    env["FAILREF_BENCH_TOKEN"] = added.stdout.decode().split()[-1]
    print(f"Soak: 1 worker, {SOAK_CLIENTS} clients of the probe's mix, {seconds:.0f} s each")
    saving = soak_rss(env, folder, seconds, saving=True)
    plain = soak_rss(env, folder, seconds, saving=False)
    ratio = saving[-1] / plain[-1]
    print(f"  RSS with saves / without: {ratio:.2f}x   (target <= {SOAK_TARGET_RATIO}x)")


SCENARIOS = ("pastes", "kills", "soak")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=SCENARIOS, action="append", help="run only these")
    parser.add_argument("--soak-seconds", type=float, default=180.0, help="each soak's length")
    args = parser.parse_args()
    chosen = args.only or SCENARIOS
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = {
            **os.environ,
            "FAILREF_DATABASE_URL": f"sqlite:///{folder}/bench.db",
            "FAILREF_RATE_LIMIT_PER_MINUTE": "100000000",
            "FAILREF_STORE_QUERIES": "false",
        }
        failref = Path(sys.executable).parent / "failref"
        subprocess.run([str(failref), "load"], cwd=ROOT, env=env, check=True, capture_output=True)
        for which in chosen:
            if which == "pastes":
                parallel_pastes(env, folder)
            elif which == "kills":
                killed_workers(env, folder)
            else:
                soak(env, folder, args.soak_seconds)
            print()


if __name__ == "__main__":
    main()
