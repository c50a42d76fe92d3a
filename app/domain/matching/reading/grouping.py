"""A log's lines grouped by normal form: cheap digit buckets first, then one normalisation
per bucket, fed a chunk of lines at a time so a long log is never held whole."""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

from .bulk import ZERO_DIGITS, normalize_lines
from .lines import NOISE_RE
from .normalize import MAX_LINE_CHARS

DIGITS_RE = re.compile(r"\d+")
# Line numbers are kept as C unsigned ints, 4 bytes each: as Python ints in a list they
# took 36 bytes a line, 36 MB of a million-line log's scan.
LINE_NUMBER_TYPE = "I"


@dataclass(slots=True)
class TemplateGroup:
    """Log lines that share one normalised form."""

    template: str
    line_numbers: array[int]
    noise: bool = False
    keys: int = 1


class LineGrouper:
    """Digit buckets of the lines fed so far: memory grows with the distinct lines' shapes,
    and 4 bytes a line (a line seen once keeps its number as a plain int)."""

    def __init__(self) -> None:
        self.lines = 0
        self._buckets: dict[str, int | array[int]] = {}

    def add(self, lines: Sequence[str]) -> None:
        """Bucket the next lines, numbered on from the ones before. Every ASCII digit is a
        `0` here (one C-level pass over the chunk); `buckets` merges what remains."""
        zeroed = "\n".join(lines).translate(ZERO_DIGITS)
        if zeroed.count("\n") == len(lines) - 1:
            keys = zeroed.split("\n") if lines else []
            del zeroed
        else:
            keys = [line.translate(ZERO_DIGITS) for line in lines]
        # A line without digits is its own key: held once, not twice.
        keys = [line if key == line else key for key, line in zip(keys, lines, strict=True)]
        buckets, base = self._buckets, self.lines
        for number, key in enumerate(keys, base + 1):
            seen = buckets.get(key)
            if seen is None:
                buckets[key] = number
            elif type(seen) is int:
                buckets[key] = array(LINE_NUMBER_TYPE, (seen, number))
            else:
                seen.append(number)  # type: ignore[union-attr]
        self.lines += len(lines)

    def buckets(self, lines: Sequence[str]) -> list[array[int]]:
        """The 1-based numbers of the lines that are equal once each run of digits in their
        first MAX_LINE_CHARS is one `0`, in first-seen order; `lines` are every line fed."""
        merged: dict[str, int | array[int]] = {}
        parts: dict[str, list[int | array[int]]] = {}  # only the keys that merge several
        for key, seen in self._buckets.items():
            head = key[:MAX_LINE_CHARS]
            if "0" in head or not key.isascii():
                line = lines[(seen if isinstance(seen, int) else seen[0]) - 1]
                head = DIGITS_RE.sub("0", line[:MAX_LINE_CHARS])
            held = merged.setdefault(head, seen)
            if held is not seen:
                parts.setdefault(head, [held]).append(seen)
        for coarse, some in parts.items():
            merged[coarse] = array(
                LINE_NUMBER_TYPE,
                sorted(chain.from_iterable([n] if isinstance(n, int) else n for n in some)),
            )
        return [
            array(LINE_NUMBER_TYPE, (numbers,)) if isinstance(numbers, int) else numbers
            for numbers in merged.values()
        ]

    def groups(self, lines: Sequence[str]) -> list[TemplateGroup]:
        """One group per distinct normalised line, in first-seen order; `lines` are every
        line fed, by position (read only for the lines after traceback frames)."""
        buckets = self.buckets(lines)
        self._buckets = {}  # what normalising needs is in `buckets` now
        templates = normalize_lines([lines[numbers[0] - 1] for numbers in buckets])
        groups: dict[str, TemplateGroup] = {}
        for numbers, template in zip(buckets, templates, strict=True):
            if not template:
                continue
            group = groups.get(template)
            if group is None:
                groups[template] = TemplateGroup(template, numbers, bool(NOISE_RE.match(template)))
            else:
                group.line_numbers.extend(numbers)
                group.keys += 1
        result = list(groups.values())
        for group in result:
            if group.keys > 1:
                group.line_numbers = array(LINE_NUMBER_TYPE, sorted(group.line_numbers))
        _mark_source_echoes(result, lines)
        return result


def group_log_lines(lines: Sequence[str]) -> list[TemplateGroup]:
    """Normalise and deduplicate: one group per distinct normalised line, in first-seen order."""
    grouper = LineGrouper()
    grouper.add(lines)
    return grouper.groups(lines)


def digit_buckets(lines: Sequence[str]) -> list[array[int]]:
    """The digit buckets of some lines (see `LineGrouper.buckets`)."""
    grouper = LineGrouper()
    grouper.add(lines)
    return grouper.buckets(lines)


def _mark_source_echoes(groups: list[TemplateGroup], lines: Sequence[str]) -> None:
    """Mark as noise the indented source lines a traceback prints under each frame."""
    echo_lines = {
        number + 1
        for group in groups
        if group.noise and group.template.startswith("File ")
        for number in group.line_numbers
        if number < len(lines) and lines[number][:1] in (" ", "\t")
    }
    if not echo_lines:
        return
    for group in groups:
        if not group.noise and all(n in echo_lines for n in group.line_numbers):
            group.noise = True
