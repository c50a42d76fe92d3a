"""zero3-prefetch: worked example, hand-computed cases, edge cases, bandwidth monotonicity."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("zero3-prefetch")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # 3 * 7 * 2 GB * 63/64 = 41.34375 GB per rank; / 50 GB/s = 826.875 ms.
    # Overlapped: max(1500, 826.875) = 1500; synchronous: 2326.875; 2326.875/1500 = 1.55125.
    assert outputs() == {
        "comm_gb": 41.34375,
        "comm_ms": 826.875,
        "overlapped_step_ms": 1500.0,
        "synchronous_step_ms": 2326.875,
        "exposed_comm_ms": 0.0,
        "slowdown": 1.55125,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # 3 * 10 * 2 * 1/2 = 30 GB / 10 GB/s = 3000 ms > 1000 ms compute:
            # overlapped 3000, synchronous 4000, 2000 ms exposed even with prefetch.
            {
                "parameters_billion": 10,
                "bytes_per_param": 2,
                "dp_size": 2,
                "allgather_gbps": 10,
                "compute_ms": 1000,
            },
            {
                "comm_gb": 30.0,
                "comm_ms": 3000.0,
                "overlapped_step_ms": 3000.0,
                "synchronous_step_ms": 4000.0,
                "exposed_comm_ms": 2000.0,
                "slowdown": 4 / 3,
            },
            id="communication-bound",
        ),
        pytest.param(
            # One rank shards nothing: (1 - 1)/1 = 0 bytes, no slowdown.
            {"dp_size": "1"},
            {"comm_gb": 0.0, "comm_ms": 0.0, "synchronous_step_ms": 1500.0, "slowdown": 1.0},
            id="single-rank",
        ),
        pytest.param(
            # Communication exactly equal to compute: 3 * 1 * 4 * 3/4 = 9 GB / 9 GB/s = 1000 ms.
            {
                "parameters_billion": 1,
                "bytes_per_param": 4,
                "dp_size": 4,
                "allgather_gbps": 9,
                "compute_ms": 1000,
            },
            {"comm_ms": 1000.0, "overlapped_step_ms": 1000.0, "slowdown": 2.0},
            id="balanced",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param(
            {"allgather_gbps": 0}, "allgather_gbps", "must be at least 0.001", id="zero-bandwidth"
        ),
        pytest.param(
            {"parameters_billion": 0},
            "parameters_billion",
            "must be greater than 0",
            id="no-parameters",
        ),
        pytest.param({"dp_size": 0}, "dp_size", "must be at least 1", id="no-ranks"),
        pytest.param(
            {"bytes_per_param": 64}, "bytes_per_param", "must be at most 16", id="absurd-bytes"
        ),
        pytest.param({"compute_ms": "nan"}, "compute_ms", "must be a finite number", id="nan"),
        pytest.param({"dp_size": None}, "dp_size", "must be a number, not null", id="wrong-type"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    parameters=st.floats(0.001, 1e5),
    dp_size=st.integers(1, 1_000_000),
    bandwidths=st.lists(st.floats(0.001, 1e5), min_size=2, max_size=2),
    compute_ms=st.floats(0.001, 1e9),
)
def test_more_bandwidth_never_slower_and_overlap_never_hurts(
    parameters: float, dp_size: int, bandwidths: list[float], compute_ms: float
) -> None:
    low, high = sorted(bandwidths)
    common = {"parameters_billion": parameters, "dp_size": dp_size, "compute_ms": compute_ms}
    slow = outputs(**common, allgather_gbps=low)
    fast = outputs(**common, allgather_gbps=high)
    assert fast["synchronous_step_ms"] <= slow["synchronous_step_ms"]  # type: ignore[operator]
    assert fast["overlapped_step_ms"] <= slow["overlapped_step_ms"]  # type: ignore[operator]
    assert slow["overlapped_step_ms"] <= slow["synchronous_step_ms"]  # type: ignore[operator]
    assert 1.0 <= slow["slowdown"] <= 2.0  # type: ignore[operator]
