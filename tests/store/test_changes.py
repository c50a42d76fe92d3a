"""The index-change channel: a committed change is heard by a listener, a rolled-back one is
not, and a listener whose connection is cut reconnects and calls back."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest
from databases import POSTGRESQL_ONLY, SQLITE_ONLY, libpq_url

from failref.config import Settings
from failref.store.changes import CHANNEL, ChangeListener, change_listener
from failref.store.db import Engine, writing
from failref.store.index import bump_index_version, index_version

WAIT_S = 30.0


class Calls:
    """Counts the listener's calls; `wait_for(n)` returns once there were `n`."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = threading.Condition()

    def __call__(self) -> None:
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def wait_for(self, count: int) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.count >= count, timeout=WAIT_S)


@pytest.fixture
def listening(engine: Engine) -> Iterator[tuple[ChangeListener, Calls]]:
    calls = Calls()
    listener = change_listener(engine, calls)
    assert listener is not None
    listener.start()
    assert calls.wait_for(1)  # the call after connecting
    yield listener, calls
    listener.stop()


def bump(engine: Engine, *, commit: bool) -> None:
    with writing(engine) as session:
        bump_index_version(session)
        if commit:
            session.commit()


def heard_while(settings: Settings, engine: Engine, commits: list[bool]) -> list[str]:
    """The payloads a LISTENing connection receives while `engine` bumps the version once
    per entry of `commits`, committing or rolling back."""
    with psycopg.connect(libpq_url(settings.database_url), autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        for commit in commits:
            bump(engine, commit=commit)
        with writing(engine) as session:
            last = str(index_version(session))
        heard = []
        for note in listener.notifies(timeout=WAIT_S):
            heard.append(note.payload)
            if note.payload == last:
                break
        return heard


@POSTGRESQL_ONLY
@pytest.mark.parametrize(
    ("commits", "heard"),
    [
        pytest.param([True, True], ["1", "2"], id="committed"),
        # A rolled-back change is never announced (it would be a first "1").
        pytest.param([False, True, True], ["1", "2"], id="rolled-back"),
    ],
)
def test_a_change_is_announced_at_commit_with_its_version(
    settings: Settings, engine: Engine, commits: list[bool], heard: list[str]
) -> None:
    assert heard_while(settings, engine, commits) == heard


@POSTGRESQL_ONLY
def test_the_listener_hears_each_committed_change(
    engine: Engine, listening: tuple[ChangeListener, Calls]
) -> None:
    _, calls = listening
    bump(engine, commit=True)
    assert calls.wait_for(2)
    with writing(engine) as session:
        assert index_version(session) == 1


@POSTGRESQL_ONLY
def test_a_cut_listener_reconnects_and_calls_back(
    settings: Settings, engine: Engine, listening: tuple[ChangeListener, Calls]
) -> None:
    listener, calls = listening
    with psycopg.connect(libpq_url(settings.database_url), autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"
        ).fetchall()
    assert ended == [(True,)]
    assert calls.wait_for(2)  # reconnected: whatever it missed is caught up with
    assert listener.connected.wait(WAIT_S)
    bump(engine, commit=True)
    assert calls.wait_for(3)


@SQLITE_ONLY
def test_sqlite_has_no_channel(engine: Engine) -> None:
    assert change_listener(engine, lambda: None) is None
