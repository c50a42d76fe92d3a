"""What a paste leads to when nothing matched it with confidence: never folded away. A term
typed alone is looked up in the pages' whole text (a code leads to the page owning it,
which answers with confidence, as the search box does); a paste of warnings that no
failure message resembles leads to the page of normal output put first for it
(`warning_lines`); otherwise the best match that resembles a message is a lead,
"possible", with why it is not confident (one resting on a message of one telling word
only when no other resembles)."""

from __future__ import annotations

from ..index.match_index import MatchIndex
from ..judging.judge import CONFIDENT_THRESHOLD, ONE_TELLING_WORD
from ..results import Lead, LookUp, Match
from .lookup import look_up
from .warning_lines import REASON as WARNINGS_REASON

# A match below this is too far from any message to be offered as a lead.
LEAD_SCORE = 0.5


def with_leads(
    index: MatchIndex, text: str, matches: list[Match]
) -> tuple[list[Match], list[LookUp], Lead | None]:
    """The matches (the page owning a code typed alone made confident and first), the
    term's look-ups, and the lead when nothing is confident."""
    if any(match.confident for match in matches):
        return matches, [], None
    lookups = look_up(index, text)
    owner = next((found for found in lookups if found.owner), None)
    if owner is not None:
        return _owner_first(index, matches, owner), lookups, None
    if matches and WARNINGS_REASON in matches[0].reasons:
        normal = matches[0]  # a page of normal output, first for a paste of warnings
        why = [
            WARNINGS_REASON,
            "open it to see whether it lists this warning, and when one matters",
        ]
        return matches, lookups, Lead(id=normal.id, title=normal.title, score=None, why=why)
    resembling = [m for m in matches if m.score >= LEAD_SCORE and m.message_match]
    best = next((m for m in resembling if not _one_word(m)), next(iter(resembling), None))
    if best is not None:
        return (
            matches,
            lookups,
            Lead(id=best.id, title=best.title, score=best.score, why=_why(best)),
        )
    if lookups:
        first = lookups[0]
        why = [first.why, "no message of it matches your text: open it and run its checks"]
        return matches, lookups, Lead(id=first.id, title=first.title, score=None, why=why)
    return matches, lookups, None


def _owner_first(index: MatchIndex, matches: list[Match], owner: LookUp) -> list[Match]:
    """The owner's match, confident and first, with the code as its first reason (made
    from the page itself when no message of it matched the text)."""
    found = next((m for m in matches if m.id == owner.id), None)
    if found is None:
        reference = index.references[index.positions[owner.id]]
        found = Match(
            id=reference.id,
            title=reference.title,
            summary=reference.summary,
            kind=reference.kind,
            score=1.0,
            confident=True,
            reasons=[],
            matched_message=None,
            matched_span=None,
            next_checks=index.checks[index.positions[owner.id]].next_checks([]),
        )
    # The code typed is the page's own, exactly: a score of 1, whatever its messages say.
    update = {"confident": True, "score": 1.0, "reasons": [owner.why, *found.reasons]}
    confident = found.model_copy(update=update)
    return [confident, *(m for m in matches if m.id != owner.id)]


def _one_word(match: Match) -> bool:
    """Whether a match rests on a message of one telling word that the text says more than
    (`Timeout (0:30:00)!` for `NCCL timeout`): a lead only when no other match resembles."""
    return any(ONE_TELLING_WORD in reason for reason in match.held_back)


def _why(match: Match) -> list[str]:
    """Why a match is a lead and not an answer."""
    why = [
        f"its message resembles your text ({match.message_match} match, score {match.score:.2f})"
    ]
    if match.score < CONFIDENT_THRESHOLD:
        why.append(f"below the {CONFIDENT_THRESHOLD:.2f} a confident answer needs")
    why.extend(match.held_back)
    if match.message_kind == "diagnostic":
        why.append("its line is the output of a check, not read as failing")
    return why
