"""The scale figures of bench_matcher.py: normalising throughput, the index built and
updated at 10,000 references, and a million-line log scanned by `failref scan` as a
separate process (start-up included, peak RSS from the kernel) against grep."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from failref.domain.matching.index.match_index import IndexCache, build_index
from failref.domain.matching.reading.bulk import normalize_lines
from failref.domain.matching.reading.normalize import normalize_line
from failref.domain.references.document import Message, Reference
from failref.services.library import settle_heap

ROOT = Path(__file__).resolve().parent.parent
MILLION = 1_000_000
# Peak RSS of the million-line scan, by references folder (issue 20).
PEAK_TARGETS = {"shipped": "<= 200 MB", "1,000": "<= 400 MB"}
# Saves of one reference timed after the full build (the best and the median are shown).
SAVES = 7


def row(label: str, value: str, anchor: str, target: str) -> None:
    """One figure, with what it is compared to and what it should reach."""
    print(f"  {label:34s} {value:>16s}   anchor {anchor:>22s}   target {target}")


def timed(run: Callable[[], object]) -> float:
    begin = time.perf_counter()
    run()
    return time.perf_counter() - begin


def normalising(lines: Sequence[str]) -> None:
    """Lines per second of the whole-text normaliser against the per-line rules."""
    sample = list(lines[:20_000])
    per_line_s = timed(lambda: [normalize_line(line) for line in sample])
    bulk_s = min(timed(lambda: normalize_lines(lines)) for _ in range(2))
    row(
        "normalise, high-entropy",
        f"{len(lines) / bulk_s:,.0f} lines/s",
        f"per line {len(sample) / per_line_s:,.0f}/s",
        ">= 300,000 lines/s",
    )


def index_updates(references: Sequence[Reference]) -> None:
    """A full build, then SAVES saves of one reference (a message line more each time),
    each an update of the last index, at this many references; the heap is settled after
    the full build as the server does after a load."""
    cache = IndexCache()
    full_s = timed(lambda: build_index(references, cache))
    settle_heap()
    changed = list(references)
    middle = len(changed) // 2
    before = cache.built
    update_s = []
    for number in range(SAVES):
        extra = Message(
            text=f"Bench edit {number} <n> happened", line=1, seen_in_markdown="", seen_in_url=None
        )
        changed[middle] = changed[middle].model_copy(
            update={"messages": (*changed[middle].messages, extra)}
        )
        update_s.append(timed(lambda: build_index(changed, cache)))
    rebuilt = cache.built - before
    print(f"index @ {len(references):,} refs ({rebuilt} references rebuilt in {SAVES} saves):")
    row("full build", f"{full_s * 1000:,.0f} ms", "", "<= 1,500 ms")
    row(
        "save of one reference (best, median)",
        f"{min(update_s) * 1000:,.1f}, {statistics.median(update_s) * 1000:,.1f} ms",
        f"full {full_s * 1000:,.0f} ms",
        "<= 50 ms",
    )


# Run in the child: `failref` as the console script runs it, and at exit the child's own
# high-water RSS (VmHWM, kB) written where PEAK_FILE_ENV says. VmHWM belongs to the address
# space the exec made; the parent's rusage cannot give it, as Linux carries `ru_maxrss`
# over `execve`, and a child forked from this process (10,000 references in memory) would
# count the pages it was forked with.
PEAK_FILE_ENV = "BENCH_PEAK_FILE"
CHILD_MAIN = (
    "import atexit, os, re\n"
    "def _peak():\n"
    "    status = open('/proc/self/status').read()\n"
    "    kb = re.search(r'VmHWM:\\s+(\\d+)', status).group(1)\n"
    f"    open(os.environ['{PEAK_FILE_ENV}'], 'w').write(kb)\n"
    "atexit.register(_peak)\n"
    "from failref.cli import main\n"
    "main()\n"
)


def run_measured(
    arguments: list[str], environment: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `failref ARGUMENTS` in a child to the end; its output and its own peak RSS in
    MB (see CHILD_MAIN)."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = Path(folder) / "peak"
        command = [sys.executable, "-c", CHILD_MAIN, *arguments]
        done = subprocess.run(
            command,
            env={**environment, PEAK_FILE_ENV: str(peak_file)},
            capture_output=True,
            text=True,
        )
        peak_kb = float(peak_file.read_text()) if peak_file.exists() else float("nan")
    return done, peak_kb / 1024


def million_lines(make_log: Callable[[int], str], folders: Sequence[tuple[str, Path]]) -> None:
    """`failref scan FILE` over a 1,000,000-line log, in a child process, with each
    references folder (label, folder): first on a fresh database (the start-up parses every
    file), then again on the same database (it parses none)."""
    with tempfile.TemporaryDirectory() as scratch:
        log_path = Path(scratch) / "week.log"
        with log_path.open("w", encoding="utf-8") as out:
            for _ in range(MILLION // 100_000):
                out.write(make_log(100_000))
        size_mb = log_path.stat().st_size / 1e6
        grep = [shutil.which("grep") or "grep", "-c", "ERROR", str(log_path)]
        grep_s = timed(lambda: subprocess.run(grep, capture_output=True, env={"LC_ALL": "C"}))
        for label, folder in folders:
            environment = {
                **os.environ,
                "FAILREF_DATABASE_URL": f"sqlite:///{scratch}/{label}.db",
                "FAILREF_REFERENCES_DIR": str(folder),
                "PYTHONPATH": str(ROOT),
            }
            for start in ("fresh database", "same database again"):
                begin = time.perf_counter()
                done, peak_mb = run_measured(["scan", str(log_path)], environment)
                scan_s = time.perf_counter() - begin
                out = done.stdout.splitlines()
                first = out[0] if done.returncode == 0 and out else done.stderr.strip()[-300:]
                print(f"million-line log ({size_mb:.0f} MB), {label} refs, {start}: {first}")
                anchor = f"grep -c {grep_s:,.2f} s"
                row("wall, start-up included", f"{scan_s:,.1f} s", anchor, "< 60 s")
                target = PEAK_TARGETS.get(label, "")
                row("peak RSS", f"{peak_mb:,.0f} MB", "before: 370-390 MB", target)
