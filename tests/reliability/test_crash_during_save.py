"""The server killed at each point of a save, then restarted, on SQLite and on PostgreSQL:
each file is byte-identical to the old or the new version, no temporary file is left, the
database is intact, every committed save is present, and the index agrees with the files;
in database mode the folder is untouched and the save is there exactly when it was
committed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from databases import assert_database_intact
from sqlmodel import Session, col, select

from failref.config import Settings
from failref.domain.references.document import content_hash
from failref.services.library import open_library
from failref.store.models import RevisionRow
from failref.store.texts import current_text

WORKER = Path(__file__).parent / "save_worker.py"
DIED = 99


@pytest.mark.parametrize(
    ("point", "file_is_new", "committed"),
    [
        pytest.param("after-temp-write", False, False, id="after-temp-write"),
        pytest.param("before-fsync", False, False, id="before-fsync"),
        pytest.param("after-rename", True, False, id="after-rename"),
        pytest.param("before-commit", True, False, id="before-commit"),
        pytest.param("after-commit", True, True, id="after-commit"),
    ],
)
def test_a_crash_at_each_point_of_a_save_leaves_a_consistent_state(
    settings: Settings, point: str, file_is_new: bool, committed: bool
) -> None:
    open_library(settings).close()
    path = settings.references_dir / "stuck-rank.md"
    old = path.read_bytes()
    command = [sys.executable, str(WORKER), settings.database_url, str(settings.references_dir)]
    worker = subprocess.run(
        [*command, "crash", point],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FAILREF_STORE": "folder"},
    )
    assert worker.returncode == DIED, worker.stderr[-2000:]

    library = open_library(settings)  # the restart
    now = path.read_bytes()
    assert (now != old) is file_is_new
    assert now == old or b"A dead host (crash)" in now
    assert list(settings.references_dir.glob(".*tmp-*")) == []
    assert_database_intact(library.engine)
    with Session(library.engine) as session:
        query = select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank")
        rows = session.exec(query.order_by(col(RevisionRow.id))).all()
    authors = [row.author for row in rows]
    assert ("c" in authors) is committed
    assert rows[-1].content_hash == content_hash(now)
    assert library.catalog.references["stuck-rank"].content_hash == content_hash(now)
    library.close()


@pytest.mark.parametrize(
    ("point", "committed"),
    [
        pytest.param("after-rename", False, id="before-the-revision"),
        pytest.param("before-commit", False, id="before-commit"),
        pytest.param("after-commit", True, id="after-commit"),
    ],
)
def test_a_crash_during_a_database_save_leaves_the_folder_and_a_whole_save_or_none(
    settings: Settings, point: str, committed: bool
) -> None:
    database = settings.model_copy(update={"store": "database"})
    open_library(database).close()
    folder = {path.name: path.read_bytes() for path in settings.references_dir.iterdir()}
    command = [sys.executable, str(WORKER), settings.database_url, str(settings.references_dir)]
    worker = subprocess.run(
        [*command, "crash", point],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FAILREF_STORE": "database"},
    )
    assert worker.returncode == DIED, worker.stderr[-2000:]

    library = open_library(database)  # the restart
    assert {path.name: path.read_bytes() for path in settings.references_dir.iterdir()} == folder
    current = current_text(library.engine, settings.references_dir, "stuck-rank", "database")
    assert current is not None
    assert ("A dead host (crash)" in current[0]) is committed
    with Session(library.engine) as session:
        rows = session.exec(
            select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank")
        ).all()
    assert ("c" in [row.author for row in rows]) is committed
    assert library.catalog.references["stuck-rank"].content_hash == current[1]
    library.close()
