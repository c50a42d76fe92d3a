"""Four processes saving one reference fifty times each, on SQLite and on PostgreSQL: every
acknowledged save is a revision, no save is lost, and the database never answers "database
is locked"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from databases import assert_database_intact
from sqlmodel import Session, col, select

from app.config import Settings
from app.domain.references.document import content_hash
from app.services.library import open_library
from app.store.db import make_engine, upgrade_database
from app.store.models import RevisionRow

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


def test_racing_processes_lose_no_acknowledged_save(settings: Settings) -> None:
    library = open_library(settings)
    library.close()
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
    final = (settings.references_dir / "stuck-rank.md").read_bytes()
    assert after[-1].content_hash == content_hash(final)
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    assert_database_intact(engine)
    engine.dispose()
