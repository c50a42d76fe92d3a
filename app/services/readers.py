"""What readers tell the docs team: queries nothing answered (the gaps list) and whether a
reference helped (feedback counts)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..config import DEFAULT_MATCH_LIMIT, Settings
from ..domain.catalog import get_reference
from ..domain.matching.reading.normalize import normalize_line, restore_error_codes
from ..errors import InvalidInput
from ..store import feedback, gaps, outcomes
from ..store.db import make_engine, reading, upgrade_database, writing
from ..store.feedback import FeedbackCounts
from ..store.models import GapRow
from .analysis import rank_message
from .library import Library


@dataclass(frozen=True)
class Gap:
    """An unanswered query, and its line as a reference's message block would hold it."""

    row: GapRow
    message: str


def gap_message(row: GapRow) -> str:
    """A gap's line in the form authors write: its (redacted) example normalised again, so a
    row stored by an older normaliser reads right too, with Xid numbers as printed (the
    stored template spells them `xid79`, the matcher's token)."""
    return restore_error_codes(normalize_line(row.example)) or row.template


# How long the gaps page waits for this worker's queued gaps to be written first.
GAPS_FLUSH_S = 2.0


def list_gaps(library: Library) -> list[Gap]:
    """The unanswered queries, most asked first; this worker's queued ones written first,
    so a paste made a moment ago is listed."""
    library.gaps.flush(GAPS_FLUSH_S)
    with reading(library.engine) as session:
        return [Gap(row, gap_message(row)) for row in gaps.list_gaps(session)]


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
