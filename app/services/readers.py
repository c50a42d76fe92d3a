"""What readers tell the docs team: queries nothing answered (the gaps list) and whether a
reference helped (feedback counts)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..config import DEFAULT_MATCH_LIMIT, Settings
from ..domain.catalog import get_reference
from ..domain.matching.reading.normalize import normalize_line, restore_error_codes
from ..errors import InvalidInput, NotFound
from ..store import feedback, gaps, outcomes
from ..store.db import make_engine, reading, upgrade_database, writing
from ..store.feedback import FeedbackCounts
from ..store.models import GapRow
from .analysis import rank_message
from .library import Library


@dataclass(frozen=True)
class Gap:
    """An unanswered query, its line as a reference's message block would hold it, and the
    reference that now matches it confidently, if one was written since (a reference a
    reader disputed for it does not count)."""

    row: GapRow
    message: str
    covered_by: str | None = None


@dataclass(frozen=True)
class GapList:
    """The open gaps, or those set aside, and how many are set aside."""

    gaps: list[Gap]
    dismissed: int


def gap_message(row: GapRow) -> str:
    """A gap's line in the form authors write: its (redacted) example normalised again, so a
    row stored by an older normaliser reads right too, with Xid numbers as printed (the
    stored template spells them `xid79`, the matcher's token)."""
    return restore_error_codes(normalize_line(row.example)) or row.template


# How long the gaps page waits for this worker's queued gaps to be written first.
GAPS_FLUSH_S = 2.0


def list_gaps(library: Library, *, dismissed: bool = False) -> GapList:
    """The unanswered queries, most asked first, open or (`dismissed`) set aside; this
    worker's queued ones written first, so a paste made a moment ago is listed. Each is
    matched again, so a gap a reference covers since says which."""
    library.gaps.flush(GAPS_FLUSH_S)
    with reading(library.engine) as session:
        rows = gaps.list_gaps(session, dismissed=dismissed)
        set_aside = gaps.count_dismissed(session)
    found = [Gap(row, gap_message(row), covered_by(library, row)) for row in rows]
    return GapList(found, set_aside)


def covered_by(library: Library, row: GapRow) -> str | None:
    """The reference that matches a gap's example confidently now, unless a reader said
    it was the wrong answer for it."""
    result = rank_message(library.catalog, row.example, None, 1)
    top = result.matches[0] if result.matches else None
    if top is None or not top.confident or top.id == row.disputed_id:
        return None
    return top.id


def gap_covered_by(library: Library, gap_id: int) -> str | None:
    """The reference that covers a gap now (see `covered_by`); None when none or no gap."""
    with reading(library.engine) as session:
        row = session.get(GapRow, gap_id)
    return covered_by(library, row) if row is not None else None


def dismiss_gap(library: Library, gap_id: int, dismissed: bool = True) -> None:
    """Set a gap aside (or back on the list); NotFound when it is gone (pruned)."""
    if not gaps.set_dismissed(library.engine, gap_id, dismissed):
        raise NotFound(f"no unanswered query {gap_id}", field="gap")


def gap_template(library: Library, gap_id: int) -> str | None:
    """The line of one unanswered query as a message, None when it is gone."""
    with reading(library.engine) as session:
        row = session.get(GapRow, gap_id)
    return gap_message(row) if row is not None else None


def prune_gaps(settings: Settings) -> int:
    """Delete unanswered queries past their retention without loading the references."""
    engine = make_engine(settings)
    try:
        upgrade_database(engine, settings)
        with writing(engine) as session:
            return gaps.prune_gaps(session, dt.timedelta(days=settings.gap_retention_days))
    finally:
        engine.dispose()


def record_feedback(library: Library, reference_id: str, helpful: bool, line: str = "") -> None:
    """Count one reader's answer to "did this help?". A "no" about the line a result card
    matched (`line`) sends that line, redacted, to the gaps list when the reference did
    match it confidently: a confident answer that was wrong is something to write too."""
    feedback.record_feedback(library.engine, reference_id, helpful)
    text = gaps.first_line(line)
    if helpful or not text.strip():
        return
    result = rank_message(library.catalog, text, None, DEFAULT_MATCH_LIMIT)
    if any(match.id == reference_id and match.confident for match in result.matches):
        gaps.remember_disputed(library.engine, library.settings, text, reference_id)


def record_outcome(library: Library, reference_id: str, cause: int) -> None:
    """Count one reader's "this was it" for cause number `cause` of a reference (a
    symptom's candidate); InvalidInput when the reference lists no such cause."""
    reference = get_reference(library.catalog, reference_id)
    listed = len(reference.candidates if reference.kind == "symptom" else reference.causes)
    if not 1 <= cause <= listed:
        raise InvalidInput(
            f"cause: {reference.id} lists {listed} causes; there is no cause {cause}",
            field="cause",
        )
    outcomes.record_outcome(library.engine, reference.id, cause)


def outcome_counts(library: Library, reference_id: str) -> dict[int, int]:
    """How many readers said each cause of a reference was it, by cause number."""
    return outcomes.outcome_counts(library.engine, reference_id)


def feedback_counts(library: Library, reference_id: str) -> FeedbackCounts:
    """The answers for one reference so far."""
    return feedback.feedback_counts(library.engine, reference_id)
