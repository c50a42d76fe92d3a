"""The database engine, its migrations, and the session dependency."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

from app.config import Settings

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
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def upgrade_database(engine: Engine, settings: Settings) -> None:
    """Apply every Alembic migration to the database behind `engine`."""
    config = Config()
    config.set_main_option("script_location", str(settings.migrations_dir))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def session_scope(engine: Engine) -> Iterator[Session]:
    """Yield one session; the caller commits."""
    with Session(engine) as session:
        yield session
