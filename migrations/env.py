"""Alembic environment: runs on the connection failref hands it, or on the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import failref.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)

TARGET_METADATA = SQLModel.metadata


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        url = context.config.get_main_option("sqlalchemy.url")
        with create_engine(url).begin() as own_connection:
            _run(own_connection)
    else:
        _run(connection)


def _run(connection: object) -> None:
    # SQLite cannot ALTER most things in place; batch mode copies the table instead.
    context.configure(connection=connection, target_metadata=TARGET_METADATA, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
