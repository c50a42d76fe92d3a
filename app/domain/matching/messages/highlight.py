"""Where a match was found in the pasted text, for the page to mark."""

from __future__ import annotations

from dataclasses import dataclass

from ..results import Match


@dataclass(frozen=True, slots=True)
class Highlight:
    """The line of the pasted text that matched, split around the matched characters."""

    line: int
    before: str
    marked: str
    after: str


def highlight(text: str, match: Match) -> Highlight | None:
    """Where `match` was found in `text`, for `<mark>`; None when it names no place."""
    if match.matched_span is None:
        return None
    start, end = match.matched_span
    if not 0 <= start <= end <= len(text):
        return None
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    return Highlight(
        line=text.count("\n", 0, start) + 1,
        before=text[line_start:start],
        marked=text[start:end],
        after=text[end:line_end].rstrip("\r"),
    )
