"""A paste that is warnings and nothing worse, which no failure message resembles closely,
is most likely a warning that healthy runs print too: the pages that list normal output
(kind `healthy`) come first, as leads that say why. Real issue threads paste deprecation
notices, `UserWarning`s and c10d's `[W socket.cpp]` lines as the suspect far more often
than a warning that is a failure, and a failure page only loosely like the warning is the
poorer first lead; the healthy page says when such a warning does matter. A confident
match, a line that matches part of a failure message or more, or a line a failure page
lists as its own normal output keeps its place: the page that names the warning comes
first. NCCL logs its errors at `WARN`: its lines are
never read as warnings here."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..index.match_index import MatchIndex
from ..judging.judge import Judge
from ..reading.evidence import line_level
from ..results import Match
from ..scoring.scorer import Scored, Scorer

# Python's warning categories as `warnings` prints them (`<path>:<n>: FutureWarning: ...`).
_PY_WARNING_RE = re.compile(r"\b[A-Z]\w*Warning: ")
# What a line of a traceback or an exception starts or says: not a warning's.
_RAISED_RE = re.compile(r"Traceback \(most recent call last\)|\b\w*(?:Error|Exception): ")
NCCL_LEVEL = "NCCL WARN"
# A lead rests on a failure message when its line matched this much of one or more.
MESSAGE_LEADS = frozenset({"close", "partial"})
REASON = (
    "every line of your text is a warning, and none resembles a failure message closely: "
    "such warnings are usually normal output, and this page lists them, with when one is not"
)


def with_healthy_first(
    index: MatchIndex,
    judge: Judge,
    scorer: Scorer,
    text: str,
    matches: list[Match],
    claimed: Iterable[int],
) -> list[Match]:
    """The matches with the healthy pages first when `text` is only warnings and nothing
    answers it with confidence or rests on a failure message; as they are otherwise, and
    when a page of another kind set a line aside as its own normal output (`claimed`, the
    references that did): that page names the warning."""
    if not warnings_only(text) or any(rests_on_a_message(match) for match in matches):
        return matches
    if any(index.references[ref].kind != "healthy" for ref in claimed):
        return matches
    healthy = [position for position, ref in enumerate(index.references) if ref.kind == "healthy"]
    found = {match.id: match for match in matches}
    first: list[Match] = []
    for position in healthy:
        ref_id = index.references[position].id
        match = found.pop(ref_id, None) or judge.match(
            position, Scored(scorer.raw(position, 0.0), None)
        )
        first.append(match.model_copy(update={"reasons": [*match.reasons, REASON]}))
    return [*first, *(match for match in matches if match.id in found)]


def warnings_only(text: str) -> bool:
    """Whether a paste holds a warning line and nothing worse: no line at error level, no
    exception or traceback, no NCCL line (NCCL prints its errors at `WARN`)."""
    warned = False
    for line in text.splitlines():
        if not line.strip():
            continue
        if NCCL_LEVEL in line:
            return False
        level = line_level(line)
        warning = level == "warning" or _PY_WARNING_RE.search(line) is not None
        if level == "error" or (not warning and _RAISED_RE.search(line) is not None):
            return False
        warned = warned or warning
    return warned


def rests_on_a_message(match: Match) -> bool:
    """Whether a match is confident or its line matched part of a failure (or warning)
    message or more."""
    if match.confident:
        return True
    return match.kind != "healthy" and match.message_match in MESSAGE_LEADS
