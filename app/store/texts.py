"""The current text of each reference where the store of record keeps it (its file in
folder mode, its newest revision in database mode), and writing the database's texts to a
folder byte for byte (`failref export`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from ..config import StoreOfRecord
from ..errors import InvalidInput
from .files import (
    current_file,
    reference_file,
    replace,
    storage_error,
    text_and_hash,
    write_temporary,
)
from .models import ReferenceRow, RetiredRow, RevisionRow

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: the files whose bytes changed, and how many already held them."""

    written: list[str]
    unchanged: int
    removed: list[str]  # files of retired references, which held the text retired


def current_text(
    engine: Engine, folder: Path, reference_id: str, store: StoreOfRecord
) -> tuple[str, str] | None:
    """The text and content hash an edit starts from, or None when there is no such
    reference: the file on disk (folder mode) or the database's text (database mode)."""
    if store == "folder":
        return current_file(folder, reference_id)
    reference_file(folder, reference_id)  # the same id rule in both modes
    with Session(engine) as session:
        return database_text(session, reference_id)


def _current_revisions() -> SelectOfScalar[RevisionRow]:
    """Revisions holding the text an index row was built from (a text saved twice, or
    reverted to, has several)."""
    return select(RevisionRow).join(
        ReferenceRow,
        (col(ReferenceRow.id) == col(RevisionRow.reference_id))
        & (col(ReferenceRow.content_hash) == col(RevisionRow.content_hash)),
    )


def database_text(session: Session, reference_id: str) -> tuple[str, str] | None:
    """The text the index row of `reference_id` was built from, and its content hash."""
    query = (
        _current_revisions()
        .where(RevisionRow.reference_id == reference_id)
        .order_by(col(RevisionRow.id).desc())
        .limit(1)
    )
    revision = session.exec(query).first()
    return (revision.content, revision.content_hash) if revision is not None else None


def database_texts(session: Session) -> dict[str, str]:
    """The current text of every indexed reference, by id, in one query."""
    query = _current_revisions().order_by(col(RevisionRow.id))
    # Ascending ids: a text reverted to an older one keeps the newest of its revisions.
    return {revision.reference_id: revision.content for revision in session.exec(query)}


def export_texts(session: Session, folder: Path) -> ExportReport:
    """Write every current text to `folder` as `<id>.md`, byte for byte and atomically; a
    file that already holds them is left alone, and no other file is touched. A target
    that resolves outside `folder` stops the export before it writes anything."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise storage_error(error) from None
    written = []
    texts = database_texts(session)
    # Every target first: a file that leads out of `folder` (a symlink) stops the export
    # before anything is written, naming the file.
    targets = {reference_id: export_target(folder, reference_id) for reference_id in texts}
    for reference_id, text in sorted(texts.items()):
        path = targets[reference_id]
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        replace(write_temporary(path, data), path)
        written.append(reference_id)
    removed = _remove_retired(session, folder)
    logger.info(
        "exported %d references, %d changed, %d retired removed",
        len(texts),
        len(written),
        len(removed),
    )
    return ExportReport(written, len(texts) - len(written), removed)


def _remove_retired(session: Session, folder: Path) -> list[str]:
    """Delete the files of retired references that still hold the text they were retired
    with (a file edited since is left for the docs team to decide); returns their ids."""
    removed = []
    for row in session.exec(select(RetiredRow).order_by(col(RetiredRow.reference_id))):
        path = export_target(folder, row.reference_id)
        found = text_and_hash(path)
        if found is not None and found[1] == row.content_hash:
            path.unlink()
            removed.append(row.reference_id)
    return removed


def export_target(folder: Path, reference_id: str) -> Path:
    """Where `reference_id` is exported in `folder`; InvalidInput naming the file when it
    resolves elsewhere (a symlink out of the folder)."""
    try:
        return reference_file(folder, reference_id)
    except InvalidInput:
        raise InvalidInput(
            f"{folder / reference_id}.md: resolves outside {folder} (a symlink?); "
            "nothing was exported",
            field="folder",
        ) from None
