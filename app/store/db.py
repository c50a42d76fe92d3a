"""The database engine, its migrations, and the two kinds of session: reading, and writing
with SQLite's write lock taken at once."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event, text
from sqlalchemy import Engine as Engine  # the engine type the services pass around
from sqlalchemy.exc import OperationalError as OperationalError  # what web/ turns into 503
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, create_engine

from app.config import Settings

logger = logging.getLogger(__name__)

# Writers wait this long for SQLite's lock instead of failing with "database is locked".
BUSY_TIMEOUT_MS = 15_000


def make_engine(settings: Settings) -> Engine:
    """An engine for `settings.database_url`; SQLite gets WAL, full sync and a busy timeout."""
    url = settings.database_url
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself, so a writer can ask for IMMEDIATE.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Deleted rows (pruned queries) are overwritten, not left in free pages of the file.
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    """BEGIN, or BEGIN IMMEDIATE for a session opened with `sqlite_immediate`: it takes the
    write lock at once, so two writers queue instead of both reading a base that one of
    them is about to change."""
    immediate = connection.get_execution_options().get("sqlite_immediate", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def upgrade_database(engine: Engine, settings: Settings) -> None:
    """Apply every Alembic migration to the database behind `engine`."""
    config = Config()
    config.set_main_option("script_location", str(settings.migrations_dir))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def reading(engine: Engine) -> Iterator[Session]:
    """A session for reads; SQLite takes no write lock for it."""
    with Session(engine) as session:
        yield session


def database_answers(engine: Engine) -> bool:
    """True when a trivial query succeeds."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError:
        logger.exception("database check failed")
        return False
    return True


@contextmanager
def writing(engine: Engine) -> Iterator[Session]:
    """A session whose transaction takes SQLite's write lock at once (BEGIN IMMEDIATE).

    A deferred transaction that reads and then writes fails with "database is locked" when
    another writer committed in between; one that starts as a writer waits its turn (up to
    the busy timeout) and then reads what is current. Every writer uses this."""
    with Session(engine) as session:
        session.connection(execution_options={"sqlite_immediate": True})
        yield session
