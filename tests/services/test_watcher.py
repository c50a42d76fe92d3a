"""The watcher thread makes a running app serve a `git pull` without a restart."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from app.config import Settings
from app.web.factory import create_app

WAIT_S = 10.0


def test_running_app_serves_a_changed_file_without_a_restart(settings: Settings) -> None:
    watched = settings.model_copy(update={"reload_interval_s": 0.05})
    with TestClient(create_app(watched)) as client:
        old_etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
        path = watched.references_dir / "stuck-rank.md"
        path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            response = client.get("/api/v1/references/stuck-rank")
            if response.headers["etag"] != old_etag:
                break
            time.sleep(0.05)
        assert response.headers["etag"] != old_etag
        assert response.json()["causes"][2]["title"] == "Pulled from git"
