"""moe-load: worked example, hand-computed cases, edge cases, dropped tokens never negative."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("moe-load")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # 4096 tokens * top-2 = 8192 assignments over 64 experts: mean 128; hot = 10 * 128 = 1280;
    # capacity = 1.25 * 128 = 160; others = (8192 - 1280) / 63 = 109.71 (under capacity);
    # dropped = 1280 - 160 = 1120 = 13.67% of 8192; throughput without dropping = 1/10.
    assert outputs() == {
        "assignments": 8192,
        "mean_tokens_per_expert": 128.0,
        "hot_expert_tokens": 1280.0,
        "other_expert_tokens": 109.714286,
        "capacity_per_expert": 160.0,
        "dropped_tokens": 1120.0,
        "dropped_fraction": 0.136719,
        "relative_throughput": 0.1,
        "max_multiplier": 32.0,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # 8 experts top-2: mean = 8192 / 8 = 1024; the bound 8 / 2 = 4 means hot = all 4096
            # tokens; others = 4096 / 7 = 585.142857; capacity 1280; dropped = 4096 - 1280.
            {"experts": 8, "hot_expert_multiplier": 4},
            {
                "mean_tokens_per_expert": 1024.0,
                "hot_expert_tokens": 4096.0,
                "other_expert_tokens": 585.142857,
                "dropped_tokens": 2816.0,
                "relative_throughput": 0.25,
            },
            id="mixtral-shape-at-bound",
        ),
        pytest.param(
            # Top-1, 4 experts, 100 tokens: mean 25, hot 50, others 50/3; capacity 25 (cf 1);
            # dropped = 25 = 25% of 100.
            {
                "tokens": 100,
                "experts": 4,
                "top_k": 1,
                "capacity_factor": 1,
                "hot_expert_multiplier": 2,
            },
            {
                "hot_expert_tokens": 50.0,
                "other_expert_tokens": 16.666667,
                "capacity_per_expert": 25.0,
                "dropped_tokens": 25.0,
                "dropped_fraction": 0.25,
                "relative_throughput": 0.5,
            },
            id="switch-top1",
        ),
        pytest.param(
            # Uniform load but capacity factor 0.5: every expert gets 25, keeps 12.5.
            {
                "tokens": 100,
                "experts": 4,
                "top_k": 1,
                "capacity_factor": 0.5,
                "hot_expert_multiplier": 1,
            },
            {"dropped_tokens": 50.0, "dropped_fraction": 0.5, "relative_throughput": 1.0},
            id="uniform-low-capacity",
        ),
        pytest.param(
            # A single expert gets every token; with cf 1.25 nothing is dropped.
            {"tokens": 10, "experts": 1, "top_k": 1, "hot_expert_multiplier": 1},
            {"hot_expert_tokens": 10.0, "other_expert_tokens": 0.0, "dropped_tokens": 0.0},
            id="one-expert",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param(
            {"experts": 8},
            "hot_expert_multiplier",
            "must be at most Experts / Experts per token = 4: an expert receives each token at most once, "
            "so its load cannot exceed all tokens, which is 4 × the mean",
            id="impossible-multiplier",
        ),
        pytest.param(
            {"experts": 4, "top_k": 8}, "top_k", "must not exceed Experts (4)", id="k-above-e"
        ),
        pytest.param(
            {"hot_expert_multiplier": 0.5},
            "hot_expert_multiplier",
            "must be at least 1",
            id="below-mean",
        ),
        pytest.param(
            {"capacity_factor": 0}, "capacity_factor", "must be at least 0.01", id="zero-capacity"
        ),
        pytest.param({"tokens": -5}, "tokens", "must be at least 1", id="negative-tokens"),
        pytest.param({"experts": 10**9}, "experts", "must be at most 100000", id="absurd"),
        pytest.param({"top_k": True}, "top_k", "must be a number, not a boolean", id="bool"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    tokens=st.integers(1, 1_000_000_000),
    experts=st.integers(1, 100_000),
    top_k=st.integers(1, 64),
    capacity_factor=st.floats(0.01, 100),
    share=st.floats(0, 1),
)
def test_dropped_tokens_never_negative(
    tokens: int, experts: int, top_k: int, capacity_factor: float, share: float
) -> None:
    assume(top_k <= experts)
    multiplier = 1 + share * (experts / top_k - 1)
    result = outputs(
        tokens=tokens,
        experts=experts,
        top_k=top_k,
        capacity_factor=capacity_factor,
        hot_expert_multiplier=multiplier,
    )
    dropped = result["dropped_tokens"]
    throughput = result["relative_throughput"]
    assert isinstance(dropped, float)
    assert isinstance(throughput, float)
    assert 0.0 <= dropped <= tokens * top_k * (1 + 1e-9)
    assert 0.0 < throughput <= 1.0
    assert result["hot_expert_tokens"] <= tokens + 1e-6  # type: ignore[operator]
