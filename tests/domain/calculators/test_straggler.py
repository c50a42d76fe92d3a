"""straggler: worked example, hand-computed cases, edge cases, a straggler never helps."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator
from failref.domain.calculators.extract import Found

CALC = get_calculator("straggler")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # normal = 300 + 100 = 400 ms; straggler = 300 * 1.5 + 100 = 550 ms; 550/400 = 1.375;
    # lost = 1024 ranks * 150 ms * 1000 steps / 3.6e6 = 42.666667 GPU-hours.
    assert outputs() == {
        "normal_step_ms": 400.0,
        "straggler_step_ms": 550.0,
        "added_ms_per_step": 150.0,
        "slowdown": 1.375,
        "efficiency": 0.727273,
        "lost_gpu_hours": 42.666667,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # 100 ms -> 200 ms; 8 * 100 ms * 3600 steps / 3.6e6 = 0.8 GPU-hours.
            {"ranks": 8, "compute_ms": 100, "comm_ms": 0, "slow_factor": 2, "steps": 3600},
            {
                "normal_step_ms": 100.0,
                "straggler_step_ms": 200.0,
                "slowdown": 2.0,
                "efficiency": 0.5,
                "lost_gpu_hours": 0.8,
            },
            id="half-speed",
        ),
        pytest.param(
            # slow_factor 1: no straggler, nothing lost.
            {"slow_factor": "1"},
            {"added_ms_per_step": 0.0, "slowdown": 1.0, "lost_gpu_hours": 0.0},
            id="no-straggler",
        ),
        pytest.param(
            # Communication dilutes the slowdown: 10 * 1.1 + 90 = 101 vs 100.
            {"compute_ms": 10, "comm_ms": 90, "slow_factor": 1.1, "ranks": 1, "steps": 36000},
            {"straggler_step_ms": 101.0, "slowdown": 1.01, "lost_gpu_hours": 0.01},
            id="comm-heavy",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"compute_ms": 0}, "compute_ms", "must be at least 0.001", id="no-compute"),
        pytest.param({"comm_ms": -1}, "comm_ms", "must be at least 0", id="negative-comm"),
        pytest.param({"slow_factor": 0.5}, "slow_factor", "must be at least 1", id="faster"),
        pytest.param({"ranks": 0}, "ranks", "must be at least 1", id="no-ranks"),
        pytest.param({"steps": 1e10}, "steps", "must be at most 1000000000", id="absurd-steps"),
        pytest.param({"compute_ms": "inf"}, "compute_ms", "must be a finite number", id="inf"),
        pytest.param({"ranks": [8]}, "ranks", "must be a number, not a list", id="wrong-type"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    compute_ms=st.floats(0.001, 1e9),
    comm_ms=st.floats(0, 1e9),
    factors=st.lists(st.floats(1, 1000), min_size=2, max_size=2),
)
def test_a_slower_straggler_never_helps(
    compute_ms: float, comm_ms: float, factors: list[float]
) -> None:
    mild, severe = sorted(factors)
    common = {"compute_ms": compute_ms, "comm_ms": comm_ms}
    a = outputs(**common, slow_factor=mild)
    b = outputs(**common, slow_factor=severe)
    assert a["straggler_step_ms"] >= a["normal_step_ms"]  # type: ignore[operator]
    assert b["straggler_step_ms"] >= a["straggler_step_ms"]  # type: ignore[operator]
    assert 0.0 < b["efficiency"] <= a["efficiency"] <= 1.0  # type: ignore[operator]
    assert a["lost_gpu_hours"] >= 0.0  # type: ignore[operator]


MEGATRON_REPORT = (
    " 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: "
    "3468.20ms/0 | MnPwr/Rnk: 601796W/8 | MxPwr/Rnk: 683801W/18"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            # 3468.20 / 3453.08 = 1.004379: the slowest rank (0) over the fastest (8).
            MEGATRON_REPORT,
            {"slow_factor": Found(1.004379, 1)},
            id="megatron-report",
        ),
        pytest.param(
            # The same rank holds both: one rank's time, no ratio between ranks.
            "| MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/8 | MnPwr/Rnk: 601796W/8",
            {},
            id="one-rank-fills-nothing",
        ),
        pytest.param(
            # Rank 8 against rank 81 is two ranks, not the same one.
            "| MnRtt/Rnk: 1000.00ms/8 | MxRtt/Rnk: 1500.00ms/81 |",
            {"slow_factor": Found(1.5, 1)},
            id="rank-prefix-is-not-the-same-rank",
        ),
        pytest.param(
            # Megatron's per-iteration line is one rank's step time: nothing to compare.
            " iteration       71/     100 | consumed samples:         9088 | elapsed time per "
            "iteration (ms): 5361.6 |",
            {},
            id="iteration-time-fills-nothing",
        ),
    ],
)
def test_a_straggler_report_gives_the_slowdown(text: str, expected: dict[str, Found]) -> None:
    assert CALC.read_inputs(text) == expected
