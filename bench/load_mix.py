"""The reliability probe's load mix (issue 35), for the soak and the client benches.

Each client holds one keep-alive connection and sends, at random: 45 % `POST
/api/v1/match` of a labelled line, 10 % `POST /api/v1/scan` of a ~3,000-line log, 45 % a
page (`/`, `/references`, `/calculators`, `/api/v1/references`, ten `/r/{id}`). An
editor may save one reference in a loop (`PUT` with `If-Match` and a bearer token).
"""

from __future__ import annotations

import http.client
import json
import random
import re
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
SEED = 35
SCAN_LINES = 3_000
MATCH_SHARE = 0.45
SCAN_SHARE = 0.10
SAVED_REFERENCE = "allreduce-slow-link"


def labelled_lines() -> list[str]:
    lines = []
    for path in sorted((ROOT / "tests" / "data" / "labelled").glob("*.yaml")):
        for line in yaml.safe_load(path.read_text()).get("lines") or []:
            lines.append(str(line["text"]))
    return lines


def scan_log(lines: list[str], rng: random.Random) -> str:
    """A training log of SCAN_LINES lines: progress lines with a labelled line now and then."""
    out = []
    for n in range(SCAN_LINES):
        if rng.random() < 0.02:
            out.append(rng.choice(lines))
        else:
            out.append(
                f"[2025-03-01 10:{n // 60 % 60:02d}:{n % 60:02d},123] [INFO] [rank{n % 8}]: "
                f"step {n} | loss {rng.random() * 4:.4f} | tokens/s {rng.randint(1000, 9000)}"
                f" | lr {rng.random() / 1000:.6f} | grad_norm {rng.random() * 3:.3f}"
            )
    return "\n".join(out)


def pages() -> list[str]:
    ids = sorted(path.stem for path in (ROOT / "references").glob("*.md") if path.stem != "README")
    return ["/", "/references", "/calculators", "/api/v1/references"] + [
        f"/r/{reference}" for reference in ids[:10]
    ]


@dataclass
class Tally:
    """Answers and latencies by kind, shared by the clients (under `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter[str] = field(default_factory=Counter)
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, kind: str, status: str, took_ms: float) -> None:
        with self.lock:
            self.statuses[f"{kind} {status}"] += 1
            self.latencies_ms.setdefault(kind, []).append(took_ms)

    def percentile(self, kind: str, share: float) -> float:
        values = sorted(self.latencies_ms.get(kind, []))
        return values[min(len(values) - 1, int(share * len(values)))] if values else 0.0


class Client(threading.Thread):
    """One keep-alive connection sending the mix until stopped."""

    def __init__(self, port: int, tally: Tally, halt: threading.Event, seed: int) -> None:
        super().__init__(daemon=True)
        self.port, self.tally, self.halt = port, tally, halt
        self.rng = random.Random(seed)
        self.lines = labelled_lines()
        self.logs = [scan_log(self.lines, self.rng) for _ in range(3)]
        self.pages = pages()

    def run(self) -> None:
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=60)
        while not self.halt.is_set():
            kind, method, path, body = self._pick()
            headers = {"content-type": "application/json"} if body else {}
            start = time.monotonic()
            try:
                connection.request(method, path, body=body, headers=headers)
                answer = connection.getresponse()
                answer.read()
                status = str(answer.status)
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                connection.close()
                connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=60)
            self.tally.add(kind, status, (time.monotonic() - start) * 1000)
        connection.close()

    def _pick(self) -> tuple[str, str, str, bytes | None]:
        roll = self.rng.random()
        if roll < MATCH_SHARE:
            body = json.dumps({"log": self.rng.choice(self.lines)}).encode()
            return "match", "POST", "/api/v1/match", body
        if roll < MATCH_SHARE + SCAN_SHARE:
            body = json.dumps({"log": self.rng.choice(self.logs)}).encode()
            return "scan", "POST", "/api/v1/scan", body
        return "page", "GET", self.rng.choice(self.pages), None


def save_once(url: str, token: str, number: int) -> float:
    """One editor's save of the reference at `url` (its API path), its `updated:` date set by
    the save's number so every save changes the file; the seconds the `PUT` took."""
    with urllib.request.urlopen(f"{url}/text", timeout=60) as answer:
        etag = answer.headers["etag"]
        text = answer.read().decode()
    date = ("updated: 2026-01-01", "updated: 2026-01-02")[number % 2]
    edited = re.sub(r"^updated: .*$", date, text, count=1, flags=re.M)
    request = urllib.request.Request(
        url,
        data=edited.encode(),
        method="PUT",
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": etag,
        },
    )
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=60):
        return time.monotonic() - start


class Saver(threading.Thread):
    """An editor saving one reference in a loop, its `updated:` date going back and forth."""

    def __init__(self, port: int, token: str, halt: threading.Event, pause_s: float) -> None:
        super().__init__(daemon=True)
        self.port, self.token, self.halt, self.pause_s = port, token, halt, pause_s
        self.saves = 0
        self.failures: Counter[str] = Counter()

    def run(self) -> None:
        url = f"http://{LOOPBACK}:{self.port}/api/v1/references/{SAVED_REFERENCE}"
        while not self.halt.wait(self.pause_s):
            try:
                save_once(url, self.token, self.saves)
                self.saves += 1
            except OSError as error:
                self.failures[type(error).__name__] += 1


def start_clients(port: int, count: int, tally: Tally, halt: threading.Event) -> list[Client]:
    clients = [Client(port, tally, halt, SEED + n) for n in range(count)]
    for client in clients:
        client.start()
    return clients
