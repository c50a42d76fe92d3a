"""The pasted log as a numbered view the scan's links jump into (`#L123`).

A short log is shown whole. A long one (100,000 lines would be a 10 MB page) is shown as
excerpts around every line the results link to, with the skipped stretches counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...domain.matching.reading.lines import split_lines
from ...domain.matching.results import ScanResult

# Logs up to this many lines are shown whole.
WHOLE_LOG_LINES = 2_000
# Of a longer log, this many lines either side of each linked line.
AROUND_LINES = 5
# Lines shown in all, whatever the log: a page stays a page.
MAX_SHOWN_LINES = 3_000
# A shown line is cut here (the matcher reads no further either).
SHOWN_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class Stretch:
    """Consecutive lines of the log, after `skipped` lines that are not shown."""

    skipped: int
    lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class LogView:
    """What of the log the page shows, in stretches, and how many lines it has."""

    stretches: tuple[Stretch, ...]
    total: int
    whole: bool

    @property
    def trailing(self) -> int:
        """Lines after the last one shown."""
        if not self.stretches or not self.stretches[-1].lines:
            return self.total
        return self.total - self.stretches[-1].lines[-1][0]


def linked_lines(scan: ScanResult) -> set[int]:
    """Every line number the scan's results link to."""
    diagnosis = scan.diagnosis
    wanted: set[int] = set()
    for root in diagnosis.roots:
        wanted.update(root.line_numbers)
        for consequence in root.consequences:
            wanted.update((consequence.first_line, consequence.last_line))
    for line in diagnosis.unrecognised:
        wanted.update(line.line_numbers)
    for hit in scan.hits:
        wanted.update(hit.line_numbers)
    return wanted


def log_view(text: str, wanted: Iterable[int]) -> LogView:
    """The numbered view of `text`: whole when short, else excerpts around `wanted`."""
    lines = split_lines(text)
    total = len(lines)
    if total <= WHOLE_LOG_LINES:
        numbered = tuple((n, line[:SHOWN_CHARS]) for n, line in enumerate(lines, 1))
        return LogView((Stretch(0, numbered),), total, whole=True)
    shown = _around(sorted(set(wanted)), total)
    return LogView(_stretches(lines, shown), total, whole=False)


def _around(wanted: list[int], total: int) -> list[int]:
    shown: set[int] = set()
    for number in wanted:
        if len(shown) >= MAX_SHOWN_LINES:
            break
        low, high = max(1, number - AROUND_LINES), min(total, number + AROUND_LINES)
        shown.update(range(low, high + 1))
    return sorted(shown)


def _stretches(lines: list[str], shown: list[int]) -> tuple[Stretch, ...]:
    stretches: list[Stretch] = []
    current: list[tuple[int, str]] = []
    skipped, previous = 0, 0
    for number in shown:
        if current and number != previous + 1:
            stretches.append(Stretch(skipped, tuple(current)))
            current = []
        if not current:
            skipped = number - previous - 1
        current.append((number, lines[number - 1][:SHOWN_CHARS]))
        previous = number
    if current:
        stretches.append(Stretch(skipped, tuple(current)))
    return tuple(stretches)
