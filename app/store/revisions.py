"""Revisions of reference files (who changed what, from an editor or from git) and drafts
(an editor's text that could not be saved, kept so a conflict never loses work)."""

from __future__ import annotations

import logging

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, delete, select

from ..domain.references.document import content_hash
from .db import writing
from .models import DraftRow, RevisionRow

logger = logging.getLogger(__name__)


def record_revision(
    session: Session, reference_id: str, data: bytes, *, author: str, message: str
) -> RevisionRow:
    """Add a revision of `reference_id` holding `data`, unless it repeats the latest one."""
    latest = session.exec(
        select(RevisionRow)
        .where(RevisionRow.reference_id == reference_id)
        .order_by(col(RevisionRow.id).desc())
        .limit(1)
    ).first()
    content = data.decode("utf-8")
    if latest is not None and latest.content == content:
        return latest
    revision = RevisionRow(
        reference_id=reference_id,
        content_hash=content_hash(data),
        content=content,
        author=author,
        message=message,
    )
    session.add(revision)
    return revision


def revisions(engine: Engine, reference_id: str) -> list[RevisionRow]:
    """Every revision of `reference_id`, newest first."""
    with Session(engine) as session:
        query = select(RevisionRow).where(RevisionRow.reference_id == reference_id)
        rows = session.exec(query.order_by(col(RevisionRow.id).desc())).all()
        return list(rows)


def revision_text_by_hash(engine: Engine, reference_id: str, hash_: str) -> str | None:
    """The text of the newest revision of `reference_id` whose content hash is `hash_`
    (the base an editor started from), None when no revision has it."""
    with Session(engine) as session:
        query = select(RevisionRow.content).where(
            RevisionRow.reference_id == reference_id, RevisionRow.content_hash == hash_
        )
        return session.exec(query.order_by(col(RevisionRow.id).desc()).limit(1)).first()


def keep_draft(engine: Engine, editor_id: int, reference_id: str, text: str) -> bool:
    """Store text that could not be saved; False when the database could not take it
    either (locked past the busy timeout, full), which is logged."""
    try:
        with writing(engine) as session:
            session.add(DraftRow(editor_id=editor_id, reference_id=reference_id, text=text))
            session.commit()
    except SQLAlchemyError as error:
        logger.warning("a draft could not be kept: %s", error)
        return False
    return True


def latest_draft(engine: Engine, editor_id: int, reference_id: str) -> DraftRow | None:
    """The newest unsaved text of this editor for this reference."""
    with Session(engine) as session:
        query = (
            select(DraftRow)
            .where(DraftRow.editor_id == editor_id, DraftRow.reference_id == reference_id)
            .order_by(col(DraftRow.id).desc())
        )
        return session.exec(query.limit(1)).first()


def discard_drafts(engine: Engine, editor_id: int, reference_id: str) -> None:
    """Forget an editor's kept text for a reference once they saved it."""
    with writing(engine) as session:
        session.exec(
            delete(DraftRow).where(
                col(DraftRow.editor_id) == editor_id, col(DraftRow.reference_id) == reference_id
            )
        )
        session.commit()
