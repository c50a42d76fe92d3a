"""static-batch-latency: worked example, hand-computed cases, edge cases, ordering invariants."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator
from failref.domain.calculators.static_batch import nearest_rank

CALC = get_calculator("static-batch-latency")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # Longest 1024 tokens * 20 ms = 20480 ms for everyone under static batching.
    # Continuous: 640, 1280, 2560, 2560, 5120, 5120, 10240, 20480 ms.
    # p50 = ceil(0.5 * 8) = 4th = 2560; p99 = ceil(7.92) = 8th = 20480.
    # Mean length 2400 / 8 = 300 -> 6000 ms; mean wait 20480 - 6000 = 14480 ms.
    assert outputs() == {
        "static_latencies_ms": [20480.0] * 8,
        "continuous_latencies_ms": [
            640.0,
            1280.0,
            2560.0,
            2560.0,
            5120.0,
            5120.0,
            10240.0,
            20480.0,
        ],
        "static_p50_ms": 20480.0,
        "static_p99_ms": 20480.0,
        "continuous_p50_ms": 2560.0,
        "continuous_p99_ms": 20480.0,
        "static_mean_ms": 20480.0,
        "continuous_mean_ms": 6000.0,
        "mean_wait_ms": 14480.0,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # One request: both schedules give 10 * 5 = 50 ms, nobody waits.
            {"output_lengths": [10], "decode_ms_per_token": 5},
            {
                "static_latencies_ms": [50.0],
                "continuous_latencies_ms": [50.0],
                "static_p50_ms": 50.0,
                "continuous_p99_ms": 50.0,
                "mean_wait_ms": 0.0,
            },
            id="single-request",
        ),
        pytest.param(
            # From a form, order kept: static 400 each; continuous sorted 100, 200, 300, 400;
            # p50 = 2nd = 200, p99 = 4th = 400; mean 250, wait 150.
            {"output_lengths": "100, 300, 200, 400", "decode_ms_per_token": "1"},
            {
                "static_latencies_ms": [400.0] * 4,
                "continuous_latencies_ms": [100.0, 300.0, 200.0, 400.0],
                "continuous_p50_ms": 200.0,
                "continuous_p99_ms": 400.0,
                "continuous_mean_ms": 250.0,
                "mean_wait_ms": 150.0,
            },
            id="form-list",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, object]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("values", "percent", "expected"),
    [
        # 1..100: the p-th percentile is the p-th value exactly (integer ceil, no float error).
        pytest.param([float(v) for v in range(1, 101)], 99, 99.0, id="p99-of-100"),
        pytest.param([float(v) for v in range(1, 101)], 50, 50.0, id="p50-of-100"),
        pytest.param([float(v) for v in range(1, 201)], 99, 198.0, id="p99-of-200"),
        pytest.param([3.0, 1.0, 2.0], 50, 2.0, id="p50-of-3"),
        pytest.param([3.0, 1.0, 2.0], 0, 1.0, id="p0-is-min"),
    ],
)
def test_nearest_rank(values: list[float], percent: int, expected: float) -> None:
    assert nearest_rank(values, percent) == expected


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"output_lengths": []}, "output_lengths", "must not be empty", id="empty"),
        pytest.param(
            {"output_lengths": [5, 0]},
            "output_lengths",
            "item 2: must be at least 1",
            id="zero-length",
        ),
        pytest.param(
            {"output_lengths": "1, two, 3"},
            "output_lengths",
            "item 2: must be a number, not 'two'",
            id="text-item",
        ),
        pytest.param(
            {"output_lengths": [1] * 5000},
            "output_lengths",
            "must have at most 4096 items (got 5000)",
            id="too-many",
        ),
        pytest.param(
            {"decode_ms_per_token": 0},
            "decode_ms_per_token",
            "must be at least 0.001",
            id="zero-step",
        ),
        pytest.param(
            {"decode_ms_per_token": float("-inf")},
            "decode_ms_per_token",
            "must be a finite number",
            id="minus-inf",
        ),
        pytest.param(
            {"output_lengths": {"a": 1}},
            "output_lengths",
            "must be a list of numbers, not an object",
            id="wrong-type",
        ),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    lengths=st.lists(st.floats(1, 1e7), min_size=1, max_size=300),
    ms_per_token=st.floats(0.001, 1e6),
)
def test_continuous_never_slower_than_static(lengths: list[float], ms_per_token: float) -> None:
    result = outputs(output_lengths=lengths, decode_ms_per_token=ms_per_token)
    static = result["static_latencies_ms"]
    continuous = result["continuous_latencies_ms"]
    assert isinstance(static, list)
    assert isinstance(continuous, list)
    assert all(c <= s for c, s in zip(continuous, static, strict=True))
    assert result["continuous_p50_ms"] <= result["continuous_p99_ms"]  # type: ignore[operator]
    assert result["continuous_p99_ms"] <= result["static_p99_ms"]  # type: ignore[operator]
    assert result["mean_wait_ms"] >= 0.0  # type: ignore[operator]
