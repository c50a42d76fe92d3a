"""Status output read field by field: `nvidia-smi -q`, `ibstat`, counters a check prints.

A diagnostic block matches every block of its shape in a log (eight GPUs print eight
`Remapped Rows` sections), and the lines that resemble it include healthy fields. Each
place the block starts is read on its own; the first one whose values make a failing rule
hold is the reading, and the lines holding those values (`Pending : Yes`, not the counts
beside it) are the lines the failure is shown on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

from ...references.document import Message
from ...references.values import failing_names, read_placed
from ..judging.judge import value_verdict
from ..results import ValueVerdict

# Places a block is read at in one log: a stats line printed every few seconds matches
# thousands of lines, and the first failing reading is what the story needs.
MAX_READINGS = 1_000


@dataclass(frozen=True, slots=True)
class FieldReading:
    """A failing reading of a diagnostic block: its verdict and the failing fields' lines
    (1-based, ascending, over every place that read failing)."""

    verdict: ValueVerdict
    lines: list[int]


def failing_fields(
    message: Message, lines: Sequence[str], starts: Iterable[int], size: int
) -> FieldReading | None:
    """Read `message` at each start line (1-based, ascending) over `size` lines; the first
    failing reading and every failing field's line, or None when no place reads failing.
    Blocks that can only be judged across lines are never read here."""
    if message.kind != "diagnostic" or message.judged_across or not message.failing_when:
        return None
    first: ValueVerdict | None = None
    found: set[int] = set()
    for start in islice(starts, MAX_READINGS):
        window = "\n".join(lines[start - 1 : start - 1 + size])
        placed = read_placed(window, message.slots)
        values = {name: value for name, (value, _) in placed.items()}
        names = failing_names(message.failing_when, values)
        if not names:
            continue
        if first is None:
            first = value_verdict(message, values)
        found.update(start + window.count("\n", 0, placed[name][1]) for name in names)
    return FieldReading(first, sorted(found)) if first is not None else None
