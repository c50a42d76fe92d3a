"""The databases the tests run against: a SQLite file, and a fresh database on the throwaway
PostgreSQL server that `scripts/with-postgres` starts (`FAILREF_TEST_PG_URL`).

Every test that asks for `settings` (or `database_url`) runs once per backend; pass
`--database sqlite` (or `postgresql`) to run one half only."""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.pool import NullPool, Pool

from failref.store.db import WRITE_LOCK_KEY, is_postgresql

PG_URL_VARIABLE = "FAILREF_TEST_PG_URL"
PG_CTL_VARIABLE = "FAILREF_TEST_PG_CTL"
BACKENDS = ("sqlite", "postgresql")
NO_SERVER = (
    f"{PG_URL_VARIABLE} is not set: the PostgreSQL half runs under `bash scripts/test`, "
    "which starts a throwaway server (scripts/with-postgres)"
)

# For a test about SQLite itself (its files on disk, its pragmas): overrides the fixture's
# two backends with SQLite alone.
SQLITE_ONLY = pytest.mark.parametrize("database_backend", ["sqlite"])
# For a test about PostgreSQL itself (advisory locks, NOTIFY, stopping the server).
POSTGRESQL_ONLY = pytest.mark.parametrize(
    "database_backend",
    [pytest.param("postgresql", marks=[pytest.mark.postgresql, pytest.mark.postgresql_only])],
)


TABLES = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
# What a test could change of a database besides its rows: tables, columns, indexes,
# constraints, functions, triggers, sequences, and the Alembic revision.
SHAPE = """
SELECT concat_ws(E'\n',
  (SELECT string_agg(table_name || '.' || column_name || ' ' || data_type || ' '
     || is_nullable || ' ' || coalesce(column_default, ''), ',' ORDER BY table_name, column_name)
   FROM information_schema.columns WHERE table_schema = 'public'),
  (SELECT string_agg(indexdef, ',' ORDER BY indexdef) FROM pg_indexes WHERE schemaname = 'public'),
  (SELECT string_agg(conname || ' ' || pg_get_constraintdef(c.oid), ',' ORDER BY conname)
   FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE nspname = 'public'),
  (SELECT string_agg(proname, ',' ORDER BY proname)
   FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE nspname = 'public'),
  (SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal),
  (SELECT string_agg(sequencename, ',' ORDER BY sequencename) FROM pg_sequences
   WHERE schemaname = 'public'),
  (SELECT string_agg(version_num, ',') FROM alembic_version))
"""


def schema_shape(connection: Connection) -> str:
    """Everything of a database's schema that emptying its tables would not put back."""
    shape: str = connection.execute(text(SHAPE)).scalar_one()
    return shape


class DatabasePool:
    """Copies of a template migrated to head (the pool drops it when closed), each lent to
    one test at a time and emptied when it comes back: emptying one (TRUNCATE) costs a fraction of creating one, which copies the
    template's files and forces two checkpoints. One pool per pytest-xdist worker."""

    def __init__(self, server: PostgresServer, template: str) -> None:
        self.server = server
        self.template = template
        engine = create_engine(template, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                self.shape = schema_shape(connection)
        finally:
            engine.dispose()
        self.spare: list[str] = []

    def take(self) -> str:
        """A database migrated to head with no rows: a spare one, or a new copy."""
        return self.spare.pop() if self.spare else self.server.create_database(self.template)

    def give_back(self, url: str) -> None:
        """Empty a lent database for the next test, or drop it if its schema changed."""
        if self.server.emptied(url, self.shape):
            self.spare.append(url)
        else:
            self.server.drop_database(url)

    def close(self) -> None:
        """Drop the spare databases and the template."""
        for url in [*self.spare, self.template]:
            self.server.drop_database(url)
        self.spare.clear()


class PostgresServer:
    """The throwaway server: a fresh database per test, and stop/start for fault tests."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")

    def create_database(self, template: str | None = None) -> str:
        """A new database, empty or a copy of the database at `template` (a URL on this
        server that nothing is connected to); its SQLAlchemy URL."""
        name = f"failref_test_{uuid.uuid4().hex[:16]}"
        source = make_url(template).database if template else "template0"
        with self.admin.connect() as connection:
            # FILE_COPY is the quicker of the two strategies for databases this small.
            connection.execute(text(f"CREATE DATABASE {name} TEMPLATE {source} STRATEGY FILE_COPY"))
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop_database(self, url: str) -> None:
        """Remove a test's database, ending whatever connections it left open."""
        name = make_url(url).database
        with self.admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))

    def emptied(self, url: str, shape: str) -> bool:
        """End every connection to the database at `url` and empty its tables (identities
        restarted), keeping the Alembic revision, when its schema still has `shape`;
        whether it did (a test that changed the schema leaves a database to drop)."""
        name = make_url(url).database
        with self.admin.connect() as connection:
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.begin() as connection:
                if schema_shape(connection) != shape:
                    return False
                tables = [
                    f'"{table}"'
                    for table in connection.execute(text(TABLES)).scalars()
                    if table != "alembic_version"
                ]
                connection.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        finally:
            engine.dispose()
        return True

    @contextmanager
    def in_use(self, *, alone: bool) -> Iterator[None]:
        """Hold the server for one test: shared with the tests of other pytest-xdist workers,
        or `alone` for a test that stops it (marked `stops_postgresql`), which then waits
        for every other test on the server to finish and keeps new ones waiting."""
        lock_path = self.lock_path()
        with lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def lock_path(self) -> Path:
        """One lock file per server, shared by every worker of a run."""
        key = hashlib.sha256(str(self.url).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"failref-test-pg-{key}.lock"

    def control(self, action: str) -> None:
        """`stop` or `start` the server (and wait for it)."""
        ctl = os.environ.get(PG_CTL_VARIABLE)
        if not ctl:
            pytest.skip(f"{PG_CTL_VARIABLE} is not set: this server cannot be stopped")
        subprocess.run([ctl, action], check=True, capture_output=True, timeout=120)


@contextmanager
def closing_left_connections() -> Iterator[None]:
    """Close, at the end of the block, every PostgreSQL connection a pool opened in it.

    A test that drops an engine without `dispose()` leaves its pooled connections to the
    garbage collector, and psycopg warns (an error under our filters) in whichever later
    test the collection happens to run; closing them here keeps each test's leftovers its
    own. The database is dropped right after, so nothing could use them again."""
    opened: list[Any] = []

    def remember(dbapi_connection: Any, _record: Any) -> None:
        # A pool of another thread (a live server's SQLite, a background writer) may open
        # a connection meanwhile: it is that thread's, and no PostgreSQL one.
        if isinstance(dbapi_connection, psycopg.Connection):
            opened.append(dbapi_connection)

    event.listen(Pool, "connect", remember)
    try:
        yield
    finally:
        event.remove(Pool, "connect", remember)
        for connection in opened:
            if not connection.closed:
                connection.close()


def postgres_url() -> str | None:
    return os.environ.get(PG_URL_VARIABLE) or None


def libpq_url(url: str) -> str:
    """`url` as psycopg itself takes it (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class WriteLockHolder:
    """Another process's writer: holds the one-writer lock of the database at `url` (SQLite's
    write lock, or the PostgreSQL advisory lock) between `take` and `release`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite:///")
        if self.sqlite:
            self._sqlite = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        else:
            self._pg = psycopg.connect(libpq_url(url), autocommit=True)
            self._pg.execute("SET lock_timeout = '5s'")  # a test never hangs on it

    def take(self) -> None:
        if self.sqlite:
            self._sqlite.execute("BEGIN IMMEDIATE")
        else:
            self._pg.execute("BEGIN")
            self._pg.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))

    def release(self) -> None:
        if self.sqlite:
            self._sqlite.execute("ROLLBACK")
        else:
            self._pg.execute("ROLLBACK")

    def close(self) -> None:
        (self._sqlite if self.sqlite else self._pg).close()


@contextmanager
def held_write_lock(url: str) -> Iterator[None]:
    """The write lock held by another connection for the duration of the block."""
    holder = WriteLockHolder(url)
    holder.take()
    try:
        yield
    finally:
        holder.release()
        holder.close()


def assert_database_intact(engine: Engine) -> None:
    """SQLite's integrity check, or PostgreSQL's amcheck over every table and index."""
    with engine.connect() as connection:
        if not is_postgresql(engine):
            assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            return
        connection.execute(text("CREATE EXTENSION IF NOT EXISTS amcheck"))
        tables = connection.execute(
            text(
                "SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
            )
        ).scalars()
        for table in list(tables):
            corrupt = connection.execute(
                text("SELECT count(*) FROM verify_heapam(:table)"), {"table": table}
            ).scalar()
            assert corrupt == 0
        connection.execute(
            text(
                "SELECT bt_index_check(c.oid, true) FROM pg_index i"
                " JOIN pg_class c ON c.oid = i.indexrelid"
                " JOIN pg_am am ON am.oid = c.relam"
                " WHERE am.amname = 'btree' AND c.relnamespace = 'public'::regnamespace"
            )
        ).all()
        connection.commit()
