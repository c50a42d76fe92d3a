"""When a log's lines were printed, for the order of its failures.

A pasted log is not always in time order: ranks' or nodes' logs pasted one after another,
`journalctl -r` and web consoles that show the newest line first. When every failure line
the story compares carries a timestamp of one format (its own, or the nearest stamped line
above it: a traceback's lines have none), failures are ordered by that time and then by
line; otherwise, by line alone. Only those few lines are read, never the whole log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

# Lines above an unstamped line searched for the stamp it was printed under.
LOOKBACK_LINES = 30
# Characters at the start of a line a timestamp may sit behind (a rank or container label).
STAMP_CHARS = 80
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAY = 86_400.0
# (name, pattern) by precedence: a date with a year, then without, then a kernel log's
# seconds since boot. Each format's times compare only with times of the same format.
_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "iso",
        re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"),
    ),
    ("glog", re.compile(r"\[?[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")),
    ("month-day", re.compile(r"(?<!\d)(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?")),
    (
        "syslog",
        re.compile(
            r"\b(" + "|".join(_MONTHS) + r")\w* +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?",
            re.IGNORECASE,
        ),
    ),
    ("uptime", re.compile(r"\[\s*(\d{1,9}\.\d{3,9})\]")),
)


@dataclass(frozen=True, slots=True)
class Stamp:
    format: str
    seconds: float


def stamp_of(line: str) -> Stamp | None:
    """The time a line was printed at, from a timestamp near its start; None without one."""
    head = line[:STAMP_CHARS]
    for name, pattern in _FORMATS:
        found = pattern.search(head)
        if found is not None:
            return Stamp(name, _seconds(name, found.groups()))
    return None


def _seconds(name: str, parts: Sequence[str | None]) -> float:
    """Seconds that order times of one format (not an epoch: a year-less date is enough)."""
    if name == "uptime":
        return float(parts[0] or 0)
    if name == "iso":
        year, month, day, *clock = parts
        days = int(year or 0) * 372 + int(month or 0) * 31 + int(day or 0)
    elif name == "syslog":
        month_name, day, *clock = parts
        days = (_MONTHS.index((month_name or "jan")[:3].lower()) + 1) * 31 + int(day or 0)
    else:
        month, day, *clock = parts
        days = int(month or 0) * 31 + int(day or 0)
    hours, minutes, secs, fraction = clock
    within = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(secs or 0)
    return days * _DAY + within + float(f"0.{fraction}" if fraction else 0)


@dataclass(frozen=True, slots=True)
class Clock:
    """The order of a log's lines: by time when the lines compared all carry one format's
    stamps, by line otherwise (`key`)."""

    lines: Sequence[str]
    format: str | None
    times: dict[int, float] = field(default_factory=dict)

    @staticmethod
    def of(lines: Sequence[str], numbers: Iterable[int]) -> Clock:
        """A clock for comparing these 1-based line numbers of `lines` (and others like
        them): by time when each has a stamp and all stamps are of one format."""
        stamps = {number: _stamp_above(lines, number) for number in set(numbers)}
        formats = {stamp.format if stamp else None for stamp in stamps.values()}
        if len(stamps) < 2 or len(formats) != 1 or None in formats:
            return Clock(lines, None)
        times = {number: stamp.seconds for number, stamp in stamps.items() if stamp}
        return Clock(lines, formats.pop(), times)

    def key(self, line: int) -> tuple[float, int]:
        """Sorts lines by the time they were printed at, then by line; by line when the
        clock reads no times."""
        if self.format is None:
            return (0.0, line)
        if line not in self.times:
            stamp = _stamp_above(self.lines, line)
            same = stamp is not None and stamp.format == self.format
            self.times[line] = stamp.seconds if stamp is not None and same else 0.0
        return (self.times[line], line)

    def earliest(self, first: int, last: int) -> tuple[float, int]:
        """The key of a hit spanning `first` to `last`: its earlier end in time."""
        return min(self.key(first), self.key(last))


def _stamp_above(lines: Sequence[str], number: int) -> Stamp | None:
    """The stamp of line `number` (1-based) or of the nearest stamped line above it."""
    for index in range(number - 1, max(-1, number - 1 - LOOKBACK_LINES), -1):
        if 0 <= index < len(lines):
            found = stamp_of(lines[index])
            if found is not None:
                return found
    return None
