"""Shared fixtures: a temporary references folder, settings, and an app client."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from paths import DIAGNOSIS, FIXTURES

from app.config import Settings
from app.web.factory import create_app


@pytest.fixture
def references_dir(tmp_path: Path) -> Path:
    """A writable copy of the good fixture references."""
    folder = tmp_path / "references"
    shutil.copytree(FIXTURES / "good", folder)
    return folder


@pytest.fixture
def settings(tmp_path: Path, references_dir: Path) -> Settings:
    """Settings for a temporary SQLite file and the fixture references, saving to the folder
    whatever the database (tests of database mode ask for it: store_helpers.in_database_mode)."""
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'db' / 'failref.db'}",
        references_dir=references_dir,
        store="folder",
        # Tests change files on purpose; the watcher is tested on its own (test_watcher.py).
        reload_interval_s=0,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """A client of an app started (lifespan run) on the fixture references."""
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def diagnosis_settings(tmp_path: Path) -> Settings:
    """Settings over the diagnosis fixtures: a waiting symptom, its causes, healthy and
    diagnostic blocks."""
    folder = tmp_path / "diagnosis"
    shutil.copytree(DIAGNOSIS, folder)
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'diagnosis.db'}",
        references_dir=folder,
        reload_interval_s=0,
    )


@pytest.fixture
def diagnosis_client(diagnosis_settings: Settings) -> Iterator[TestClient]:
    """A client of an app started on the diagnosis fixtures."""
    with TestClient(create_app(diagnosis_settings)) as test_client:
        yield test_client
