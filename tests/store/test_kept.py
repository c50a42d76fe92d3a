"""Kept pastes: stored compressed, read back by token, gone for readers past their
retention, pruned by age and, oldest first, by the budget."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine
from sqlmodel import select

from failref.store.db import reading, writing
from failref.store.kept import KeptPaste, keep_paste, prune_kept, read_kept
from failref.store.models import KeptPasteRow, utc_now

MONTH = dt.timedelta(days=30)
LOG = "\n".join(f"[rank{n % 8}] step {n} loss 1.25" for n in range(2_000))


def paste(token: str, text: str = LOG, age: dt.timedelta = dt.timedelta(0)) -> KeptPaste:
    return KeptPaste(token, text, {"framework": "vLLM 0.8"}, text.count("\n") + 1, utc_now() - age)


def tokens(engine: Engine) -> set[str]:
    with reading(engine) as session:
        return set(session.exec(select(KeptPasteRow.id)))


def test_a_kept_paste_reads_back_whole_and_costs_less_than_its_text(engine: Engine) -> None:
    cost = keep_paste(engine, paste("a" * 22))
    found = read_kept(engine, "a" * 22, MONTH)
    assert found is not None
    assert (found.text, found.context, found.lines) == (LOG, {"framework": "vLLM 0.8"}, 2_000)
    assert cost < len(LOG.encode()) / 5


def test_no_paste_and_an_expired_paste_read_as_none(engine: Engine) -> None:
    keep_paste(engine, paste("old", age=MONTH + dt.timedelta(hours=1)))
    assert read_kept(engine, "missing", MONTH) is None
    assert read_kept(engine, "old", MONTH) is None
    assert read_kept(engine, "old", 2 * MONTH) is not None


def test_pruning_deletes_the_expired(engine: Engine) -> None:
    keep_paste(engine, paste("old", age=MONTH + dt.timedelta(hours=1)))
    keep_paste(engine, paste("new"))
    with writing(engine) as session:
        assert prune_kept(session, MONTH, budget_bytes=10**9) == 1
    assert tokens(engine) == {"new"}


def test_pruning_deletes_the_oldest_past_the_budget(engine: Engine) -> None:
    for age, token in enumerate(["newest", "middle", "oldest"]):
        keep_paste(engine, paste(token, age=dt.timedelta(minutes=age)))
    with reading(engine) as session:
        one = session.exec(select(KeptPasteRow.stored_bytes)).first()
    assert one is not None
    with writing(engine) as session:
        assert prune_kept(session, MONTH, budget_bytes=2 * one) == 1
    assert tokens(engine) == {"newest", "middle"}
