"""matmul-time: worked example, hand-computed cases, refused inputs, monotonicity."""

from __future__ import annotations

import math

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("matmul-time")
PRECISIONS = ("fp32_step_s", "tf32_step_s", "bf16_step_s")


def test_worked_example() -> None:
    # 6 * 1e9 * 32,768 = 1.96608e14 FLOPs = 196.608 TFLOP per GPU per step.
    # Half of the A100 SXM dense peaks: 196.608 / 9.75 = 20.164923 s (fp32),
    # / 78 = 2.520615 s (TF32), / 156 = 1.260308 s (bf16); 156 / 19.5 = 8x, 312 / 19.5 = 16x.
    assert outputs_of(CALC, {}) == {
        "step_tflop": 196.608,
        "fp32_step_s": 20.164923,
        "tf32_step_s": 2.520615,
        "bf16_step_s": 1.260308,
        "tf32_speedup": 8.0,
        "bf16_speedup": 16.0,
        "tf32_saved_s": 17.644308,
        "bf16_saved_s": 18.904615,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # At full peak: 196.608 / 19.5 = 10.082462 s, / 156 = 1.260308 s, / 312 = 0.630154 s.
        pytest.param(
            {"achieved_fraction": 1.0},
            {"fp32_step_s": 10.082462, "tf32_step_s": 1.260308, "bf16_step_s": 0.630154},
            id="full-peak",
        ),
        # The sparse TF32 figure (312) typed in by mistake doubles the TF32 speed-up to 16x
        # and halves its time: 196.608 / 156 = 1.260308 s.
        pytest.param(
            {"tf32_tflops": 312},
            {"tf32_step_s": 1.260308, "tf32_speedup": 16.0},
            id="sparse-figure-mistake",
        ),
        # H100 SXM dense peaks 66.9 / 494.7 / 989.4: 196.608 / 33.45 = 5.877668 s,
        # / 247.35 = 0.794857 s, / 494.7 = 0.397429 s; 494.7 / 66.9 = 7.394619x,
        # 989.4 / 66.9 = 14.789238x.
        pytest.param(
            {"fp32_tflops": 66.9, "tf32_tflops": 494.7, "bf16_tflops": 989.4},
            {
                "fp32_step_s": 5.877668,
                "tf32_step_s": 0.794857,
                "bf16_step_s": 0.397429,
                "tf32_speedup": 7.394619,
                "bf16_speedup": 14.789238,
            },
            id="h100",
        ),
        # 7B parameters, 4,096 tokens: 6 * 7e9 * 4,096 = 1.72032e14 = 172.032 TFLOP;
        # / 9.75 = 17.644308 s in fp32, / 156 = 1.102769 s in bf16.
        pytest.param(
            {"parameters_b": 7, "tokens_per_step": 4096},
            {"step_tflop": 172.032, "fp32_step_s": 17.644308, "bf16_step_s": 1.102769},
            id="7b-one-sequence",
        ),
    ],
)
def test_hand_computed_cases(inputs: dict[str, object], expected: dict[str, object]) -> None:
    assert_outputs_close(CALC, inputs, expected)


def test_refused_inputs_name_their_field() -> None:
    assert_refused(CALC, {"achieved_fraction": 0}, "achieved_fraction", "must be at least 0.001")
    assert_refused(CALC, {"achieved_fraction": 1.5}, "achieved_fraction", "must be at most 1")
    assert_refused(CALC, {"parameters_b": 0}, "parameters_b", "must be greater than 0")
    assert_refused(CALC, {"tokens_per_step": 2.5}, "tokens_per_step", "must be a whole number")


RUNS = st.fixed_dictionaries(
    {
        "parameters_b": st.floats(0.001, 2000.0),
        "tokens_per_step": st.integers(1, 10_000_000),
        "fp32_tflops": st.floats(1.0, 100.0),
        "tf32_tflops": st.floats(1.0, 1000.0),
        "bf16_tflops": st.floats(1.0, 2000.0),
        "achieved_fraction": st.floats(0.01, 1.0),
    }
)


def _float(value: object) -> float:
    assert isinstance(value, float)
    assert math.isfinite(value)
    return value


@settings(max_examples=60, deadline=None)
@given(RUNS, st.integers(2, 8))
def test_more_tokens_never_take_less_time(run: dict[str, object], factor: int) -> None:
    base = outputs_of(CALC, run)
    longer = outputs_of(CALC, {**run, "tokens_per_step": int(run["tokens_per_step"]) * factor})  # type: ignore[call-overload]
    for name in PRECISIONS:
        assert _float(longer[name]) >= _float(base[name])


@settings(max_examples=60, deadline=None)
@given(RUNS)
def test_a_higher_fraction_never_takes_longer_and_speedups_ignore_it(
    run: dict[str, object],
) -> None:
    base = outputs_of(CALC, run)
    faster = outputs_of(CALC, {**run, "achieved_fraction": 1.0})
    for name in PRECISIONS:
        assert _float(faster[name]) <= _float(base[name])
    for name in ("tf32_speedup", "bf16_speedup"):
        assert faster[name] == base[name]


@settings(max_examples=60, deadline=None)
@given(RUNS)
def test_a_faster_peak_saves_time(run: dict[str, object]) -> None:
    outputs = outputs_of(CALC, run)
    if float(run["tf32_tflops"]) >= float(run["fp32_tflops"]):  # type: ignore[arg-type]
        assert _float(outputs["tf32_saved_s"]) >= 0.0
        assert _float(outputs["tf32_speedup"]) >= 1.0
