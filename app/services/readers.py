"""What readers tell the docs team: queries nothing answered (the gaps list) and whether a
reference helped (feedback counts)."""

from __future__ import annotations

import datetime as dt

from app.config import Settings
from app.services.library import Library
from app.store import feedback, gaps
from app.store.db import make_engine, reading, upgrade_database, writing
from app.store.feedback import FeedbackCounts
from app.store.models import GapRow


def list_gaps(library: Library) -> list[GapRow]:
    """The unanswered queries, most asked first."""
    with reading(library.engine) as session:
        return gaps.list_gaps(session)


def gap_template(library: Library, gap_id: int) -> str | None:
    """The redacted template of one unanswered query, None when it is gone."""
    with reading(library.engine) as session:
        row = session.get(GapRow, gap_id)
    return row.template if row is not None else None


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
