"""The watcher thread makes a running app serve a `git pull` without a restart, and a
replica serve another replica's save: at once when PostgreSQL announces it, at the next
periodic check when the announcement was lost."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from databases import POSTGRESQL_ONLY
from fastapi.testclient import TestClient

from failref.config import Settings
from failref.services.editing import Edit, save_reference
from failref.services.library import Library, open_library
from failref.services.watcher import Watcher
from failref.store import index
from failref.store.files import current_file
from failref.web.factory import create_app

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


@pytest.fixture
def replicas(settings: Settings, tmp_path: Path) -> Iterator[tuple[Library, Library]]:
    """Two replicas of one PostgreSQL database, each with its own copy of the folder."""
    folder = tmp_path / "replica-b"
    shutil.copytree(settings.references_dir, folder)
    first = open_library(settings)
    second = open_library(settings.model_copy(update={"references_dir": folder}))
    yield first, second
    first.close()
    second.close()


def save_on(library: Library, title: str) -> str:
    """Save a new title for cause 3 of stuck-rank on `library`; the new content hash."""
    found = current_file(library.settings.references_dir, "stuck-rank")
    assert found is not None
    text, base = found
    edit = Edit("stuck-rank", text.replace("A dead host.", f"{title}."), base, False, title)
    return save_reference(library, edit, "ann").content_hash


def caught_up(library: Library, content_hash: str) -> bool:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if library.catalog.references["stuck-rank"].content_hash == content_hash:
            return True
        time.sleep(0.01)
    return False


@POSTGRESQL_ONLY
def test_a_replica_catches_up_with_a_save_when_it_is_announced(
    replicas: tuple[Library, Library],
) -> None:
    """The periodic check is an hour away: only the NOTIFY can bring the save over."""
    first, second = replicas
    watcher = Watcher(second, interval_s=3600)
    watcher.start()
    try:
        assert watcher.listener is not None
        assert watcher.listener.connected.wait(WAIT_S)
        assert caught_up(second, save_on(first, "Saved on the other replica"))
    finally:
        watcher.stop()
    assert second.catalog.references["stuck-rank"].causes[2].title == "Saved on the other replica"


@POSTGRESQL_ONLY
def test_a_lost_announcement_is_caught_by_the_periodic_check(
    replicas: tuple[Library, Library], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = replicas
    watcher = Watcher(second, interval_s=0.05)
    watcher.start()
    try:
        assert watcher.listener is not None
        assert watcher.listener.connected.wait(WAIT_S)
        monkeypatch.setattr(index, "announce_change", lambda *_args: None)
        assert caught_up(second, save_on(first, "Announced to no one"))
    finally:
        watcher.stop()
