"""pipeline-bubble: worked example, hand-computed cases, edge cases, efficiency bounds."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("pipeline-bubble")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # p = 8, Σ = 7 * 200 + 400 = 1800, max = 400, m = 32.
    # step = 31 * 400 + 1800 = 14200 ms; efficiency = 32 * 1800 / (8 * 14200) = 0.507042;
    # balanced = 32 / 39 = 0.820513; balanced step = 39 * 225 = 8775 ms.
    assert outputs() == {
        "stages": 8,
        "step_ms": 14200.0,
        "balanced_step_ms": 8775.0,
        "efficiency": 0.507042,
        "balanced_efficiency": 0.820513,
        "bubble_fraction": 0.492958,
        "imbalance_loss": 0.313471,
        "slowest_stage": 4,
        "slowest_stage_ms": 400.0,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # Balanced: step = 3 * 100 + 400 = 700; efficiency = 4 * 400 / (4 * 700) = 4/7.
            {"stage_ms": [100, 100, 100, 100], "microbatches": 4},
            {"step_ms": 700.0, "efficiency": 4 / 7, "balanced_efficiency": 4 / 7},
            id="balanced",
        ),
        pytest.param(
            # One stage: step = 9 * 50 + 50 = 500 = m * stage, no bubble at all.
            {"stage_ms": [50], "microbatches": 10},
            {"step_ms": 500.0, "efficiency": 1.0, "bubble_fraction": 0.0, "slowest_stage": 1},
            id="single-stage",
        ),
        pytest.param(
            # step = 2 * 300 + 400 = 1000; efficiency = 3 * 400 / (2 * 1000) = 0.6;
            # balanced = 3 / 4; balanced step = 4 * 200 = 800.
            {"stage_ms": [100, 300], "microbatches": 3},
            {
                "step_ms": 1000.0,
                "efficiency": 0.6,
                "balanced_efficiency": 0.75,
                "balanced_step_ms": 800.0,
                "imbalance_loss": 0.15,
                "slowest_stage": 2,
            },
            id="two-stages",
        ),
        pytest.param(
            # From a form: step = 1 * 400 + 800 = 1200; efficiency = 2 * 800 / (3 * 1200).
            {"stage_ms": "200, 400, 200", "microbatches": "2"},
            {"step_ms": 1200.0, "efficiency": 4 / 9, "slowest_stage": 2},
            id="form-strings",
        ),
        pytest.param(
            # Ties report the first slowest stage.
            {"stage_ms": [300, 100, 300], "microbatches": 1},
            {"step_ms": 700.0, "slowest_stage": 1},
            id="tie",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"stage_ms": []}, "stage_ms", "must not be empty", id="empty-list"),
        pytest.param({"stage_ms": ""}, "stage_ms", "must not be empty", id="empty-form"),
        pytest.param(
            {"microbatches": 100_001},
            "microbatches",
            "must be at most 100000",
            id="too-many-microbatches",
        ),
        pytest.param({"microbatches": 0}, "microbatches", "must be at least 1", id="zero-m"),
        pytest.param(
            {"stage_ms": [200, -5]}, "stage_ms", "item 2: must be at least 0.001", id="negative"
        ),
        pytest.param(
            {"stage_ms": [200, 0]}, "stage_ms", "item 2: must be at least 0.001", id="zero"
        ),
        pytest.param(
            {"stage_ms": [float("nan")]}, "stage_ms", "item 1: must be a finite number", id="nan"
        ),
        pytest.param(
            {"stage_ms": [1e12]}, "stage_ms", "item 1: must be at most 1000000000", id="absurd"
        ),
        pytest.param(
            {"stage_ms": [1.0] * 4097},
            "stage_ms",
            "must have at most 4096 items (got 4097)",
            id="too-many-stages",
        ),
        pytest.param(
            {"stage_ms": 200}, "stage_ms", "must be a list of numbers, not int", id="not-a-list"
        ),
        pytest.param(
            {"microbatches": "many"}, "microbatches", "must be a number, not 'many'", id="text"
        ),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    stage_ms=st.lists(st.floats(0.001, 1e9), min_size=1, max_size=64),
    microbatches=st.integers(1, 100_000),
)
def test_efficiency_never_above_balanced_or_one(stage_ms: list[float], microbatches: int) -> None:
    result = outputs(stage_ms=stage_ms, microbatches=microbatches)
    efficiency = result["efficiency"]
    balanced = result["balanced_efficiency"]
    assert isinstance(efficiency, float)
    assert isinstance(balanced, float)
    assert 0.0 < efficiency <= balanced + 1e-6
    assert balanced <= 1.0
    assert result["bubble_fraction"] == pytest.approx(1 - efficiency, abs=2e-6)
    assert result["step_ms"] >= result["balanced_step_ms"] * (1 - 1e-9)  # type: ignore[operator]
