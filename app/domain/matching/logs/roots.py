"""What a root of a log's story carries beside its match: the lines quoted around it,
whether it is an advisory rather than a failure, and the consequences folded under it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..reading.evidence import line_level
from ..results import Consequence, LogLine, Root, ScanHit

# Lines quoted around a root's first line.
CONTEXT_BEFORE = 3
CONTEXT_AFTER = 3
CONTEXT_CHARS = 500
# Python's warnings module prints `UserWarning:`, `FutureWarning:` and the like.
PYTHON_WARNING_RE = re.compile(r"\b[A-Z]\w*Warning:")


def quoted_context(lines: Sequence[str], number: int) -> list[LogLine]:
    """The lines around line `number` (1-based), each cut to CONTEXT_CHARS."""
    start = max(1, number - CONTEXT_BEFORE)
    end = min(len(lines), number + CONTEXT_AFTER)
    return [LogLine(number=n, text=lines[n - 1][:CONTEXT_CHARS]) for n in range(start, end + 1)]


def advisory(root: Root, lines: Sequence[str]) -> bool:
    """A warning rather than a failure: it rarely ends a run, so it sorts after failures."""
    first = lines[root.line - 1]
    warned = line_level(first) == "warning" and "NCCL WARN" not in first
    return warned or bool(PYTHON_WARNING_RE.search(first))


def consequence_of(hit: ScanHit, why: str) -> Consequence:
    """A hit folded under a root, with why it follows."""
    return Consequence(
        id=hit.id,
        title=hit.title,
        first_line=hit.first_line,
        last_line=hit.last_line,
        count=hit.count,
        ranks=hit.ranks,
        hosts=hit.hosts,
        why=why,
    )
