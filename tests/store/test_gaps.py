"""Unanswered queries: redacted, grouped, counted, pruned out of the database file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from databases import SQLITE_ONLY
from sqlmodel import Session, select

from failref.config import Settings
from failref.store.db import make_engine, upgrade_database
from failref.store.gaps import gap_template, list_gaps, prune_gaps, record_gap
from failref.store.models import GapRow, utc_now


@pytest.fixture
def session(settings: Settings) -> Iterator[Session]:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_template_is_redacted_and_masked() -> None:
    found = gap_template(
        "\n  Connection to db.internal failed with password=hunter2 after 3 tries\nmore"
    )
    assert found is not None
    template, example, context = found
    assert "hunter2" not in template + example
    assert context == ""
    assert "<n>" in template
    assert example == "  Connection to <host> failed with password=<secret> after 3 tries"


def test_blank_text_stores_nothing(session: Session) -> None:
    record_gap(session, " \n\t\n")
    session.commit()
    assert list_gaps(session) == []


def test_same_template_is_counted_once(session: Session) -> None:
    for attempt in range(3):
        record_gap(session, f"Weird failure after {attempt} retries")
        session.commit()
    (row,) = list_gaps(session)
    assert row.count == 3


@SQLITE_ONLY  # PostgreSQL keeps dead rows until VACUUM (docs/security.md)
def test_prune_deletes_old_gaps_from_the_file(session: Session, settings: Settings) -> None:
    record_gap(session, "MARKER_OLD_QUERY_TEXT happened")
    session.commit()
    row = session.exec(select(GapRow)).one()
    row.last_seen = utc_now() - dt.timedelta(days=400)
    session.add(row)
    session.commit()
    assert prune_gaps(session, dt.timedelta(days=90)) == 1
    session.close()
    database = settings.database_url.removeprefix("sqlite:///")
    for path in (Path(database), Path(f"{database}-wal")):
        if path.exists():
            assert b"MARKER_OLD_QUERY_TEXT" not in path.read_bytes()


def test_when_a_gap_was_seen_is_kept_to_the_day(session: Session) -> None:
    """Issue 13, item 9: a time to the millisecond lines up with the access log."""
    record_gap(session, "an unheard-of failure")
    session.commit()
    record_gap(session, "an unheard-of failure")
    session.commit()
    [row] = list_gaps(session)
    assert row.count == 2
    for moment in (row.first_seen, row.last_seen):
        assert (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0)


# What of a query is worth a gap (issue 34, item 7).
TRACEBACK = """Traceback (most recent call last):
  File "train.py", line 12, in <module>
    tokenizer = AutoTokenizer.from_pretrained(path)
OSError: Can't load tokenizer for 'widget-7b'. Make sure the path is right."""


def test_a_traceback_is_kept_as_its_exception_not_its_header() -> None:
    found = gap_template(TRACEBACK)
    assert found is not None
    assert found[1].startswith("OSError: Can't load tokenizer for 'widget-7b'")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("oom", id="one-word"),
        pytest.param("NCCL timeout", id="two-words"),
        pytest.param("Xid 999", id="a-code"),
        pytest.param("Failures:\n  <NO_OTHER_FAILURES>", id="torchrun-summary"),
        pytest.param("train.py FAILED", id="torchrun-failed"),
        pytest.param(
            'Traceback (most recent call last):\n  File "x.py", line 1, in f', id="frames"
        ),
    ],
)
def test_look_ups_and_wrappers_alone_are_not_gaps(text: str) -> None:
    assert gap_template(text) is None


@pytest.mark.parametrize("text", ["Killed", "Segmentation fault", "widget frobnicator refused"])
def test_a_short_line_that_states_a_failure_or_says_enough_is_a_gap(text: str) -> None:
    found = gap_template(text)
    assert found is not None
    assert found[1] == text
