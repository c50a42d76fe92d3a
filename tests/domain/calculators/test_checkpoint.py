"""checkpoint-interval: Llama 3 example, hand-computed cases, edge cases, Young's optimum."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator
from failref.domain.calculators.checkpoint import lost_fraction, young_interval

CALC = get_calculator("checkpoint-interval")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # Llama 3: 419 interruptions in 54 days -> MTBF = 1296 / 419 = 3.093079 h = 185.5847 min.
    # Young: sqrt(2 * 1 * 185.5847) = 19.265759 min.
    # Lost: 1 / 19.265759 + (9.632880 + 10) / 185.5847 = 0.051906 + 0.105788 = 0.157695.
    # Over 54 days: 1296 h * 0.157695 = 204.37 h, times 16,384 GPUs.
    assert outputs() == {
        "mtbf_hours": 3.093079,
        "interruptions_per_day": 7.759259,
        "gpu_mtbf_hours": 50677.002387,
        "optimal_interval_minutes": 19.265759,
        "expected_lost_fraction": 0.157695,
        "lost_hours": 204.372547,
        "lost_gpu_hours": 3348439.809193,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # MTBF 24 h = 1440 min, checkpoint 12 min: interval = sqrt(34560) = 185.903200;
            # at the optimum both loss terms equal sqrt(12 / 2880) = 0.064550; sum 0.129099.
            {"mtbf_hours": 24, "checkpoint_minutes": 12, "restart_minutes": 0},
            {
                "mtbf_hours": 24.0,
                "interruptions_per_day": 1.0,
                "optimal_interval_minutes": 185.9032,
                "expected_lost_fraction": 0.129099,
            },
            id="direct-mtbf",
        ),
        pytest.param(
            # MTBF 2 h = 120 min, checkpoint 60: interval = sqrt(14400) = 120;
            # 60/120 + (60 + 60)/120 = 1.5, capped at 1: the job makes no progress.
            {"mtbf_hours": 2, "checkpoint_minutes": 60, "restart_minutes": 60, "days": 1},
            {"optimal_interval_minutes": 120.0, "expected_lost_fraction": 1.0, "lost_hours": 24.0},
            id="capped-at-one",
        ),
        pytest.param(
            # 240 interruptions in 10 days = one an hour; per GPU 100 h with 100 GPUs.
            # interval = sqrt(2 * 0.5 * 60) = 7.745967; lost = 0.5/7.745967 + 3.872983/60.
            {
                "gpus": 100,
                "interruptions": 240,
                "days": "10",
                "checkpoint_minutes": 0.5,
                "restart_minutes": 0,
            },
            {
                "mtbf_hours": 1.0,
                "interruptions_per_day": 24.0,
                "gpu_mtbf_hours": 100.0,
                "optimal_interval_minutes": 7.745967,
                "expected_lost_fraction": 0.129099,
            },
            id="derived-hourly",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param(
            {"interruptions": 0}, "interruptions", "must be at least 1", id="no-interruptions"
        ),
        pytest.param({"days": 0}, "days", "must be at least 0.01", id="zero-days"),
        pytest.param(
            {"mtbf_hours": 0.001},
            "mtbf_hours",
            "must be at least 0.01, or be left empty",
            id="tiny-mtbf",
        ),
        pytest.param(
            {"mtbf_hours": 0},
            "mtbf_hours",
            "must be at least 0.01, or be left empty",
            id="zero-is-no-longer-derive",
        ),
        pytest.param(
            {"checkpoint_minutes": 0},
            "checkpoint_minutes",
            "must be at least 0.01",
            id="free-checkpoint",
        ),
        pytest.param(
            {"restart_minutes": -1}, "restart_minutes", "must be at least 0", id="negative"
        ),
        pytest.param({"gpus": 1e9}, "gpus", "must be at most 10000000", id="absurd-gpus"),
        pytest.param({"days": "NaN"}, "days", "must be a finite number", id="nan"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    checkpoint=st.floats(0.01, 10_080),
    restart=st.floats(0, 10_080),
    mtbf_minutes=st.floats(0.6, 6e7),
    scale=st.floats(0.05, 20),
)
def test_young_interval_minimises_the_first_order_loss(
    checkpoint: float, restart: float, mtbf_minutes: float, scale: float
) -> None:
    best = young_interval(checkpoint, mtbf_minutes)
    at_best = lost_fraction(checkpoint, best, restart, mtbf_minutes)
    elsewhere = lost_fraction(checkpoint, best * scale, restart, mtbf_minutes)
    assert 0.0 <= at_best <= 1.0
    assert at_best <= elsewhere + 1e-12


@pytest.mark.parametrize(
    "left_empty", [pytest.param(None, id="json-null"), pytest.param("", id="empty-field")]
)
def test_an_empty_direct_mtbf_is_derived_from_the_interruptions(left_empty: object) -> None:
    assert outputs_of(CALC, {"mtbf_hours": left_empty})["mtbf_hours"] == 3.093079
