"""Issue 35, item 4: unanswered queries are written off the request path. A paste is
answered while another process holds the write lock, and its gap is written once the lock
is free; gaps are counted in batches; a full queue drops gaps rather than wait; closing
writes what is queued; a read-only mirror or `store_queries=false` queues nothing."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence

import pytest
from databases import held_write_lock
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from failref.config import Settings
from failref.services import gap_queue
from failref.services.gap_queue import GapQueue
from failref.services.side_storage import SideStorage
from failref.store.db import make_engine, upgrade_database
from failref.store.gaps import Template, store_templates
from failref.store.models import GapRow

UNANSWERED = "xyzzy frobnicator refused the widget"


def distinct(count: int) -> list[str]:
    """Unanswered lines of as many templates (numbers would all read `<n>`)."""
    return [f"unheard-of line {chr(97 + n % 26)}{chr(97 + n // 26)}q" for n in range(count)]


@pytest.fixture
def queue(settings: Settings) -> Iterator[GapQueue]:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    opened = GapQueue(engine, settings, SideStorage())
    yield opened
    opened.close()
    engine.dispose()


def stored(queue: GapQueue) -> dict[str, int]:
    """Each stored gap's example and count."""
    with Session(queue.engine) as session:
        return {row.example: row.count for row in session.exec(select(GapRow))}


def test_queued_gaps_are_written_and_counted(queue: GapQueue) -> None:
    queue.remember([UNANSWERED, UNANSWERED, "another unheard-of line zq9"])
    queue.remember(["   ", ""])  # nothing to keep
    assert queue.flush(timeout=30)
    assert stored(queue) == {UNANSWERED: 2, "another unheard-of line zq9": 1}


def test_a_gap_is_redacted_before_it_is_queued(
    queue: GapQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[Template] = []

    def keep(engine: object, found: Sequence[Template]) -> None:
        handed.extend(found)
        store_templates(queue.engine, found)

    monkeypatch.setattr(gap_queue, "store_templates", keep)
    queue.remember(["login failed for bob password=hunter2"])
    assert queue.flush(timeout=30)
    assert handed
    assert not any("hunter2" in template + example for template, example, _ in handed)


@pytest.mark.parametrize("setting", [{"read_only": True}, {"store_queries": False}])
def test_nothing_is_queued_when_storing_is_off(
    settings: Settings, setting: dict[str, bool]
) -> None:
    off = settings.model_copy(update=setting)
    engine = make_engine(off)
    upgrade_database(engine, off)
    queue = GapQueue(engine, off, SideStorage())
    queue.remember([UNANSWERED])
    assert queue.flush(timeout=30)
    queue.close()
    assert stored(queue) == {}
    engine.dispose()


def test_a_full_queue_drops_gaps_instead_of_waiting(
    queue: GapQueue, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    writing = threading.Event()
    release = threading.Event()

    def held(engine: object, found: Sequence[Template]) -> None:
        writing.set()
        assert release.wait(timeout=30)
        store_templates(queue.engine, found)

    monkeypatch.setattr(gap_queue, "store_templates", held)
    monkeypatch.setattr(gap_queue, "MAX_QUEUED", 3)
    queue.remember(["first unheard-of line"])  # taken by the writer, which is held
    assert writing.wait(timeout=30)
    with caplog.at_level(logging.WARNING, logger=gap_queue.__name__):
        queue.remember(distinct(5))  # returns at once
    assert "2 unanswered queries not stored: 3 are waiting already" in caplog.text
    release.set()
    assert queue.flush(timeout=30)
    assert sorted(stored(queue)) == sorted(["first unheard-of line", *distinct(3)])


def test_closing_writes_what_is_queued(settings: Settings) -> None:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    queue = GapQueue(engine, settings, SideStorage())
    queue.remember(distinct(50))
    queue.close()
    assert len(stored(queue)) == 50
    queue.remember(["after closing"])  # ignored: the thread is gone
    assert "after closing" not in stored(queue)
    engine.dispose()


def test_a_paste_is_answered_while_another_process_holds_the_write_lock(
    client: TestClient, settings: Settings
) -> None:
    library = client.app.state.library  # type: ignore[attr-defined]
    with held_write_lock(settings.database_url):
        response = client.post("/api/v1/match", json={"log": UNANSWERED})
        assert response.status_code == 200  # answered with the lock still held
    # The gap waited for the lock, not the answer; it is written now the lock is free.
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        assert [row.example for row in session.exec(select(GapRow))] == [UNANSWERED]
