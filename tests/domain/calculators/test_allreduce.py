"""allreduce-slow-link: worked example, hand-computed cases, edge cases, monotonicity."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("allreduce-slow-link")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # 140 GB / 50 GB/s = 2.8 s; / 25 GB/s = 5.6 s; 2.8 s x 1000 = 2800 s = 46.67 min.
    result = CALC.run({})
    assert result.inputs == {
        "gradient_gb": 140.0,
        "workers": 256,
        "baseline_gbps": 50.0,
        "slow_gbps": 25.0,
        "steps": 1000,
        "algorithm": "effective",
    }
    assert result.outputs == {
        "bus_factor": 1.0,
        "baseline_step_s": 2.8,
        "slow_step_s": 5.6,
        "added_per_step_s": 2.8,
        "slowdown": 2.0,
        "wasted_total_s": 2800.0,
        "wasted_total_minutes": 46.666667,
        "wasted_gpu_hours": 199.111111,  # 2800 s x 256 / 3600
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # factor = 2 * 255 / 256 = 1.9921875; 140 * 1.9921875 / 50 = 5.578125 s;
            # at 25 GB/s twice that, 11.15625 s; added 5.578125 s x 1000 steps.
            {"algorithm": "ring"},
            {
                "bus_factor": 1.9921875,
                "baseline_step_s": 5.578125,
                "slow_step_s": 11.15625,
                "added_per_step_s": 5.578125,
                "wasted_total_s": 5578.125,
            },
            id="ring-256",
        ),
        pytest.param(
            # 10 GB / 100 GB/s = 0.1 s, / 10 GB/s = 1 s; added 0.9 s x 60 = 54 s = 0.9 min;
            # 54 s x 8 workers / 3600 = 0.12 GPU-hours.
            {
                "gradient_gb": 10,
                "workers": 8,
                "baseline_gbps": 100,
                "slow_gbps": 10,
                "steps": 60,
            },
            {
                "baseline_step_s": 0.1,
                "slow_step_s": 1.0,
                "added_per_step_s": 0.9,
                "slowdown": 10.0,
                "wasted_total_s": 54.0,
                "wasted_total_minutes": 0.9,
                "wasted_gpu_hours": 0.12,
            },
            id="effective-small",
        ),
        pytest.param(
            # Ring with 2 workers: factor 2 * 1 / 2 = 1; 10 GB / 10 GB/s = 1 s, equal links.
            {
                "gradient_gb": "10",
                "workers": "2",
                "baseline_gbps": "10",
                "slow_gbps": "10",
                "algorithm": "ring",
            },
            {"bus_factor": 1.0, "baseline_step_s": 1.0, "added_per_step_s": 0.0, "slowdown": 1.0},
            id="ring-2-form-strings",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"gradient_gb": -1}, "gradient_gb", "must be greater than 0", id="negative"),
        pytest.param({"gradient_gb": 0}, "gradient_gb", "must be greater than 0", id="zero-size"),
        pytest.param(
            {"baseline_gbps": 0}, "baseline_gbps", "must be at least 0.001", id="zero-bandwidth"
        ),
        pytest.param({"slow_gbps": 0}, "slow_gbps", "must be at least 0.001", id="zero-slow"),
        pytest.param(
            {"slow_gbps": 60},
            "slow_gbps",
            "must not exceed Healthy bandwidth (50 GB/s): the slow link is the slower one",
            id="slow-faster-than-baseline",
        ),
        pytest.param(
            {"gradient_gb": 2e6}, "gradient_gb", "must be at most 1000000", id="absurd-size"
        ),
        pytest.param({"workers": 1}, "workers", "must be at least 2", id="one-worker"),
        pytest.param({"workers": 2e6}, "workers", "must be at most 1000000", id="absurd-workers"),
        pytest.param({"steps": 1.5}, "steps", "must be a whole number", id="fractional-steps"),
        pytest.param({"gradient_gb": "nan"}, "gradient_gb", "must be a finite number", id="nan"),
        pytest.param(
            {"gradient_gb": [140]}, "gradient_gb", "must be a number, not a list", id="wrong-type"
        ),
        pytest.param(
            {"algorithm": "tree"},
            "algorithm",
            "must be one of: effective, ring (got 'tree')",
            id="unknown-algorithm",
        ),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    gradient_gb=st.floats(0.001, 1e6),
    workers=st.integers(2, 1_000_000),
    bandwidths=st.lists(st.floats(0.001, 1e5), min_size=3, max_size=3),
    algorithm=st.sampled_from(["effective", "ring"]),
)
def test_more_bandwidth_is_never_slower(
    gradient_gb: float, workers: int, bandwidths: list[float], algorithm: str
) -> None:
    slower, faster, baseline = sorted(bandwidths)
    common = {"gradient_gb": gradient_gb, "workers": workers, "algorithm": algorithm}
    slow = outputs(**common, baseline_gbps=baseline, slow_gbps=slower)
    fast = outputs(**common, baseline_gbps=baseline, slow_gbps=faster)
    assert slow["slow_step_s"] >= fast["slow_step_s"]  # type: ignore[operator]
    assert fast["added_per_step_s"] >= 0  # type: ignore[operator]
    assert slow["wasted_total_s"] >= fast["wasted_total_s"]  # type: ignore[operator]
