"""Bad input for bench_matcher.py: each answered, and how fast."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import match_text
from failref.domain.redact import redact
from failref.domain.references.document import Reference
from failref.errors import LogTooLarge

LOG_LINES = 100_000
# Redaction runs on every unanswered paste's first line (cut at 4,000 characters) before it
# is stored: each adversarial run must cost little there and grow linearly past it.
REDACT_CHARS = (4_000, 16_000)
REDACT_TARGET_MS = 10.0  # at 4,000 characters
REDACT_GROWTH_TARGET = 6.0  # 16,000 against 4,000 characters; linear is 4
REDACT_RUNS: dict[str, str] = {
    "hyphenated dotted run": "a-" * 30 + "a.",
    "token prefixes": "nvapi-glpat-",
    "base64 with slashes": "aB3/",
    "secret-named flags": " --a-key",
    "password words": " password",
    "user flags": " -u a",
    "url parameters": "?sig=",
    "home paths": "/home/a",
}


def bad_input(references: Sequence[Reference], rng: random.Random) -> None:
    """Each bad input answered, and how fast."""
    index = build_index(references)
    junk = bytes(rng.getrandbits(8) for _ in range(1 << 20)).decode("latin-1")
    cases = {
        "empty": "",
        "blank": "  \n\t\n",
        "binary junk 1 MB": junk,
        "NUL bytes": "\x00" * 10_000,
        "single 1 MB line": "x" * (1 << 20),
        "numbers only": "\n".join(str(rng.randint(0, 10**9)) for _ in range(2_000)),
        "regex metacharacters": "(((([[[[.*+?^$\\1{999999}|" * 2_000,
        "unbalanced brackets": "[rank0]:[E ((( {{{ <<< " * 5_000,
    }
    for name, text in cases.items():
        begin = time.perf_counter()
        try:
            outcome = f"{len(match_text(index, text).matches)} matches"
        except LogTooLarge as error:
            outcome = f"LogTooLarge: {error}"
        match_ms = (time.perf_counter() - begin) * 1000
        begin = time.perf_counter()
        scan = scan_log(index, text)
        scan_ms = (time.perf_counter() - begin) * 1000
        print(
            f"  {name:22s} match {match_ms:8.1f} ms ({outcome}); "
            f"scan {scan_ms:8.1f} ms ({len(scan.hits)} hits)"
        )
    big = "x\n" * (LOG_LINES + 1)
    begin = time.perf_counter()
    try:
        scan_log(index, big)
    except LogTooLarge as error:
        took_ms = (time.perf_counter() - begin) * 1000
        print(f"  over the line limit      scan {took_ms:.1f} ms: {error}")


def redaction() -> None:
    """Redaction of adversarial runs: time at 4,000 characters and growth to 16,000."""
    for name, unit in REDACT_RUNS.items():
        took = []
        for chars in REDACT_CHARS:
            text = "RuntimeError: " + unit * (chars // len(unit))
            begin = time.perf_counter()
            redact(text)
            took.append((time.perf_counter() - begin) * 1000)
        growth = took[1] / max(took[0], 1e-3)
        print(
            f"  redact {name:22s} {took[0]:7.2f} ms at 4,000 chars (target <= "
            f"{REDACT_TARGET_MS:.0f}), x{growth:4.1f} at 16,000 (target <= "
            f"{REDACT_GROWTH_TARGET:.0f}, linear 4)"
        )
