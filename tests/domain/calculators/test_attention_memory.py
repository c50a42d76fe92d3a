"""attention-memory: worked example, hand-computed cases, refused inputs, monotonicity."""

from __future__ import annotations

import math

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.calculators import get_calculator

CALC = get_calculator("attention-memory")


def test_worked_example() -> None:
    # 1 x 32 x 4096 x 4096 = 536,870,912 scores x 2 bytes = 1 GiB. Output 32 x 4096 x 128
    # x 2 = 32 MiB; log-sum-exp 32 x 4096 x 4 = 0.5 MiB. Peak max(2 GiB, 1 GiB + 32 MiB)
    # = 2 GiB; kept for backward 1 GiB; fused 32.5 MiB; 2048 / 32.5 = 63.0154; 2 / 80.
    assert outputs_of(CALC, {}) == {
        "score_matrix_gib": 1.0,
        "math_extra_gib": 2.0,
        "math_saved_gib": 1.0,
        "fused_extra_gib": 0.031738,
        "math_to_fused_ratio": 63.015385,
        "share_of_gpu_memory": 0.025,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # Dropout: softmax 1 GiB + mask 0.5 GiB (1 byte each) + dropped-out copy 1 GiB
        # = 2.5 GiB kept, 2,560 MiB = Megatron-LM#965's 1,024 + 1,536 MiB; peak + 32 MiB.
        pytest.param(
            {"phase": "training-dropout"},
            {"math_extra_gib": 2.53125, "math_saved_gib": 2.5},
            id="dropout",
        ),
        pytest.param(
            {"phase": "inference"}, {"math_extra_gib": 2.0, "math_saved_gib": 0.0}, id="inference"
        ),
        # Doubling the sequence quadruples the scores: 4 GiB, peak 8 GiB, 0.1 of 80 GiB.
        pytest.param(
            {"query_length": 8192, "key_length": 8192},
            {"score_matrix_gib": 4.0, "math_extra_gib": 8.0, "share_of_gpu_memory": 0.1},
            id="8k",
        ),
        # fp32: scores 2 GiB, peak 4 GiB; fused 64 MiB + 0.5 MiB; 4096 / 64.5 = 63.5039.
        pytest.param(
            {"bytes_per_value": 4},
            {"score_matrix_gib": 2.0, "math_extra_gib": 4.0, "math_to_fused_ratio": 63.503876},
            id="fp32",
        ),
        # One decoding step against 4,096 cached tokens: scores 32 x 4096 x 2 = 256 KiB,
        # peak 512 KiB; fused 32 x 128 x 2 + 32 x 4 = 8,320 bytes; ratio 524,288 / 8,320.
        pytest.param(
            {"query_length": 1, "phase": "inference"},
            {"math_extra_gib": 524288 / 2**30, "math_to_fused_ratio": 63.015385},
            id="decode",
        ),
        # One key: the output dominates; peak 256 KiB + 32 MiB against 32 MiB + 512 KiB.
        pytest.param(
            {"key_length": 1},
            {"math_extra_gib": 33816576 / 2**30, "math_to_fused_ratio": 0.992308},
            id="one-key",
        ),
    ],
)
def test_hand_computed_cases(inputs: dict[str, object], expected: dict[str, object]) -> None:
    assert_outputs_close(CALC, inputs, expected)


def test_refused_inputs_name_their_field() -> None:
    assert_refused(CALC, {"head_dim": 0}, "head_dim", "must be at least 1")
    assert_refused(
        CALC,
        {"phase": "eval"},
        "phase",
        "must be one of: training, training-dropout, inference (got 'eval')",
    )
    assert_refused(CALC, {"gpu_memory_gib": 0}, "gpu_memory_gib", "must be at least 0.001")


SHAPES = st.fixed_dictionaries(
    {
        "batch": st.integers(1, 1_000_000),
        "heads": st.integers(1, 100_000),
        "query_length": st.integers(1, 10_000_000),
        "key_length": st.integers(1, 5_000_000),
        "head_dim": st.integers(1, 65_536),
        "bytes_per_value": st.sampled_from([0.125, 1, 2, 4, 16]),
        "phase": st.sampled_from(["training", "training-dropout", "inference"]),
    }
)


def _number(shape: dict[str, object], name: str) -> float:
    value = outputs_of(CALC, shape)[name]
    assert isinstance(value, float), name
    assert math.isfinite(value), name
    return value


@settings(max_examples=80, deadline=None)
@given(SHAPES)
def test_longer_keys_never_need_less_memory(shape: dict[str, object]) -> None:
    longer = {**shape, "key_length": int(shape["key_length"]) * 2}  # type: ignore[call-overload]
    for name in ("score_matrix_gib", "math_extra_gib", "math_saved_gib", "math_to_fused_ratio"):
        assert _number(longer, name) >= _number(shape, name), name
    assert _number(longer, "fused_extra_gib") == _number(shape, "fused_extra_gib")


@settings(max_examples=80, deadline=None)
@given(SHAPES)
def test_the_math_path_holds_at_least_its_scores(shape: dict[str, object]) -> None:
    assert _number(shape, "math_extra_gib") >= _number(shape, "score_matrix_gib")
    saved = [
        _number({**shape, "phase": phase}, "math_saved_gib")
        for phase in ("inference", "training", "training-dropout")
    ]
    assert saved == sorted(saved)
