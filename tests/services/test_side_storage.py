"""Issue 35, item 7: what a read stores or reads on the side (the gap of an unanswered
paste, the readers' counts) never fails the read; `/readyz` says what is failing until a
later side-write succeeds."""

from __future__ import annotations

import errno
import sqlite3

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from failref.services import gap_queue
from failref.services.side_storage import SideStorage, best_effort, read_or, storage_reason
from failref.web.routes import pages

UNANSWERED = "xyzzy frobnicator refused the widget"
DISK_FULL = OperationalError(
    "INSERT INTO gap", {}, sqlite3.OperationalError("database or disk is full")
)
DATABASE_DOWN = OperationalError(
    "SELECT", {}, sqlite3.OperationalError("connection to server at db:5432 refused")
)


def _raise(error: BaseException) -> None:
    raise error


def test_a_failed_side_write_is_kept_not_raised_and_a_later_one_clears_it() -> None:
    state = SideStorage()
    best_effort(state, "a gap", lambda: _raise(DISK_FULL))
    failing = state.failing()
    assert failing is not None
    assert failing.startswith("the disk is full (since ")
    best_effort(state, "a gap", lambda: None)
    assert state.failing() is None


def test_a_failed_side_read_gives_the_fallback() -> None:
    state = SideStorage()
    assert read_or(state, "counts", lambda: _raise(DATABASE_DOWN), {}) == {}
    assert "busy or unavailable" in (state.failing() or "")


@pytest.mark.parametrize(
    ("error", "said"),
    [
        pytest.param(DISK_FULL, "the disk is full", id="sqlite-full"),
        pytest.param(
            OSError(errno.ENOSPC, "No space left on device"), "the disk is full", id="enospc"
        ),
        pytest.param(DATABASE_DOWN, "the database is busy or unavailable", id="down"),
    ],
)
def test_the_reason_says_what_to_act_on(error: BaseException, said: str) -> None:
    assert storage_reason(error).startswith(said)


def test_an_unanswered_paste_is_answered_on_a_full_disk_and_readyz_says_so(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gap_queue, "store_templates", lambda *_: _raise(DISK_FULL))
    for response in (
        client.post("/api/v1/match", json={"log": UNANSWERED}),
        client.post("/", data={"log": UNANSWERED}),
    ):
        assert response.status_code == 200, response.text
    written(client)
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["storage"].startswith("the disk is full")
    monkeypatch.undo()
    assert client.post("/api/v1/match", json={"log": UNANSWERED}).status_code == 200
    written(client)
    assert client.get("/readyz").json()["storage"] is None


def written(client: TestClient) -> None:
    """Wait for the app's queued gaps to be written (or lost to a fault)."""
    assert client.app.state.library.gaps.flush(timeout=30)  # type: ignore[attr-defined]


def test_a_scan_is_answered_when_its_gaps_cannot_be_stored(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gap_queue, "store_templates", lambda *_: _raise(DATABASE_DOWN))
    log = "\n".join(f"RuntimeError: {UNANSWERED} {n}" for n in range(30))
    response = client.post("/api/v1/scan", json={"log": log})
    assert response.status_code == 200, response.text
    written(client)
    assert "busy or unavailable" in client.get("/readyz").json()["storage"]


def test_a_reference_page_is_served_without_the_readers_counts(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "outcome_counts", lambda *_: _raise(DATABASE_DOWN))
    response = client.get("/r/stuck-rank")
    assert response.status_code == 200
    assert "confirmed by" not in response.text
