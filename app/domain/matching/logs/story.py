"""The story of a whole log: which failures are roots and which lines follow from them.

A scan's confident hits are the log's failures. Each symptom hit looks for an earlier
failure that explains it, by these rules, strongest first:

1. **A cause it lists, printed before it.** The symptom page's candidate causes (and the
   causes that name it in `symptoms:`) are what produce it; one of them printed earlier is
   its root.
2. **A failure on the rank the others wait for.** A waiting symptom (tagged `hang` or
   `timeout`: a collective timeout) printed on some ranks is explained by a failure printed
   on ranks it was not printed on, before its last line: that rank crashed or stalled.
3. **An earlier symptom with a cause in common.** An OOM before an engine's death shares
   causes with it: the later symptom follows from the earlier one.

A line is one failure: a hit whose lines all belong to a better-scoring hit is left to the
hit list. A failure nothing explains is a root; a symptom root keeps its candidate causes, ranked by
the evidence in the log. Failures that explain nothing of each other are separate roots.
Roots are ordered failures before advisories (Python warnings and WARNING-level lines,
which rarely end a run; NCCL's `WARN` is its error level and counts as a failure), then
by time (`logs.clock`: the lines' timestamps when they carry them, else the line order):
where a log went wrong is its first failure. A log whose only matches are
advisories has no root: its verdict is `warnings`, and the hits list them.

**The first failure is the root, covered or not**, and wrappers (hits on pages tagged
`wrapper`, and wrapper lines nothing matched) are never roots while anything else failed:
`logs.first_failure`. A log of nothing but wrappers has the wrapper as its root: its page
says where the real error is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...references.graph import WRAPPER_TAG
from ..index.match_index import MatchIndex
from ..judging.unmatched import Unmatched
from ..reading.evidence import line_level
from ..reading.lines import plural
from ..results import Consequence, Diagnosis, LogVerdict, Root, ScanHit
from .clock import Clock
from .first_failure import with_first_error, with_wrappers
from .ranks import Attribution, LogRanks, number_ranges
from .roots import advisory, consequence_of, quoted_context

# Tags that make a symptom a wait on other ranks: its cause is often on a rank that did
# not print it.
WAITING_TAGS = frozenset({"hang", "timeout"})
# Levels of normal output: a line logged at them is never a failure by itself.
QUIET_LEVELS = frozenset({"info", "debug"})


@dataclass(frozen=True, slots=True)
class _Link:
    """Why one failure explains a later one; `strength` orders the rules above."""

    parent: int
    strength: int
    why: str


def diagnose(
    index: MatchIndex,
    hits: Sequence[ScanHit],
    lines: Sequence[str],
    ranks: LogRanks,
    unmatched: Unmatched,
    statements: Sequence[tuple[int, Sequence[int], str]],
    attribute: Callable[[Sequence[int]], Attribution],
    notes: list[str],
) -> Diagnosis:
    """Roots and consequences of a log from its scan hits, the lines that matched nothing
    and the first lines that state a failure (see the module docstring)."""
    confident = [hit for hit in hits if hit.confident]
    clock = Clock.of(
        lines,
        [n for hit in confident for n in (hit.first_line, hit.last_line)]
        + [found[0] for found in statements],
    )
    ordered = sorted(
        (hit for hit in confident if not _shadowed(hit, confident)),
        key=lambda h: clock.earliest(h.first_line, h.last_line),
    )
    wrappers = {r.id for r in index.references if WRAPPER_TAG in r.tags}
    failures = [hit for hit in ordered if hit.id not in wrappers]
    wrapped = [hit for hit in ordered if hit.id in wrappers]
    covered = {number for hit in confident for number in hit.line_numbers}
    first = min(
        (found for found in statements if found[0] not in covered),
        key=lambda found: clock.key(found[0]),
        default=None,
    )
    if not failures and first is None:  # nothing but wrappers: what the log has to say
        failures, wrapped = wrapped, []
    waiting = frozenset(r.id for r in index.references if WAITING_TAGS & set(r.tags))
    links = _links(index.symptom_causes, failures, waiting, clock)
    built = [
        _root(failures[number], followers, links, failures, lines, ranks, waiting)
        for number, followers in _roots(failures, links, clock).items()
    ]
    if first is not None:
        built = with_first_error(index, built, first, lines, attribute, waiting, clock)
    built.sort(key=lambda root: (advisory(root, lines), clock.key(root.line)))
    warned = bool(built) and all(advisory(root, lines) for root in built)
    if warned:  # warnings are not failures: they are listed as hits, the log has no root
        built = []
    if built:
        built[0] = with_wrappers(built[0], wrapped, unmatched.wrappers)
    return Diagnosis(
        verdict="warnings" if warned else log_verdict(built, hits, unmatched.total),
        roots=built,
        unrecognised=unmatched.shown,
        unrecognised_lines=unmatched.total,
        ranks=list(ranks.ranks),
        hosts=list(ranks.hosts),
        all_ranks=ranks.complete,
        notes=notes,
    )


def log_verdict(roots: Sequence[Root], hits: Sequence[ScanHit], unrecognised: int) -> LogVerdict:
    """The log in one word (see `LogVerdict`): a root wins (covered by a page or not), then
    a lead that could be a failure, then an error-looking line nothing covers, then a
    warning block's hit; a log with none of them is quiet."""
    if roots:
        return "failure" if roots[0].id is not None else "uncovered-failure"
    if any(_could_be_a_failure(hit) for hit in hits):
        return "leads"
    if unrecognised:
        return "unrecognised"
    return "warnings" if any(hit.message_kind == "warning" for hit in hits) else "quiet"


def _could_be_a_failure(hit: ScanHit) -> bool:
    """A lead is normal output when it is a check's output read as not failing (the
    concurrency vLLM prints at start-up), a warning block's line (a default kernel config)
    or a line logged at INFO or DEBUG (NCCL's start-up lines): it is listed, and it does
    not make a healthy log look broken."""
    if hit.verdict is not None and hit.verdict.state != "failing":
        return False
    if hit.message_kind == "warning":
        return False
    return line_level(hit.example) not in QUIET_LEVELS


def _shadowed(hit: ScanHit, confident: Sequence[ScanHit]) -> bool:
    """True when a better match already owns every line of `hit`: one line is one failure
    in the story (a `CUDA error: an illegal memory access` line that also matches the OOM
    page's `CUDA error: out of memory` in part is the illegal access, not also an OOM)."""
    lines = set(hit.line_numbers)
    return any(
        other.score > hit.score
        and other.first_line == hit.first_line
        and lines <= set(other.line_numbers)
        for other in confident
    )


def _links(
    symptom_causes: Mapping[str, frozenset[str]],
    failures: Sequence[ScanHit],
    waiting: frozenset[str],
    clock: Clock,
) -> dict[int, _Link]:
    """The strongest explanation of each failure that has one, by position in `failures`."""
    links: dict[int, _Link] = {}
    for number, later in enumerate(failures):
        if later.kind != "symptom":
            continue
        best: _Link | None = None
        for position, earlier in enumerate(failures):
            found = _explains(symptom_causes, earlier, later, waiting, position, clock)
            if found is not None and (best is None or found.strength < best.strength):
                best = found
        if best is not None:
            links[number] = best
    return links


def _explains(
    symptom_causes: Mapping[str, frozenset[str]],
    earlier: ScanHit,
    later: ScanHit,
    waiting: frozenset[str],
    position: int,
    clock: Clock,
) -> _Link | None:
    """How `earlier` explains the symptom `later`, by the strongest rule that holds (in
    time, when the log's lines carry it: `logs.clock`)."""
    if earlier.id == later.id:
        return None
    causes = symptom_causes.get(later.id, frozenset())
    starts = clock.earliest(earlier.first_line, earlier.last_line)
    before = starts < clock.earliest(later.first_line, later.last_line)
    if before and earlier.id in causes:
        return _Link(position, 1, "its page lists this root as a cause, and the root came first")
    other_ranks = earlier.ranks and later.ranks and not set(earlier.ranks) & set(later.ranks)
    in_time = starts <= max(clock.key(later.first_line), clock.key(later.last_line))
    if later.id in waiting and earlier.id not in waiting and other_ranks and in_time:
        shown = _rank_list(earlier.ranks)
        return _Link(position, 2, f"the root is on {shown}, which the waiting ranks wait for")
    shared = symptom_causes.get(earlier.id, frozenset()) & causes
    if before and earlier.kind == "symptom" and shared:
        return _Link(position, 3, "the root came first, and the two share causes")
    return None


def _roots(
    failures: Sequence[ScanHit], links: Mapping[int, _Link], clock: Clock
) -> dict[int, list[int]]:
    """Each root's position with the positions it explains, directly or through others. A
    cycle (two failures each explaining the other) is cut at its earliest line."""
    roots: dict[int, list[int]] = {}
    for number in range(len(failures)):
        chain = [number]
        while chain[-1] in links and links[chain[-1]].parent not in chain:
            chain.append(links[chain[-1]].parent)
        root = chain[-1]
        if root in links:  # a cycle: its earliest member is the root
            root = min(
                chain, key=lambda n: clock.earliest(failures[n].first_line, failures[n].last_line)
            )
        roots.setdefault(root, [])
        if root != number:
            roots[root].append(number)
    return roots


def _root(
    hit: ScanHit,
    followers: Sequence[int],
    links: Mapping[int, _Link],
    failures: Sequence[ScanHit],
    lines: Sequence[str],
    ranks: LogRanks,
    waiting: frozenset[str],
) -> Root:
    consequences = [consequence_of(failures[n], _why(links.get(n))) for n in followers]
    silent = list(ranks.silent(hit.ranks))
    return Root(
        id=hit.id,
        kind=hit.kind,
        title=hit.title,
        line=hit.first_line,
        line_numbers=hit.line_numbers,
        count=hit.count,
        ranks=hit.ranks,
        hosts=hit.hosts,
        silent_ranks=silent,
        score=hit.score,
        reasons=_reasons(hit, consequences, silent if hit.id in waiting else []),
        candidates=hit.candidates,
        checks=hit.checks,
        next_checks=hit.next_checks,
        consequences=consequences,
        context=quoted_context(lines, hit.first_line),
    )


def _why(link: _Link | None) -> str:
    return link.why if link is not None else "it follows from what this root explains"


def _reasons(hit: ScanHit, consequences: Sequence[Consequence], silent: Sequence[int]) -> list[str]:
    reasons = []
    if consequences:
        count = sum(c.count for c in consequences)
        reasons.append(f"explains {count:,} later {plural(count, 'line')}")
    elif hit.kind == "symptom":
        reasons.append(
            "no cause it lists appears before it: its candidate causes are ranked by the "
            "evidence in this log"
        )
    else:
        reasons.append("nothing earlier in the log explains it")
    if silent:
        reasons.append(
            f"{_rank_list(silent)} did not print it: for a wait on other ranks, that is "
            "usually where the hang is"
        )
    return reasons


def _rank_list(ranks: Sequence[int]) -> str:
    return f"{plural(len(ranks), 'rank')} {number_ranges(ranks)}"
