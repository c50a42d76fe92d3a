"""The reference lists at 10,000 references (issue 35, item 11), on loopback only.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_lists.py [--references 10000] [--rounds 5]

Writes the shipped references and copies of them with new ids and titles
(`bench_matcher.synthetic_folder`) to a temporary folder, starts `failref serve --workers 1`
on it with an empty SQLite database and prints how long the first start took (until
`/readyz` answers 200) and the worker's RSS; then, for `/`, `/references` and
`GET /api/v1/references` (and a filtered and a last page of each list), the bytes of the
answer (not compressed) and the time it takes: the client's median wall time and the
server's CPU per request (from `/proc`). The same lists served from the shipped
references alone are the anchor: a paginated list costs the same at both sizes.
Then the server is started again on the same database (a restart parses no file).

With `--start-only` it times the two starts alone (no list is fetched), beside the figures
of the code before issue 35, item 11 at that size and the target.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bench_api import LOOPBACK, free_port, start_failref, stop
from bench_matcher import SEED, synthetic_folder
from bench_scale import row

from failref.config import BROWSE_PAGE_SIZE
from failref.domain.references.folder import reference_files

ROOT = Path(__file__).resolve().parent.parent
# Each list, and the pages a reader or a script asks for next.
LISTS = (
    "/",
    "/references",
    "/references?category=inference",
    "/api/v1/references",
    "/api/v1/references?category=inference",
)
# Pages past the first, asked for only when the list says it has them (its last page).
LAST_PAGES = (
    ("/references", "/references?page={last_page}"),
    ("/api/v1/references", "/api/v1/references?offset={last_offset}"),
)
# A list page costs the same at every catalog size; this much is a page of cards.
BYTES_TARGET = "<= 150 KB"
CPU_TARGET = "<= 50 ms"
# The probe's figures at 10,000 references (before issue 35, item 11).
PROBE_START = "probe: 164 s, 2.2 GB"


@dataclass(frozen=True)
class Before:
    """A start of the code before the start-up work of issue 35, item 11 (45d9d2e): wall
    time until ready, the worker's CPU (None: not taken) and RSS once ready."""

    ready_s: float
    cpu_s: float | None
    rss_mb: float


# The code before, by catalog size: (first start, restart), this command run with that
# checkout's interpreter (so its `failref`) on the shared 2-core machine (see
# bench/README.md); 10,000: the lists run of 2ebd787 at load ~1.
BEFORE_STARTS: dict[int, tuple[Before, Before]] = {
    1_000: (Before(21.0, 13.9, 365), Before(8.0, 3.9, 361)),
    2_000: (Before(32.7, 25.7, 573), Before(6.0, 5.9, 567)),
    10_000: (Before(128.7, None, 2_208), Before(27.0, None, 2_163)),
}
# A load no longer renders each file's Markdown (~30 % of parsing it), so a first start
# costs <= 0.75x the CPU; the references lost their HTML (~40 % of their text) and the
# first start its second, JSON-parsed copy of them, so RSS at 10,000 is <= 1,400 MB
# (0.63x; the interpreter and libraries are ~150 MB at any size).
START_TARGET = "CPU <= 0.75x before"
RSS_TARGET = "<= 1,400 MB at 10,000"
START_DEADLINE_S = 900.0
IDLE_CPU_S = 0.02
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Served:
    """One list as served: bytes of the body, median wall time, server CPU per request."""

    size_bytes: int
    wall_ms: float
    cpu_ms: float


@dataclass(frozen=True)
class Started:
    """A start of the server: seconds until ready, RSS once ready and its peak by the end
    (MB)."""

    ready_s: float
    rss_mb: float
    peak_mb: float
    served: int  # references in the index, from /readyz
    cpu_s: float  # the worker's CPU until ready: what the shared machine's load moves least


def process_cpu_s(pid: int) -> float:
    """User and system CPU of the process so far, all threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def process_rss_mb(pid: int, key: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_ready(base: str, process: subprocess.Popen[bytes]) -> float:
    """Seconds from now until /readyz answers 200 (the server was just started)."""
    begin = time.perf_counter()
    while time.perf_counter() - begin < START_DEADLINE_S:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}; see servers.log")
        try:
            with urllib.request.urlopen(f"{base}/readyz", timeout=5) as answer:
                if answer.status == 200:
                    return time.perf_counter() - begin
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.1)
    raise RuntimeError(f"not ready in {START_DEADLINE_S} s")


def wait_idle(pid: int) -> None:
    """Until the server has used under IDLE_CPU_S of CPU in a second: after a start, a thread
    works out the new index's views (`services/warming.py`), and its CPU would be counted
    against the first lists."""
    begin = time.perf_counter()
    while time.perf_counter() - begin < START_DEADLINE_S:
        before = process_cpu_s(pid)
        time.sleep(1.0)
        if process_cpu_s(pid) - before < IDLE_CPU_S:
            return


def fetch(url: str) -> bytes:
    # No Accept-Encoding: the bytes a client that does not gzip receives.
    with urllib.request.urlopen(url, timeout=120) as answer:
        body: bytes = answer.read()
    return body


def serve_list(base: str, path: str, pid: int, rounds: int) -> Served:
    body = fetch(base + path)  # warm: the first read may serialise what later reads reuse
    walls = []
    cpu_before = process_cpu_s(pid)
    for _ in range(rounds):
        begin = time.perf_counter()
        body = fetch(base + path)
        walls.append(time.perf_counter() - begin)
    cpu_per_request_s = (process_cpu_s(pid) - cpu_before) / rounds
    return Served(len(body), statistics.median(walls) * 1000, cpu_per_request_s * 1000)


def last_page_paths(base: str) -> dict[str, str]:
    """The last page of each list, from the API's first page (its total and limit) and the
    browse page's size."""
    first = json.loads(fetch(f"{base}/api/v1/references"))
    total = int(first.get("total", first["count"]))
    limit = int(first.get("limit", total))
    last_offset = (total - 1) // limit * limit
    last_page = (total - 1) // BROWSE_PAGE_SIZE + 1
    return {
        name: pattern.format(last_offset=last_offset, last_page=last_page)
        for name, pattern in LAST_PAGES
    }


def measure(
    folder: Path, database: Path, rounds: int, lists: bool
) -> tuple[Started, dict[str, Served]]:
    """Start the server on `folder` and `database`; time the start and, when `lists`, each list."""
    env = {
        **os.environ,
        "FAILREF_DATABASE_URL": f"sqlite:///{database}",
        "FAILREF_REFERENCES_DIR": str(folder),
        "FAILREF_RATE_LIMIT_PER_MINUTE": "100000000",
        "PYTHONPATH": str(ROOT),
    }
    port = free_port()
    base = f"http://{LOOPBACK}:{port}"
    process = start_failref(port, 1, env)
    try:
        ready_s = wait_ready(base, process)
        cpu_s = process_cpu_s(process.pid)
        rss_mb = process_rss_mb(process.pid)
        served_count = int(json.loads(fetch(f"{base}/readyz"))["references"])
        served: dict[str, Served] = {}
        if lists:
            wait_idle(process.pid)
            paths = [*LISTS, *last_page_paths(base).values()]
            served = {path: serve_list(base, path, process.pid, rounds) for path in paths}
        peak_mb = process_rss_mb(process.pid, "VmHWM")
        return Started(ready_s, rss_mb, peak_mb, served_count, cpu_s), served
    finally:
        stop(process)


def big_folder(scratch: Path, count: int) -> Path:
    """`count` reference files: the shipped ones and copies of them."""
    shipped = reference_files(ROOT / "references")
    folder = synthetic_folder(scratch / "references", count - len(shipped), random.Random(SEED))
    for path in shipped:
        shutil.copy(path, folder / path.name)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--references", type=int, default=10_000, help="catalog size")
    parser.add_argument("--rounds", type=int, default=5, help="requests timed per list")
    parser.add_argument(
        "--start-only", action="store_true", help="time the two starts alone, fetch no list"
    )
    args = parser.parse_args()
    if args.start_only:
        starts(args.references)
        return
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        shipped_start, shipped = measure(ROOT / "references", scratch / "shipped.db", 3, True)
        folder = big_folder(scratch, args.references)
        count = len(reference_files(folder))
        first, served = measure(folder, scratch / "big.db", args.rounds, True)
        restart, _ = measure(folder, scratch / "big.db", args.rounds, False)
    print(
        f"{count:,} reference files, {first.served:,} served (the others are reported as "
        "broken); anchor: the same list at the shipped references\n"
    )
    for path, figures in served.items():
        anchor = shipped.get(path)
        print(path)
        kb_anchor = f"{anchor.size_bytes / 1000:,.1f} KB" if anchor else ""
        row("bytes", f"{figures.size_bytes / 1000:,.1f} KB", kb_anchor, BYTES_TARGET)
        cpu_anchor = f"{anchor.cpu_ms:,.1f} ms" if anchor else ""
        row("server CPU per request", f"{figures.cpu_ms:,.1f} ms", cpu_anchor, CPU_TARGET)
        wall_anchor = f"{anchor.wall_ms:,.1f} ms" if anchor else ""
        row("wall, median", f"{figures.wall_ms:,.1f} ms", wall_anchor, "shown only")
    print("\nstart-up (one worker):")
    shipped_figures = f"shipped {shipped_start.ready_s:,.1f} s, {shipped_start.rss_mb:,.0f} MB"
    row("first start (empty database)", f"{first.ready_s:,.1f} s", shipped_figures, PROBE_START)
    row(
        "RSS once ready, peak after the lists",
        f"{first.rss_mb:,.0f}, {first.peak_mb:,.0f} MB",
        "",
        "shown only",
    )
    row("restart (same database)", f"{restart.ready_s:,.1f} s", "probe: 22 s", "shown only")
    row(
        "RSS once ready, peak",
        f"{restart.rss_mb:,.0f}, {restart.peak_mb:,.0f} MB",
        "",
        "shown only",
    )
    sys.stdout.flush()


def starts(references: int) -> None:
    """First start and restart at `references` files, beside the code before and the target."""
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        folder = big_folder(scratch, references)
        count = len(reference_files(folder))
        first, _ = measure(folder, scratch / "big.db", 1, False)
        restart, _ = measure(folder, scratch / "big.db", 1, False)
    print(f"{count:,} reference files, {first.served:,} served; one worker")
    befores = BEFORE_STARTS.get(references)
    for number, (label, started) in enumerate(
        (("first start (empty database)", first), ("restart (same database)", restart))
    ):
        before = befores[number] if befores else None
        was_s = f"before: {before.ready_s:,.1f} s" if before else "before: not measured"
        row(label, f"{started.ready_s:,.1f} s", was_s, "shown only (load moves it)")
        was_cpu = before.cpu_s if before else None
        was_cpu_s = f"before: {was_cpu:,.1f} s" if was_cpu is not None else ""
        ratio = f" ({started.cpu_s / was_cpu:.2f}x)" if was_cpu else ""
        cpu = f"{started.cpu_s:,.1f} s{ratio}"
        row("  the worker's CPU until ready", cpu, was_cpu_s, START_TARGET)
        was_mb = f"before: {before.rss_mb:,.0f} MB" if before else ""
        row("  RSS once ready", f"{started.rss_mb:,.0f} MB", was_mb, RSS_TARGET)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
