"""The folder and the database side by side: the references both changed since the last
import (conflicts, for `failref load` and /admin/conflicts), and writing the database's
texts into a folder (`failref export`) so that web edits can be committed to git."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings
from ..store.db import make_engine, reading, upgrade_database
from ..store.index import list_conflicts
from ..store.texts import ExportReport, database_text, export_texts
from .editing import unified_diff
from .library import Library

CONFLICT_LABELS = ("in the folder", "in the database")


@dataclass(frozen=True)
class FolderConflict:
    """A reference the folder and the database both changed since its last import; the
    database's text serves until one side takes the other's."""

    reference_id: str
    folder_text: str | None  # None: the file was deleted
    database_text: str
    diff: str
    found_at: dt.datetime


def conflicts(library: Library) -> list[FolderConflict]:
    """Every conflict the last load found, with both texts and the diff between them."""
    with reading(library.engine) as session:
        found = []
        for row in list_conflicts(session):
            current = database_text(session, row.reference_id)
            text = current[0] if current is not None else ""
            diff = unified_diff(row.folder_text or "", text, *CONFLICT_LABELS)
            found.append(
                FolderConflict(row.reference_id, row.folder_text, text, diff, row.found_at)
            )
    return found


def export_references(settings: Settings, folder: Path) -> ExportReport:
    """Write every current text from the database into `folder`, without loading the
    references folder first: what is exported is what serves."""
    engine = make_engine(settings)
    try:
        upgrade_database(engine, settings)
        with reading(engine) as session:
            return export_texts(session, folder)
    finally:
        engine.dispose()
