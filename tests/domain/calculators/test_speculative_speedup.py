"""speculative-speedup: worked example, the paper's own figures, α = 1, the break-even."""

from __future__ import annotations

import math

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator
from failref.domain.calculators.speculative_speedup import (
    break_even_alpha,
    expected_tokens,
    speedup,
)

CALC = get_calculator("speculative-speedup")


def test_worked_example() -> None:
    # α 0.1, γ 5: 1 + 0.1 + 0.01 + 0.001 + 0.0001 + 0.00001 = 1.11111 tokens per step;
    # cost 5 * 0.05 + 1 = 1.25 target steps, so 1.11111 / 1.25 = 0.888888 (11% slower).
    # Break-even: 1 + α + ... + α^5 = 1.25 at α = 0.200051; (1.11111 - 1) / 5 = 0.022222.
    assert outputs_of(CALC, {}) == {
        "tokens_per_step": 1.11111,
        "speedup": 0.888888,
        "break_even_acceptance": 0.200051,
        "engine_acceptance_rate": 0.022222,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # The paper's bigram draft for T5-XXL: α 0.2, γ 3, c 0 gives its 1.25X.
        pytest.param(
            {"acceptance": 0.2, "draft_tokens": 3, "cost_ratio": 0},
            {"tokens_per_step": 1.248, "speedup": 1.248, "break_even_acceptance": 0.0},
            id="bigram",
        ),
        # Table 1 (c = 0): α 0.6 γ 2 -> 1.96X, α 0.8 γ 5 -> 3.69X, α 0.9 γ 10 -> 6.86X.
        pytest.param(
            {"acceptance": 0.6, "draft_tokens": 2, "cost_ratio": 0}, {"speedup": 1.96}, id="t1-0.6"
        ),
        pytest.param(
            {"acceptance": 0.8, "draft_tokens": 5, "cost_ratio": 0},
            {"speedup": 3.68928},
            id="t1-0.8",
        ),
        pytest.param(
            {"acceptance": 0.9, "draft_tokens": 10, "cost_ratio": 0},
            {"speedup": 6.861894},
            id="t1-0.9",
        ),
        # α = 1: every draft kept, γ + 1 = 6 tokens; 6 / 1.25 = 4.8.
        pytest.param(
            {"acceptance": 1},
            {"tokens_per_step": 6.0, "speedup": 4.8, "engine_acceptance_rate": 1.0},
            id="perfect",
        ),
        # α = 0: only the target's own token; 1 / 1.25 = 0.8.
        pytest.param({"acceptance": 0}, {"tokens_per_step": 1.0, "speedup": 0.8}, id="useless"),
        # A draft as slow as the target: even α = 1 only breaks even.
        pytest.param({"cost_ratio": 1}, {"break_even_acceptance": 1.0}, id="no-break-even"),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, float]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param({"acceptance": 1.5}, "acceptance", "must be at most 1", id="alpha>1"),
        pytest.param({"draft_tokens": 0}, "draft_tokens", "must be at least 1", id="no-draft"),
        pytest.param({"draft_tokens": 2.5}, "draft_tokens", "must be a whole number", id="half"),
        pytest.param({"cost_ratio": -0.1}, "cost_ratio", "must be at least 0", id="negative"),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


ALPHAS = st.floats(0.0, 1.0)
GAMMAS = st.integers(1, 64)
COSTS = st.floats(0.0, 10.0)


@settings(max_examples=200, deadline=None, database=None)
@given(ALPHAS, GAMMAS)
def test_the_sum_is_the_closed_form(alpha: float, gamma: int) -> None:
    tokens = expected_tokens(alpha, gamma)
    assert 1.0 <= tokens <= gamma + 1
    if alpha < 0.999:
        assert tokens == pytest.approx((1 - alpha ** (gamma + 1)) / (1 - alpha), rel=1e-9)


@settings(max_examples=200, deadline=None, database=None)
@given(ALPHAS, ALPHAS, GAMMAS, COSTS)
def test_more_acceptance_is_never_slower(a: float, b: float, gamma: int, cost: float) -> None:
    low, high = sorted((a, b))
    assert speedup(low, gamma, cost) <= speedup(high, gamma, cost)
    assert math.isfinite(speedup(high, gamma, cost))


@settings(max_examples=200, deadline=None, database=None)
@given(GAMMAS, st.floats(0.0, 0.99))
def test_the_break_even_alpha_breaks_even(gamma: int, cost: float) -> None:
    alpha = break_even_alpha(gamma, cost)
    assert 0.0 <= alpha < 1.0
    assert speedup(alpha, gamma, cost) == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=100, deadline=None, database=None)
@given(st.floats(0.0, 0.99))
def test_one_drafted_token_breaks_even_at_alpha_equal_to_c(cost: float) -> None:
    # Corollary 3.9: with γ = 1 the speed-up is (1 + α) / (1 + c).
    assert break_even_alpha(1, cost) == pytest.approx(cost, abs=1e-12)


@settings(max_examples=200, deadline=None, database=None)
@given(ALPHAS, GAMMAS, COSTS)
def test_slower_exactly_when_accepted_per_drafted_is_below_c(
    alpha: float, gamma: int, cost: float
) -> None:
    # tokens / (1 + γc) < 1  <=>  (tokens - 1) / γ < c: the engine's ratio against c.
    rate = (expected_tokens(alpha, gamma) - 1) / gamma
    if abs(rate - cost) > 1e-9:
        assert (speedup(alpha, gamma, cost) < 1) == (rate < cost)
