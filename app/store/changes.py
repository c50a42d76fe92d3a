"""The index-change channel of PostgreSQL: a save or a load announces its commit with
`NOTIFY failref_index`, and every replica's `ChangeListener` hears it at once.

The announcement is part of the committing transaction (PostgreSQL delivers a NOTIFY at
commit, and drops it on rollback), so a listener never hears of a change it cannot read
yet. A listener that was disconnected misses what was sent meanwhile: it calls back once
after every (re)connection, and the watcher's periodic check stays as the fallback. On
SQLite there is no channel; the periodic check is the only way."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg
from psycopg.conninfo import make_conninfo
from sqlalchemy import text
from sqlmodel import Session

from .db import Engine, is_postgresql

logger = logging.getLogger(__name__)

CHANNEL = "failref_index"
# The listener looks up from its wait this often, to notice that it was asked to stop.
WAIT_S = 0.5
# Reconnecting to a server that went away: first after this long, doubling up to the cap.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 5.0
# A server that vanished without closing the connection (a cut network) is noticed after
# about idle + interval x count seconds of TCP keepalive probes; one that does not answer
# a connection attempt, after the connect timeout.
CONNECTION_OPTIONS = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "connect_timeout": 5,
}


def announce_change(session: Session, version: int) -> None:
    """Tell every listening replica, at commit, that the index is now at `version`."""
    connection = session.connection()
    if is_postgresql(connection):
        connection.execute(
            text("SELECT pg_notify(:channel, :version)"),
            {"channel": CHANNEL, "version": str(version)},
        )


class ChangeListener:
    """LISTENs on the channel in a thread of its own, with its own connection (reconnecting
    with backoff when the server goes away), and calls `on_change` for each notification
    and after each (re)connection."""

    def __init__(self, conninfo: str, on_change: Callable[[], None]) -> None:
        self.conninfo = conninfo
        self.on_change = on_change
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failref-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        delay_s = RETRY_FIRST_S
        while not self._stop.is_set():
            try:
                self._listen()
            except psycopg.Error as error:
                logger.warning("change listener disconnected (%s); retrying", error)
            if self.connected.is_set():
                delay_s = RETRY_FIRST_S  # it had been up: the backoff starts over
            self.connected.clear()
            if self._stop.wait(delay_s):
                return
            delay_s = min(delay_s * 2, RETRY_MAX_S)

    def _listen(self) -> None:
        conninfo = make_conninfo(self.conninfo, **CONNECTION_OPTIONS)
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.connected.set()
            # Whatever was committed while no one listened is caught up with now.
            self.on_change()
            while not self._stop.is_set():
                for _notification in connection.notifies(timeout=WAIT_S):
                    self.on_change()


def change_listener(engine: Engine, on_change: Callable[[], None]) -> ChangeListener | None:
    """A listener for the database behind `engine`, or None on SQLite (no channel)."""
    if not is_postgresql(engine):
        return None
    url = engine.url.set(drivername="postgresql")
    return ChangeListener(url.render_as_string(hide_password=False), on_change)
