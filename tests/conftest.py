"""Shared fixtures: a temporary references folder, the database (SQLite and PostgreSQL, see
databases.py), settings, and an app client."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest
from databases import (
    BACKENDS,
    NO_SERVER,
    DatabasePool,
    PostgresServer,
    closing_left_connections,
    postgres_url,
)
from fastapi.testclient import TestClient
from paths import DIAGNOSIS, FIXTURES
from reference_helpers import LONG_INFERENCE, LONG_TRAINING, write_references

from failref.config import Settings
from failref.services.library import migrate
from failref.web.factory import create_app


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database",
        choices=[*BACKENDS, "both"],
        default="both",
        help="run the database tests on SQLite, PostgreSQL or both (the default)",
    )


def pytest_configure(config: pytest.Config) -> None:
    wanted = config.getoption("--database") != "sqlite"
    if wanted and os.environ.get("CI") == "true" and postgres_url() is None:
        raise pytest.UsageError(f"CI=true needs the PostgreSQL half, but {NO_SERVER}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    chosen = config.getoption("--database")
    if chosen == "both":
        return
    keep, drop = [], []
    for item in items:
        on_postgresql = item.get_closest_marker("postgresql") is not None
        (drop if on_postgresql == (chosen == "sqlite") else keep).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep


@pytest.fixture(autouse=True)
def traced_once(request: pytest.FixtureRequest) -> Iterator[None]:
    """Coverage pauses for the PostgreSQL half of a test that runs on both databases: it runs
    the lines the SQLite half ran, and tracing them again would cost a fifth of the half's
    time for no new line. What only PostgreSQL runs (advisory locks, LISTEN/NOTIFY, its
    errors) is traced in the tests about PostgreSQL itself (`POSTGRESQL_ONLY`)."""
    tracing = coverage.Coverage.current()
    node = request.node
    if (
        tracing is None
        or node.get_closest_marker("postgresql") is None
        or node.get_closest_marker("postgresql_only") is not None
    ):
        yield
        return
    tracing.stop()
    try:
        yield
    finally:
        tracing.start()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The throwaway PostgreSQL server; the test is skipped, saying why, without one."""
    url = postgres_url()
    if url is None:
        pytest.skip(NO_SERVER)
    server = PostgresServer(url)
    yield server
    server.admin.dispose()


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
    ]
)
def database_backend(request: pytest.FixtureRequest) -> str:
    """Which database a test runs on; every test using the database runs on both."""
    backend: str = request.param
    return backend


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head, which each test copies: copying it costs less than
    migrating (one per pytest-xdist worker, as every session-scoped fixture)."""
    path = tmp_path_factory.mktemp("migrated") / "failref.db"
    migrate(Settings(database_url=f"sqlite:///{path}"))
    assert not path.with_name(f"{path.name}-wal").exists(), "the copy would miss the WAL"
    return path


@pytest.fixture(scope="session")
def postgresql_pool(postgres_server: PostgresServer) -> Iterator[DatabasePool]:
    """Databases migrated to head on the PostgreSQL server, lent to one test at a time."""
    with postgres_server.in_use(alone=False):
        template = postgres_server.create_database()
    migrate(Settings(database_url=template))
    pool = DatabasePool(postgres_server, template)
    yield pool
    with postgres_server.in_use(alone=False):
        pool.close()


@pytest.fixture
def database_url(
    database_backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A temporary SQLite file, or a database of its own on the PostgreSQL server: migrated
    to head and without rows, as the app finds it after its first migration (on PostgreSQL
    one the pool emptied), or, for a test marked `empty_database` (the migrations' own
    tests), a database no migration has touched."""
    empty = request.node.get_closest_marker("empty_database") is not None
    if database_backend == "sqlite":
        path = tmp_path / "db" / "failref.db"
        if not empty:
            path.parent.mkdir()
            shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
        yield f"sqlite:///{path}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    pool: DatabasePool | None = None if empty else request.getfixturevalue("postgresql_pool")
    alone = request.node.get_closest_marker("stops_postgresql") is not None
    with server.in_use(alone=alone):
        url = pool.take() if pool else server.create_database()
        with closing_left_connections():
            yield url
        if pool:
            pool.give_back(url)
        else:
            server.drop_database(url)


@pytest.fixture
def references_dir(tmp_path: Path) -> Path:
    """A writable copy of the good fixture references."""
    folder = tmp_path / "references"
    shutil.copytree(FIXTURES / "good", folder)
    return folder


@pytest.fixture
def settings(database_url: str, references_dir: Path) -> Settings:
    """Settings for a temporary database and the fixture references, saving to the folder
    whatever the database (tests of database mode ask for it: store_helpers.in_database_mode)."""
    return Settings(
        database_url=database_url,
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
def long_client(settings: Settings) -> Iterator[TestClient]:
    """A client of an app started on the fixture references and the long list's."""
    write_references(settings.references_dir, LONG_TRAINING)
    write_references(settings.references_dir, LONG_INFERENCE, "inference")
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
