"""Who is asking: anonymous reads stay off the write lock; token checks spend a budget."""

from __future__ import annotations

import sqlite3
import time

from editing_helpers import library_of, new_editor
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app

FAST_S = 0.5


def test_anonymous_page_views_do_not_wait_for_a_writer(
    client: TestClient, settings: Settings
) -> None:
    holder = sqlite3.connect(settings.database_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        start = time.monotonic()
        response = client.get("/r/stuck-rank")
        elapsed = time.monotonic() - start
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 200
    assert elapsed < FAST_S


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
