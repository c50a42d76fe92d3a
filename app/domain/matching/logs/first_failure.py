"""The first failure of a log is its root, covered or not; wrappers fold under it.

**The first line that states a failure** (an exception, a crash, an ERROR line:
`reading.teardown`) before every covered failure is the first root, with `id: None` when
no page covers it and the closest pages as leads; a covered failure printed within
EVENT_LINES after it is the same event told again (the C++ `what():` under a Python
exception) and takes its line. Waiting symptoms that begin after it fold under it.

**Wrappers are never roots** while anything else failed: hits on pages tagged `wrapper`
(torchrun's summary, a start-up wrapper, a dead actor) and the wrapper lines nothing
matched fold under the first root (`logs.story` decides which hits are wrappers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..index.match_index import MatchIndex
from ..messages.match import match_text
from ..reading.lines import plural
from ..reading.teardown import exception_line
from ..results import Consequence, Lead, Root, ScanHit
from .clock import Clock
from .ranks import Attribution
from .roots import CONTEXT_CHARS, advisory, consequence_of, quoted_context

# A covered failure this many lines after a first error is the same event told again.
EVENT_LINES = 3
# Closest pages offered as leads under a root no page covers.
ROOT_LEADS = 3
UNCOVERED_TITLE = "No reference covers this error yet"
# A page scoring below this on an uncovered root's line shares too little to be a lead.
MIN_LEAD_SCORE = 0.3
WRAPPED_WHY = "a launcher's or engine's wrapper: it reports the failure, not its cause"


def with_first_error(
    index: MatchIndex,
    roots: list[Root],
    first: tuple[int, Sequence[int], str],
    lines: Sequence[str],
    attribute: Callable[[Sequence[int]], Attribution],
    waiting: frozenset[str],
    clock: Clock,
) -> list[Root]:
    """The roots with the first line stating a failure, when it comes before them all (in
    time when the log carries it): the covered root printed right after it takes its line;
    else it is a root of its own, and the waits that began after it fold under it."""
    line, numbers, raw = first
    stated = exception_line(lines, line)
    if stated is not None:  # a message announcing a traceback: its exception says it
        numbers, raw = [*numbers, stated], lines[stated - 1]
    if any(clock.key(root.line) <= clock.key(line) and not advisory(root, lines) for root in roots):
        return roots
    where = attribute(numbers)
    echoed = next(
        (
            root
            for root in roots
            if 0 < root.line - line <= EVENT_LINES
            and root.id not in waiting
            and not advisory(root, lines)
            and not (where.ranks and root.ranks and set(where.ranks).isdisjoint(root.ranks))
        ),
        None,
    )
    if echoed is not None:
        told = echoed.model_copy(
            update={
                "line": line,
                "line_numbers": [line, *echoed.line_numbers],
                "count": echoed.count + len(numbers),
                "reasons": [f"line {line} states it first", *echoed.reasons],
                "context": quoted_context(lines, line),
            }
        )
        return [told if root is echoed else root for root in roots]
    waits = [root for root in roots if root.id in waiting and root.kind == "symptom"]
    follows = [
        Consequence(
            id=root.id,
            title=root.title,
            first_line=root.line,
            last_line=max(root.line_numbers, default=root.line),
            count=root.count,
            ranks=root.ranks,
            hosts=root.hosts,
            why=f"a wait that began after the first error, at line {line}",
        )
        for root in waits
    ]
    reasons = [
        "the first line of the log that states a failure",
        "no reference covers it yet: read it, and the closest pages below",
    ]
    if follows:
        count = sum(c.count for c in follows)
        reasons.insert(1, f"explains {count:,} later {plural(count, 'line')}")
    uncovered = Root(
        id=None,
        kind=None,
        title=UNCOVERED_TITLE,
        text=raw[:CONTEXT_CHARS],
        line=line,
        line_numbers=list(numbers),
        count=len(numbers),
        ranks=list(where.ranks),
        hosts=list(where.hosts),
        silent_ranks=[],
        score=0.0,
        reasons=reasons,
        candidates=[],
        checks=[],
        consequences=follows,
        context=quoted_context(lines, line),
        leads=_leads(index, raw),
    )
    return [uncovered, *(root for root in roots if root not in waits)]


def _leads(index: MatchIndex, text: str) -> list[Lead]:
    """The pages closest to a line no page covers, as leads."""
    found = match_text(index, text[:CONTEXT_CHARS], None, ROOT_LEADS).matches
    return [
        Lead(
            id=match.id,
            title=match.title,
            score=match.score,
            why=[f"its text is the closest to this line (score {match.score:.2f}), not a match"],
        )
        for match in found
        if match.score >= MIN_LEAD_SCORE
    ]


def with_wrappers(
    root: Root,
    wrapped: Sequence[ScanHit],
    lines_apart: Sequence[tuple[int, list[int]]],
) -> Root:
    """The first root with the wrappers folded under it: hits on wrapper pages and the
    wrapper lines that matched nothing."""
    after = [consequence_of(hit, WRAPPED_WHY) for hit in wrapped]
    numbers = sorted(number for _, found in lines_apart for number in found)
    if numbers:
        after.append(
            Consequence(
                id=None,
                title="Teardown and wrapper lines",
                first_line=numbers[0],
                last_line=numbers[-1],
                count=len(numbers),
                ranks=[],
                hosts=[],
                why="what launchers and engines print on top of the real error",
            )
        )
    if not after:
        return root
    return root.model_copy(update={"consequences": [*root.consequences, *after]})
