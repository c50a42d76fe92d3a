"""The store's tests run on a migrated database (a test module may ask for another)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from failref.config import Settings
from failref.store.db import make_engine, upgrade_database


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    """An engine on the test database, migrated to head."""
    made = make_engine(settings)
    upgrade_database(made, settings)
    yield made
    made.dispose()
