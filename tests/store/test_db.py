"""The engine and its sessions on both databases: one writer at a time, readers never wait,
migrations from empty, and two replicas upgrading at once leave one schema."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest
from alembic.script import ScriptDirectory
from databases import POSTGRESQL_ONLY, WriteLockHolder, held_write_lock, libpq_url
from sqlalchemy import inspect, text
from sqlalchemy.exc import OperationalError
from sqlmodel import SQLModel

from failref.config import Settings
from failref.store import db
from failref.store.db import (
    MIGRATION_LOCK_KEY,
    Engine,
    make_engine,
    postgresql_url,
    reading,
    upgrade_database,
    writing,
)
from failref.store.models import GapRow

# The migrations themselves are under test: each starts from a database none has touched.
pytestmark = pytest.mark.empty_database

# Every table the models declare, which the migrations must create, and Alembic's own.
TABLES = {*SQLModel.metadata.tables, "alembic_version"}
WAIT_S = 30.0


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    engine = make_engine(settings)
    yield engine
    engine.dispose()


def add_gap(engine: Engine, template: str, *, fail: bool = False) -> None:
    with writing(engine) as session:
        session.add(GapRow(template=template, example=template))
        if fail:
            raise RuntimeError("a failed save")
        session.commit()


def test_migrations_run_from_empty(engine: Engine, settings: Settings) -> None:
    upgrade_database(engine, settings)
    assert set(inspect(engine).get_table_names()) == TABLES
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    heads = ScriptDirectory(str(settings.migrations_dir)).get_heads()
    assert versions == [(head,) for head in heads]
    assert len(heads) == 1  # one chain of migrations, not two branches


def test_a_writer_waits_for_the_lock_and_gives_up_past_the_timeout(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 50)  # before the engine: SQLite reads it then
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with held_write_lock(settings.database_url):
        with reading(engine) as session:
            assert session.get(GapRow, 1) is None  # a reader does not wait
        with pytest.raises(OperationalError):
            add_gap(engine, "waited")
    add_gap(engine, "went ahead")  # released: the next writer goes ahead
    engine.dispose()


def test_the_write_lock_is_released_with_the_transaction(
    engine: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session that rolled back (an error inside a save) leaves the lock free."""
    upgrade_database(engine, settings)
    with pytest.raises(RuntimeError):
        add_gap(engine, "failed", fail=True)
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 50)
    holder = WriteLockHolder(settings.database_url)
    holder.take()  # would time out (SQLite) or wait forever (PostgreSQL) if still held
    holder.release()
    holder.close()


class _BusyCursor:
    """A cursor whose first `busy` statements fail as SQLite fails a journal-mode change
    that two connections opening a new file race for (or with another `code`)."""

    def __init__(self, busy: int, code: int = sqlite3.SQLITE_BUSY) -> None:
        self.busy, self.code, self.tries = busy, code, 0

    def execute(self, statement: str) -> None:
        assert statement == "PRAGMA journal_mode=WAL"
        self.tries += 1
        if self.tries <= self.busy:
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode = self.code
            raise error


def test_turning_a_new_file_to_wal_is_tried_again_while_it_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(db, "WAL_RETRY_S", 0.0)
    cursor = _BusyCursor(busy=3)
    db._write_ahead(cursor)
    assert cursor.tries == 4


class _Clock:
    """`time` as `db` reads it, its clock moved by sleeping alone."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_another_error_or_a_busy_file_past_the_timeout_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(db, "time", _Clock())
    other = _BusyCursor(busy=1, code=sqlite3.SQLITE_CORRUPT)
    with pytest.raises(sqlite3.OperationalError):
        db._write_ahead(other)
    assert other.tries == 1
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 10)
    monkeypatch.setattr(db, "WAL_RETRY_S", 0.004)
    locked = _BusyCursor(busy=1_000)
    with pytest.raises(sqlite3.OperationalError):
        db._write_ahead(locked)
    assert locked.tries == 4  # at 0, 4, 8 and 12 ms: the last past the 10 ms timeout


def test_an_extended_busy_code_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "WAL_RETRY_S", 0.0)
    recovering = _BusyCursor(busy=2, code=sqlite3.SQLITE_BUSY | (1 << 8))  # BUSY_RECOVERY
    db._write_ahead(recovering)
    assert recovering.tries == 3


def test_two_upgrades_at_once_leave_one_schema(engine: Engine, settings: Settings) -> None:
    barrier = threading.Barrier(2)
    failures: list[BaseException] = []

    def upgrade() -> None:
        own = make_engine(settings)
        try:
            barrier.wait()
            upgrade_database(own, settings)
        except BaseException as error:
            failures.append(error)
        finally:
            own.dispose()

    threads = [threading.Thread(target=upgrade) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert set(inspect(engine).get_table_names()) == TABLES
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1


@POSTGRESQL_ONLY
def test_upgrades_queue_on_the_migration_lock(settings: Settings, engine: Engine) -> None:
    """Two replicas starting while a third migrates both wait for its advisory lock, then
    find the schema at head."""
    failures: list[BaseException] = []
    with psycopg.connect(libpq_url(settings.database_url), autocommit=True) as holder:
        holder.execute("BEGIN")
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))

        def upgrade() -> None:
            own = make_engine(settings)
            try:
                upgrade_database(own, settings)
            except BaseException as error:
                failures.append(error)
            finally:
                own.dispose()

        threads = [threading.Thread(target=upgrade) for _ in range(2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + WAIT_S
        waiting = 0
        while waiting < 2 and time.monotonic() < deadline:
            waiting = holder.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone()[0]  # type: ignore[index]
            time.sleep(0.02)
        assert waiting == 2
        assert "alembic_version" not in inspect(engine).get_table_names()
        holder.execute("ROLLBACK")
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1


@pytest.mark.parametrize(
    ("given", "used"),
    [
        pytest.param("postgresql://u:p@h/d", "postgresql+psycopg://u:p@h/d", id="postgresql"),
        pytest.param("postgres://u@h:5433/d", "postgresql+psycopg://u@h:5433/d", id="postgres"),
        pytest.param("postgresql+psycopg://h/d", "postgresql+psycopg://h/d", id="psycopg"),
        pytest.param("sqlite:///var/f.db", "sqlite:///var/f.db", id="sqlite"),
    ],
)
def test_a_postgresql_url_gets_the_psycopg_driver(given: str, used: str) -> None:
    assert postgresql_url(given) == used
