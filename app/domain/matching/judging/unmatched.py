"""Error-looking lines that no reference matched: shown under a scan's roots and offered
to the gaps queue, so the docs team sees what to write next. The lines launchers and
engines print on top of the real error, and a traceback's header and frames, are not
among them: the wrappers are kept apart (a scan folds them under its root), the
scaffolding dropped, so the list and the queue hold the errors themselves."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..reading.evidence import line_level
from ..reading.teardown import is_scaffold, is_wrapper
from ..results import UnrecognisedLine

# What makes a line look like a failure to a reader: errors, exceptions, exit codes and
# signals. Warnings and slowness words are left out (they are rarely what killed a run).
# `error` as a word or an exception class (`RuntimeError`), not "errors might be reported".
ERROR_LOOKING_RE = re.compile(
    r"\berror\b|[a-z]Error\b|exception|fatal|traceback|exit ?code|exit status|failed|failure"
    r"|abort|killed|segmentation fault|core dumped|panic|terminate called"
    r"|\bsig(?:abrt|kill|segv|bus)\b",
    re.IGNORECASE,
)
# The page and the API list the first of them by line; the count covers all.
MAX_UNRECOGNISED = 20
# An unrecognised line is shown cut to this many characters.
SHOWN_CHARS = 300


def looks_like_an_error(template: str, raw: str) -> bool:
    """True for a line that reads as a failure and was not logged at INFO or DEBUG."""
    return bool(ERROR_LOOKING_RE.search(template)) and line_level(raw) not in ("debug", "info")


@dataclass(frozen=True, slots=True)
class Unmatched:
    """What of a log matched nothing: the first error-looking lines (`shown`), how many
    log lines they cover (`total`), and the wrapper lines (first line, line numbers)."""

    shown: list[UnrecognisedLine] = field(default_factory=list)
    total: int = 0
    wrappers: list[tuple[int, list[int]]] = field(default_factory=list)


def unrecognised_lines(
    groups: Sequence[tuple[str, Sequence[int]]], lines: Sequence[str], line_cap: int
) -> Unmatched:
    """The first MAX_UNRECOGNISED error-looking templates that matched nothing, by first line,
    and how many log lines they cover in all, and the wrapper lines apart; `groups` are
    (template, line numbers)."""
    found: list[tuple[Sequence[int], str]] = []
    wrappers: list[tuple[int, list[int]]] = []
    for template, numbers in groups:
        raw = lines[numbers[0] - 1]
        if is_wrapper(raw):
            wrappers.append((numbers[0], list(numbers[: max(0, line_cap)])))
        elif not is_scaffold(raw) and looks_like_an_error(template, raw):
            found.append((numbers, raw))
    found.sort(key=lambda item: item[0][0])
    wrappers.sort()
    shown = [
        UnrecognisedLine(
            line=numbers[0],
            text=raw[:SHOWN_CHARS],
            count=len(numbers),
            line_numbers=list(numbers[: max(0, line_cap)]),
        )
        for numbers, raw in found[:MAX_UNRECOGNISED]
    ]
    return Unmatched(shown, sum(len(numbers) for numbers, _ in found), wrappers)
