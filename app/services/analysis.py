"""Match a pasted message or scan a whole log against the live catalog: one entry point for
the pages, the JSON API, the MCP tools and the CLI, so all four answer alike.

Every call says whether an unanswered query is remembered for the gaps list (`remember=`):
the page and the JSON API remember what a person asked; tools and the CLI do not.
"""

from __future__ import annotations

from ..config import DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT
from ..domain.catalog import Catalog
from ..domain.matching.logs.logread import LogRead
from ..domain.matching.logs.scan import scan_log, scan_read
from ..domain.matching.messages.highlight import Highlight, highlight
from ..domain.matching.messages.match import match_text
from ..domain.matching.reading.context import RunContext
from ..domain.matching.results import Match, MatchResult, ScanResult
from ..errors import InvalidInput
from .library import Library
from .outcome import MatchCard, Outcome

# A traceback or an NCCL error block is rarely longer than this; longer pastes are logs.
LOG_LINE_THRESHOLD = 30
# When a log has no hit, its last lines (where a job's fatal error usually is) are matched
# as one message to name the closest references; the whole log would cost a second.
LOG_TAIL_LINES = 400
# A scan offers the docs team at most this many of its unrecognised lines: the first few
# say what is missing; a log of a thousand unknown errors should not flood the queue.
MAX_GAPS_PER_SCAN = 5


def match_message(
    library: Library,
    text: str,
    context: RunContext | None = None,
    limit: int = DEFAULT_MATCH_LIMIT,
    *,
    remember: bool,
) -> MatchResult:
    """Rank the references for one message (a line, or a block such as a traceback); with
    `remember`, a message nothing matched confidently is kept, redacted, as a gap (best
    effort: a storage fault costs the gap, not the answer)."""
    result = rank_message(library.catalog, text, context, limit)
    if remember and not any(match.confident for match in result.matches):
        library.gaps.remember([text], described(context))
    return result


def rank_message(
    catalog: Catalog, text: str, context: RunContext | None, limit: int
) -> MatchResult:
    """`match_message` on one snapshot, remembering nothing."""
    if not 1 <= limit <= MAX_MATCH_LIMIT:
        raise InvalidInput(f"limit: must be between 1 and {MAX_MATCH_LIMIT}", field="limit")
    return match_text(catalog.index, text, context, limit)


def scan_text(
    library: Library, log: str, context: RunContext | None = None, *, remember: bool
) -> ScanResult:
    """Find every reference a whole log shows, with line numbers and counts, and its roots;
    with `remember`, the first error-looking lines that matched nothing are kept, redacted,
    as gaps (best effort, as for a message)."""
    result = scan_log(library.catalog.index, log, context, max_lines=library.settings.max_log_lines)
    if remember:
        library.gaps.remember(
            [line.text for line in result.diagnosis.unrecognised[:MAX_GAPS_PER_SCAN]],
            described(context),
        )
    return result


def described(context: RunContext | None) -> str:
    """The run context as the asker typed it, field by field (`framework: vLLM 0.8 ·
    gpus: 8x H100`), for the gaps list; "" when none was given."""
    if context is None:
        return ""
    given = context.model_dump(exclude_none=True)
    return " · ".join(f"{name}: {value}" for name, value in given.items() if str(value).strip())


def scan_read_log(library: Library, read: LogRead) -> ScanResult:
    """`scan_text` of a log read a chunk at a time (the command line's FILE): no line limit,
    as its memory grows with the distinct lines, not the lines; nothing is remembered."""
    return scan_read(library.catalog.index, read)


def looks_like_a_log(text: str) -> bool:
    """A paste of many lines is scanned as a log; a line or a short block is matched."""
    return text.count("\n") >= LOG_LINE_THRESHOLD


def analyse_paste(library: Library, text: str, context: RunContext, *, remember: bool) -> Outcome:
    """What the paste box answers: a whole log is scanned, anything shorter is matched as
    one message (remembered as a gap when `remember` and nothing matched confidently)."""
    if not text.strip():
        raise InvalidInput("Paste a log line, a traceback or a whole log first.", field="log")
    if looks_like_a_log(text):
        scan = scan_text(library, text, context, remember=remember)
        # Titles near the last lines help only where errors went unrecognised.
        unknown = scan.diagnosis.verdict == "unrecognised"
        closest = _closest_in_log(library.catalog, text, context) if unknown else ()
        return Outcome(
            "scan",
            closest,
            scan,
            scan.inferred_context,
            read=scan.context_read,
            ignored=tuple(scan.context_ignored),
        )
    result = match_message(library, text, context, remember=remember)
    cards = tuple(MatchCard(match, _highlight(text, match)) for match in result.matches)
    healthy = tuple(result.healthy_lines)
    return Outcome(
        "match",
        cards,
        None,
        result.inferred_context,
        healthy,
        lead=result.lead,
        lookups=tuple(result.lookups),
        read=result.context_read,
        ignored=tuple(result.context_ignored),
    )


def _highlight(text: str, match: Match) -> Highlight | None:
    """Where the match's message was found, only when a line really matched it (closely or
    in part): a lead that shares a few words is not shown as "matched in your text"."""
    if match.message_match not in ("close", "partial"):
        return None
    return highlight(text, match)


def _closest_in_log(catalog: Catalog, log: str, context: RunContext) -> tuple[MatchCard, ...]:
    tail = "\n".join(log.splitlines()[-LOG_TAIL_LINES:])
    result = rank_message(catalog, tail, context, DEFAULT_MATCH_LIMIT)
    return tuple(MatchCard(match, None) for match in result.matches)
