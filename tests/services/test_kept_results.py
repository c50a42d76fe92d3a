"""Kept results: a paste is stored redacted by a thread of its own, its paster alone sees
it as sent (by the owner secret), a read-only mirror keeps nothing but reads what was kept,
and memory for waiting and fresh pastes is bounded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from secret_shapes import SHAPES

from failref.config import Settings
from failref.services import kept_results
from failref.services.kept_results import KeptResults
from failref.services.outcome import Outcome
from failref.services.side_storage import SideStorage
from failref.store.db import make_engine, upgrade_database

NOTHING = Outcome("match", (), None, {})
LOG = "\n".join(["[rank0] step 1 on gpu-node-17.cluster.internal", *(s.line for s in SHAPES)])


@pytest.fixture(autouse=True)
def unsettled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pastes are stored at once: the second a redaction waits for the paster's page is
    for speed only."""
    monkeypatch.setattr(kept_results, "SETTLE_S", 0.0)


def opened(settings: Settings) -> KeptResults:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    return KeptResults(engine, settings, SideStorage())


@pytest.fixture
def kept(settings: Settings) -> Iterator[KeptResults]:
    made = opened(settings)
    yield made
    made.close()
    made.engine.dispose()


def test_a_kept_paste_is_stored_redacted_with_its_context(kept: KeptResults) -> None:
    fresh = kept.keep(LOG, {"notes": "ran on gpu-node-17.cluster.internal"}, NOTHING, 1)
    assert fresh is not None
    assert kept.flush(timeout=30)
    stored = kept.read(fresh.token)
    assert stored is not None
    assert "gpu-node-17" not in stored.text + str(stored.context)
    assert stored.lines == LOG.count("\n") + 1
    for shape in SHAPES:
        assert not any(secret in stored.text for secret in shape.secrets), shape.name


def test_only_the_owner_sees_the_fresh_result(kept: KeptResults) -> None:
    fresh = kept.keep(LOG, {}, NOTHING, 1)
    assert fresh is not None
    assert kept.fresh(fresh.token, fresh.owner) == fresh
    assert kept.fresh(fresh.token, None) is None
    assert kept.fresh(fresh.token, "x" * 22) is None
    assert kept.fresh("y" * 22, fresh.owner) is None


def test_a_read_only_mirror_keeps_nothing_but_reads_what_was_kept(
    kept: KeptResults, settings: Settings
) -> None:
    fresh = kept.keep(LOG, {}, NOTHING, 1)
    assert fresh is not None
    assert kept.flush(timeout=30)
    mirror = opened(settings.model_copy(update={"read_only": True}))
    try:
        assert mirror.keep(LOG, {}, NOTHING, 1) is None
        assert mirror.read(fresh.token) is not None
    finally:
        mirror.close()
        mirror.engine.dispose()


def test_keeping_turned_off_keeps_and_reads_nothing(kept: KeptResults, settings: Settings) -> None:
    fresh = kept.keep(LOG, {}, NOTHING, 1)
    assert fresh is not None
    assert kept.flush(timeout=30)
    off = opened(settings.model_copy(update={"keep_results": False}))
    try:
        assert off.keep(LOG, {}, NOTHING, 1) is None
        assert off.read(fresh.token) is None
    finally:
        off.close()
        off.engine.dispose()


def test_a_paste_past_the_waiting_budget_is_not_kept(
    kept: KeptResults, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept_results, "WAITING_CHARS", len(LOG) - 1)
    assert kept.keep(LOG, {}, NOTHING, 1) is None
    assert not kept.pending("anything")


def test_fresh_results_past_the_memory_budget_are_forgotten_oldest_first(
    kept: KeptResults, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept_results, "FRESH_CHARS", 2 * len(LOG))
    made = [kept.keep(LOG, {}, NOTHING, 1) for _ in range(3)]
    assert all(made)
    first, second, third = (fresh for fresh in made if fresh is not None)
    assert kept.fresh(first.token, first.owner) is None
    assert kept.fresh(second.token, second.owner) == second
    assert kept.fresh(third.token, third.owner) == third
    assert kept.flush(timeout=30)
    assert kept.read(first.token) is not None  # forgotten in memory, not in storage


def test_closing_drops_a_paste_mid_redaction_and_stops_its_thread(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing waits CLOSE_WAIT_S for the queue, then stops the thread between two pieces,
    so nothing opens a connection once the library disposes of its engine."""
    monkeypatch.setattr(kept_results, "CLOSE_WAIT_S", 0.0)
    keeper = opened(settings)
    big = "\n".join(
        f"[rank{n % 8}] step {n} on gpu-node-{n}.cluster.internal" for n in range(200_000)
    )
    fresh = keeper.keep(big, {}, NOTHING, 1)
    assert fresh is not None
    keeper.close()
    assert keeper._thread is not None
    assert not keeper._thread.is_alive()
    assert keeper.read(fresh.token) is None
    keeper.engine.dispose()
