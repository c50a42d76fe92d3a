"""What a revision changed, in words, for a history entry saved without a message: the
front matter keys and the sections whose lines changed ("title and summary changed"), or
how many lines when it touched more than a few parts.

It reads lines only (a front matter key, a `## Section` heading), so it describes any text,
one that does not parse included.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from .merge import split_lines

# Past this many parts a list of names reads worse than a count of lines.
MAX_PARTS_NAMED = 3
# The editor sets `updated:` on every save: named only when nothing else changed.
BOOKKEEPING_KEYS = frozenset({"updated"})
FRONT_MATTER_FENCE = "---"
FRONT_MATTER_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
SECTION_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$")


def part_of_each_line(lines: list[str]) -> list[str]:
    """The part each line belongs to: its front matter key ("front matter" for the fences),
    its section's heading in lower case, or "text before the sections"."""
    parts: list[str] = []
    inside = bool(lines) and lines[0].strip() == FRONT_MATTER_FENCE
    current = "front matter" if inside else "text before the sections"
    for number, line in enumerate(lines):
        if inside and number > 0 and line.strip() == FRONT_MATTER_FENCE:
            inside = False
            parts.append("front matter")
            current = "text before the sections"
            continue
        key = FRONT_MATTER_KEY.match(line) if inside else None
        heading = None if inside else SECTION_HEADING.match(line)
        if key:
            current = key.group(1)
        elif heading:
            current = heading.group(1).lower()
        parts.append(current)
    return parts


def describe_change(old: str, new: str) -> str:
    """A short description of what turned `old` into `new`."""
    before, after = split_lines(old), split_lines(new)
    if not before:
        return "created"
    old_parts, new_parts = part_of_each_line(before), part_of_each_line(after)
    changed: list[str] = []
    lines = 0
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for tag, start, end, first, last in matcher.get_opcodes():
        if tag == "equal":
            continue
        lines += max(end - start, last - first)
        touched = old_parts[start:end] + new_parts[first:last]
        changed.extend(part for part in touched if part not in changed)
    if not lines:
        return "no change"
    named = [part for part in changed if part not in BOOKKEEPING_KEYS] or changed
    if len(named) > MAX_PARTS_NAMED:
        return f"{lines} lines changed"
    return f"{_listed(named)} changed"


def _listed(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
