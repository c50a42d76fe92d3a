"""input-pipeline: worked example, hand-computed cases, edge cases, utilisation in [0, 1]."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("input-pipeline")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # min(8 workers, 12 cores) * 150 = 1200 samples/s against 2000: at most 60% busy;
    # ceil(2000 / 150) = ceil(13.33) = 14 workers (and cores) needed.
    assert outputs() == {
        "effective_workers": 8,
        "loader_samples_per_s": 1200.0,
        "max_gpu_utilization": 0.6,
        "data_stall_fraction": 0.4,
        "workers_needed": 14,
        "cores_needed": 14,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # 16 workers on 4 cores run 4 at a time: 4 * 100 = 400 >= 300, GPU never waits;
            # ceil(300 / 100) = 3 workers would do.
            {
                "gpu_samples_per_s": 300,
                "worker_samples_per_s": 100,
                "workers_per_gpu": 16,
                "cores_per_gpu": 4,
            },
            {
                "effective_workers": 4,
                "loader_samples_per_s": 400.0,
                "max_gpu_utilization": 1.0,
                "data_stall_fraction": 0.0,
                "workers_needed": 3,
            },
            id="oversubscribed-but-enough",
        ),
        pytest.param(
            # 2 * 250 = 500 of 1000: half; exactly 1000 / 250 = 4 workers needed (no rounding up).
            {
                "gpu_samples_per_s": "1000",
                "worker_samples_per_s": "250",
                "workers_per_gpu": "2",
                "cores_per_gpu": "8",
            },
            {"max_gpu_utilization": 0.5, "workers_needed": 4, "cores_needed": 4},
            id="exact-multiple",
        ),
        pytest.param(
            # More workers than cores adds nothing: 32 workers on 6 cores = 6 * 150 = 900.
            {"workers_per_gpu": 32, "cores_per_gpu": 6},
            {"effective_workers": 6, "loader_samples_per_s": 900.0, "max_gpu_utilization": 0.45},
            id="core-limited",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param(
            {"gpu_samples_per_s": 0}, "gpu_samples_per_s", "must be at least 0.001", id="idle-gpu"
        ),
        pytest.param(
            {"worker_samples_per_s": -5},
            "worker_samples_per_s",
            "must be at least 0.001",
            id="negative-rate",
        ),
        pytest.param({"workers_per_gpu": 0}, "workers_per_gpu", "must be at least 1", id="none"),
        pytest.param(
            {"cores_per_gpu": 5000}, "cores_per_gpu", "must be at most 4096", id="absurd-cores"
        ),
        pytest.param(
            {"worker_samples_per_s": "fast"},
            "worker_samples_per_s",
            "must be a number, not 'fast'",
            id="text",
        ),
        pytest.param(
            {"gpu_samples_per_s": float("nan")},
            "gpu_samples_per_s",
            "must be a finite number",
            id="nan",
        ),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    gpu=st.floats(0.001, 1e9),
    worker=st.floats(0.001, 1e9),
    workers=st.integers(1, 4096),
    cores=st.integers(1, 4096),
)
def test_utilization_within_bounds_and_enough_workers_suffice(
    gpu: float, worker: float, workers: int, cores: int
) -> None:
    result = outputs(
        gpu_samples_per_s=gpu,
        worker_samples_per_s=worker,
        workers_per_gpu=workers,
        cores_per_gpu=cores,
    )
    utilization = result["max_gpu_utilization"]
    assert isinstance(utilization, float)
    assert 0.0 <= utilization <= 1.0
    needed = result["workers_needed"]
    assert isinstance(needed, int)
    if needed <= 4096:
        fed = outputs(
            gpu_samples_per_s=gpu,
            worker_samples_per_s=worker,
            workers_per_gpu=needed,
            cores_per_gpu=needed,
        )
        assert fed["max_gpu_utilization"] == pytest.approx(1.0, abs=1e-6)
