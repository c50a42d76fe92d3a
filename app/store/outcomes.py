"""Readers' "this was it": which cause of a reference turned out to be theirs, counted per
cause and shown on it, never used to rank. Nothing else is kept with a row."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, col, func, select

from .db import writing
from .models import OutcomeRow


def record_outcome(engine: Engine, reference_id: str, cause: int) -> None:
    """Count one reader's "this was it" for cause `cause` (1-based); no IP, user, session
    or query text goes with it."""
    with writing(engine) as session:
        session.add(OutcomeRow(reference_id=reference_id, cause=cause))
        session.commit()


def outcome_counts(engine: Engine, reference_id: str) -> dict[int, int]:
    """How many readers said each cause of a reference was it, by cause number."""
    with Session(engine) as session:
        query = (
            select(OutcomeRow.cause, func.count())
            .where(col(OutcomeRow.reference_id) == reference_id)
            .group_by(col(OutcomeRow.cause))
        )
        return {cause: count for cause, count in session.exec(query).all()}
