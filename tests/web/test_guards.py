"""Who is asking: anonymous reads stay off the write lock; token checks spend a budget."""

from __future__ import annotations

import pytest
from databases import held_write_lock
from editing_helpers import library_of, new_editor
from fastapi.testclient import TestClient

from failref.config import Settings
from failref.store import db
from failref.web.factory import create_app


def test_anonymous_page_views_do_not_wait_for_a_writer(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With another writer holding the lock and a busy timeout of a few milliseconds, a
    view that asked for the write lock would fail with 503: a 200 shows it never asked."""
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 5)
    with TestClient(create_app(settings)) as client, held_write_lock(settings.database_url):
        page = client.get("/r/stuck-rank")
        saved = client.post("/r/stuck-rank/feedback", data={"helpful": "yes"})
    assert page.status_code == 200
    assert saved.status_code == 503  # a write does wait for the lock, and gives up


def test_token_guessing_runs_out_of_budget(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limit_per_minute": 8})
    with TestClient(create_app(limited)) as client:
        new_editor(client)
        statuses = [
            client.get(
                "/r/stuck-rank/edit", headers={"authorization": f"Bearer fr1.1.guess{i}"}
            ).status_code
            for i in range(6)
        ]
        assert statuses[0] == 401
        assert 429 in statuses
        assert library_of(client).catalog.references


def test_mcp_tool_calls_spend_the_same_budget(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limit_per_minute": 8})
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with TestClient(create_app(limited)) as client:
        statuses = [client.post("/mcp", json=call, headers=headers).status_code for _ in range(6)]
    assert 429 in statuses


def test_a_random_session_cookie_does_not_wait_for_a_writer(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13, item 11: looking a session up is a read; only an expired one is deleted.
    With another writer holding the lock and a 5 ms busy timeout, a lookup that asked for
    the write lock would answer 503."""
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 5)
    with TestClient(create_app(settings)) as client, held_write_lock(settings.database_url):
        client.cookies.set("failref_session", "a-cookie-nobody-was-given")
        page = client.get("/r/stuck-rank")
    assert page.status_code == 200
