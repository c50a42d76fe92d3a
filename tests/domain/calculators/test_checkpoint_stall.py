"""checkpoint-stall: worked example, hand-computed cases, the async backlog, monotonicity."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator
from failref.domain.calculators.checkpoint_stall import blocking_seconds

CALC = get_calculator("checkpoint-stall")


def test_worked_example() -> None:
    # 100 GB at 1 GB/s = 100 s blocked every 30 minutes (1,800 s) of training:
    # 100 / 1,900 = 0.052632 of the wall-clock, 24 h * 0.052632 = 1.263158 h a day.
    assert outputs_of(CALC, {}) == {
        "write_seconds": 100.0,
        "blocking_seconds": 100.0,
        "lost_fraction": 0.052632,
        "lost_hours_per_day": 1.263158,
        "timeout_share": 0.166667,  # 100 s of a 600 s collective timeout
        "outlasts_timeout": False,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # Async: only the copy, 100 GB / 16 GB/s = 6.25 s; 6.25 / 1,806.25 = 0.003460.
            {"mode": "async"},
            {"blocking_seconds": 6.25, "lost_fraction": 0.00346, "lost_hours_per_day": 0.083045},
            id="async",
        ),
        pytest.param(
            # Async with a save every minute: the 100 s write outlasts the 60 s of training,
            # so each save also waits 40 s: 6.25 + 40 = 46.25; 46.25 / 106.25 = 0.435294.
            {"mode": "async", "interval_minutes": 1},
            {"blocking_seconds": 46.25, "lost_fraction": 0.435294},
            id="async-backlog",
        ),
        pytest.param(
            # 500 GB at 10 GB/s every 10 minutes: 50 s; 50 / 650 = 0.076923.
            {"checkpoint_gb": 500, "write_gbps": 10, "interval_minutes": 10},
            {"write_seconds": 50.0, "blocking_seconds": 50.0, "lost_fraction": 0.076923},
            id="sync-fast-storage",
        ),
        pytest.param(
            # The copy bandwidth does not matter to a synchronous save.
            {"copy_gbps": 0.5},
            {"blocking_seconds": 100.0},
            id="sync-ignores-copy",
        ),
        pytest.param(
            # A 100 GB synchronous save at 0.1 GB/s blocks 1,000 s: past a 600 s timeout,
            # so ranks waiting in the next collective are ended by the watchdog.
            {"write_gbps": 0.1},
            {"blocking_seconds": 1000.0, "timeout_share": 1.666667, "outlasts_timeout": True},
            id="sync-save-outlasts-the-timeout",
        ),
        pytest.param(
            # Exactly the timeout does not outlast it; the watchdog fires only past it.
            {"timeout_s": 100},
            {"timeout_share": 1.0, "outlasts_timeout": False},
            id="save-equal-to-the-timeout",
        ),
        pytest.param(
            # The same slow storage saved asynchronously blocks for the copy only (6.25 s
            # plus the 1,000 s write's backlog beyond 30 minutes: none).
            {"write_gbps": 0.1, "mode": "async", "timeout_s": 1800},
            {"blocking_seconds": 6.25, "outlasts_timeout": False},
            id="async-stays-inside-the-timeout",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"checkpoint_gb": 0}, "checkpoint_gb", "must be at least 0.001", id="empty"),
        pytest.param({"write_gbps": 0}, "write_gbps", "must be at least 0.001", id="no-storage"),
        pytest.param(
            {"interval_minutes": 0}, "interval_minutes", "must be at least 0.01", id="no-training"
        ),
        pytest.param(
            {"mode": "lazy"}, "mode", "must be one of: sync, async (got 'lazy')", id="bad-mode"
        ),
        pytest.param({"timeout_s": 0}, "timeout_s", "must be at least 1", id="no-timeout"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


SAVES = st.fixed_dictionaries(
    {
        "checkpoint_gb": st.floats(0.001, 1_000_000),
        "write_gbps": st.floats(0.001, 100_000),
        "copy_gbps": st.floats(0.001, 100_000),
        "interval_minutes": st.floats(0.01, 10_080),
        "mode": st.sampled_from(["sync", "async"]),
    }
)


@settings(max_examples=100, deadline=None, database=None)
@given(SAVES, st.floats(1.0, 100.0))
def test_a_bigger_checkpoint_never_blocks_less(save: dict[str, object], factor: float) -> None:
    base = outputs_of(CALC, save)
    bigger = outputs_of(
        CALC, {**save, "checkpoint_gb": min(1_000_000.0, save["checkpoint_gb"] * factor)}
    )  # type: ignore[operator]
    assert 0.0 <= float(base["lost_fraction"]) <= 1.0  # type: ignore[arg-type]
    assert float(base["lost_hours_per_day"]) <= 24.0  # type: ignore[arg-type]
    assert float(bigger["blocking_seconds"]) >= float(base["blocking_seconds"])  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None, database=None)
@given(st.floats(0, 1e9), st.floats(0, 1e9), st.floats(0, 1e9))
def test_async_blocks_at_most_copy_plus_write(write: float, copy: float, interval: float) -> None:
    blocked = blocking_seconds("async", write, copy, interval)
    assert copy <= blocked <= copy + write
    assert blocking_seconds("sync", write, copy, interval) == write


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        pytest.param(
            "[rank2]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, "
            "NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds "
            "before timing out.",
            600.0,
            id="ten-minutes",
        ),
        pytest.param(
            "[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
            "Timeout(ms)=120000) ran for 120621 milliseconds before timing out.",
            120.0,
            id="two-minutes",
        ),
    ],
)
def test_the_watchdog_line_gives_the_timeout_in_seconds(line: str, seconds: float) -> None:
    found = CALC.read_inputs(line)
    assert {name: item.value for name, item in found.items()} == {"timeout_s": seconds}
