"""Four processes saving one reference fifty times each, in either store of record, on
SQLite and on PostgreSQL: every acknowledged save is a revision, no save is lost, and the
database never answers "database is locked"; in database mode the folder is never
written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from databases import assert_database_intact
from sqlmodel import Session, col, select

from failref.config import Settings, StoreOfRecord
from failref.domain.references.document import content_hash
from failref.services.library import open_library
from failref.store.db import make_engine, upgrade_database
from failref.store.models import RevisionRow
from failref.store.texts import current_text

WORKER = Path(__file__).parent / "save_worker.py"
PROCESSES = 4
SAVES_EACH = 50


def revisions(settings: Settings) -> list[RevisionRow]:
    engine = make_engine(settings)
    with Session(engine) as session:
        query = select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank")
        rows = list(session.exec(query.order_by(col(RevisionRow.id))))
    engine.dispose()
    return rows


@pytest.mark.parametrize("store", ["folder", "database"])
def test_racing_processes_lose_no_acknowledged_save(
    settings: Settings, store: StoreOfRecord
) -> None:
    library = open_library(settings)
    library.close()
    folder = {path.name: path.read_bytes() for path in settings.references_dir.iterdir()}
    before = len(revisions(settings))
    command = [
        sys.executable,
        str(WORKER),
        settings.database_url,
        str(settings.references_dir),
        "race",
    ]
    workers = [
        subprocess.Popen(
            [*command, str(SAVES_EACH), f"w{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "FAILREF_STORE": store},
        )
        for n in range(PROCESSES)
    ]
    finished = [worker.communicate(timeout=240) for worker in workers]
    for worker, (_, stderr) in zip(workers, finished, strict=True):
        assert worker.returncode == 0, stderr[-3000:]
    outcomes = [json.loads(stdout) for stdout, _ in finished]
    assert [o["error"] for o in outcomes] == [[]] * PROCESSES
    acknowledged = sum(o["ok"] for o in outcomes)
    assert acknowledged + sum(o["stale"] for o in outcomes) == PROCESSES * SAVES_EACH
    after = revisions(settings)
    assert len(after) - before == acknowledged
    messages = {row.message for row in after[before:]}
    assert len(messages) == acknowledged
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    final = current_text(engine, settings.references_dir, "stuck-rank", store)
    assert final is not None
    assert after[-1].content_hash == final[1]
    file_bytes = (settings.references_dir / "stuck-rank.md").read_bytes()
    assert (content_hash(file_bytes) == final[1]) is (store == "folder")
    if store == "database":
        now = {path.name: path.read_bytes() for path in settings.references_dir.iterdir()}
        assert now == folder
    assert_database_intact(engine)
    engine.dispose()
