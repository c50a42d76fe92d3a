"""What readers tell the docs team: queries nothing answered (the gaps list) and whether a
reference helped (feedback counts)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from app.config import Settings
from app.domain.matching.normalize import normalize_line, restore_error_codes
from app.services.library import Library
from app.store import feedback, gaps
from app.store.db import make_engine, reading, upgrade_database, writing
from app.store.feedback import FeedbackCounts
from app.store.models import GapRow


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


def list_gaps(library: Library) -> list[Gap]:
    """The unanswered queries, most asked first."""
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


def record_feedback(library: Library, reference_id: str, helpful: bool) -> None:
    """Count one reader's answer to "did this help?"."""
    feedback.record_feedback(library.engine, reference_id, helpful)


def feedback_counts(library: Library, reference_id: str) -> FeedbackCounts:
    """The answers for one reference so far."""
    return feedback.feedback_counts(library.engine, reference_id)
