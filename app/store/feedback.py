"""Readers' answers to "did this help?": counted per reference, nothing else kept."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session, col, func, select

from .db import writing
from .models import FeedbackRow


@dataclass(frozen=True)
class FeedbackCounts:
    """How many readers said a reference helped, and how many said it did not."""

    helpful: int = 0
    not_helpful: int = 0


def record_feedback(engine: Engine, reference_id: str, helpful: bool) -> None:
    """Store one answer; no IP, user, session or query text goes with it."""
    with writing(engine) as session:
        session.add(FeedbackRow(reference_id=reference_id, helpful=helpful))
        session.commit()


def feedback_counts(engine: Engine, reference_id: str) -> FeedbackCounts:
    """The answers for one reference so far."""
    with Session(engine) as session:
        query = (
            select(FeedbackRow.helpful, func.count())
            .where(col(FeedbackRow.reference_id) == reference_id)
            .group_by(col(FeedbackRow.helpful))
        )
        counts = dict(session.exec(query).all())
    return FeedbackCounts(helpful=counts.get(True, 0), not_helpful=counts.get(False, 0))
