"""Migration 0005: references indexed before it count their text as imported, so the
first load after the upgrade imports nothing and finds no conflict."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlmodel import Session

from failref.config import Settings
from failref.store.db import make_engine, upgrade_database
from failref.store.index import sync_folder
from failref.store.models import ReferenceRow

# The migrations themselves are under test: each starts from a database none has touched.
pytestmark = pytest.mark.empty_database


def test_rows_indexed_before_0005_count_as_imported(
    settings: Settings, references_dir: Path
) -> None:
    engine = make_engine(settings)
    config = Config()
    config.set_main_option("script_location", str(settings.migrations_dir))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
        connection.execute(
            text(
                "INSERT INTO reference (id, title, category, path, content_hash, document,"
                " loaded_at) VALUES ('old', 'Old', 'training', 'references/old.md', 'h', '{}',"
                " CURRENT_TIMESTAMP)"
            )
        )
    upgrade_database(engine, settings)
    with Session(engine) as session:
        row = session.get(ReferenceRow, "old")
        assert row is not None
        assert row.imported_hash == "h"
        # Deleted from the folder and unchanged in the database: it leaves, no conflict.
        report = sync_folder(session, references_dir)
    assert (report.removed, report.conflicts) == (["old"], [])
