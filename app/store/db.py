"""The database engine, its migrations, and the two kinds of session: reading, and writing
with the one-writer lock taken at once (SQLite's write lock, or a PostgreSQL advisory lock).

SQLite is the embedded default; PostgreSQL (psycopg 3) is for replicas sharing a server.
`docs/architecture.md` says why the lock on PostgreSQL is an advisory lock."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event, text
from sqlalchemy import Engine as Engine  # the engine type the services pass around
from sqlalchemy.exc import DBAPIError as DBAPIError  # any driver error (store faults)
from sqlalchemy.exc import OperationalError as OperationalError  # what web/ turns into 503
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, create_engine

from ..config import Settings

# What a storage fault looks like to a caller that can do without the write or read: the
# driver's error (a locked or full SQLite file, a PostgreSQL that does not answer) or the
# file system's.
STORAGE_ERRORS: tuple[type[Exception], ...] = (DBAPIError, OSError)

logger = logging.getLogger(__name__)

# Writers wait this long for the write lock (SQLite's busy timeout, PostgreSQL's
# lock_timeout) instead of failing with "database is locked" at once.
BUSY_TIMEOUT_MS = 15_000
# PostgreSQL advisory lock keys, database-wide: "failref" in ASCII, then which lock. One
# writer at a time; one migration run at a time.
WRITE_LOCK_KEY = 0x6661696C72656601
MIGRATION_LOCK_KEY = 0x6661696C72656602
# Between tries at turning a new SQLite file to WAL (`_write_ahead`).
WAL_RETRY_S = 0.005


def make_engine(settings: Settings) -> Engine:
    """An engine for `settings.database_url`; SQLite gets WAL, full sync and a busy timeout,
    PostgreSQL connections are checked before use (a restarted server is reconnected to)."""
    url = settings.database_url
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(postgresql_url(url), pool_pre_ping=True)


def postgresql_url(url: str) -> str:
    """`url` with the psycopg 3 driver named: `postgresql://` (what servers hand out) would
    otherwise mean psycopg2 to SQLAlchemy."""
    scheme, _, rest = url.partition("://")
    return f"postgresql+psycopg://{rest}" if scheme in ("postgresql", "postgres") else url


def is_postgresql(bind: Engine | Connection) -> bool:
    """True for a PostgreSQL server, False for the embedded SQLite file."""
    return bind.dialect.name == "postgresql"


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself, so a writer can ask for IMMEDIATE.
    connection.isolation_level = None
    cursor = connection.cursor()
    _write_ahead(cursor)
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Deleted rows (pruned queries) are overwritten, not left in free pages of the file.
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


def _write_ahead(cursor: Any) -> None:
    """PRAGMA journal_mode=WAL, tried again until the busy timeout. Two connections that
    open a new file at once both read it and then want it to themselves to turn it to WAL:
    SQLite answers one "database is locked" at once, without waiting (waiting could never
    end), and that one's next try finds the file in WAL already. A file another connection
    holds waits in SQLite's busy handler instead, so a try begun just before the deadline
    may wait one busy timeout more."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            code = getattr(error, "sqlite_errorcode", None) or 0
            busy = code & 0xFF == sqlite3.SQLITE_BUSY  # SQLITE_BUSY_RECOVERY and the like
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(WAL_RETRY_S)


def _sqlite_begin(connection: Connection) -> None:
    """BEGIN, or BEGIN IMMEDIATE for a session opened with `sqlite_immediate`: it takes the
    write lock at once, so two writers queue instead of both reading a base that one of
    them is about to change."""
    immediate = connection.get_execution_options().get("sqlite_immediate", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def upgrade_database(engine: Engine, settings: Settings) -> None:
    """Apply every Alembic migration to the database behind `engine`, one process at a time:
    replicas started together queue, and each later one finds the schema at head.

    The whole upgrade is one transaction that first takes the migration lock (SQLite's write
    lock, or a PostgreSQL advisory lock, held until the commit: its DDL is transactional)."""
    config = Config()
    config.set_main_option("script_location", str(settings.migrations_dir))
    with engine.connect() as connection:
        connection.execution_options(sqlite_immediate=True)
        with connection.begin():
            if is_postgresql(engine):
                # No lock_timeout: a long migration by another replica is waited out.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
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
    """A session whose first transaction takes the one-writer lock at once: SQLite's write
    lock (BEGIN IMMEDIATE), or on PostgreSQL a transaction-level advisory lock.

    A deferred transaction that reads and then writes fails with "database is locked" when
    another writer committed in between; one that starts as a writer waits its turn (up to
    the busy timeout) and then reads what is current. On PostgreSQL, READ COMMITTED (the
    default, kept) makes each statement after the lock see every commit before it. The
    lock goes with the commit or rollback. Every writer uses this."""
    with Session(engine) as session:
        connection = session.connection(execution_options={"sqlite_immediate": True})
        if is_postgresql(engine):
            connection.execute(text(f"SET LOCAL lock_timeout = {BUSY_TIMEOUT_MS}"))
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": WRITE_LOCK_KEY})
        yield session


def forget_deleted(session: Session) -> None:
    """After a commit that deleted text (pruned queries): on SQLite, copy the WAL back into
    the file and empty it, so the text is gone from both (secure_delete overwrote it in the
    file). PostgreSQL keeps dead rows until VACUUM reuses their space (docs/security.md)."""
    if is_postgresql(session.get_bind()):
        return
    session.connection().exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
