"""straggler: worked example, hand-computed cases, edge cases, a straggler never helps."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.calculators import get_calculator

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
