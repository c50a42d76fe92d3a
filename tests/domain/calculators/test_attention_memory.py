"""attention-memory: worked example, hand-computed cases, refused inputs, monotonicity."""

from __future__ import annotations

import math

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("attention-memory")


def test_worked_example() -> None:
    # bf16 inputs upcast to fp32 (PyTorch 2.5+): 1 x 32 x 4096 x 4096 = 536,870,912 scores
    # x 4 bytes = 2 GiB. While _safe_softmax runs: raw 2 GiB + softmax 2 GiB + 0.5 GiB
    # bool guard = 4.5 GiB; at the end 2 GiB softmax + 64 MiB fp32 output + 32 MiB bf16
    # output + 1 GiB bf16 weights = 3.09 GiB. Kept for backward 2 GiB. Fused: 32 MiB
    # output + 32 x 4096 x 4 = 0.5 MiB log-sum-exp = 32.5 MiB; 4608 / 32.5 = 141.7846.
    assert outputs_of(CALC, {}) == {
        "score_matrix_gib": 2.0,
        "math_extra_gib": 4.5,
        "math_saved_gib": 2.0,
        "fused_extra_gib": 0.031738,
        "math_to_fused_ratio": 141.784615,
        "share_of_gpu_memory": 0.05625,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # Dropout, upcast: softmax 2 GiB + mask 0.5 GiB + dropped-out copy 2 GiB = 4.5 GiB
        # kept; at the end + 64 MiB + 32 MiB outputs + 1 GiB bf16 weights = 5.59375 GiB.
        pytest.param(
            {"phase": "training-dropout"},
            {"math_extra_gib": 5.59375, "math_saved_gib": 4.5},
            id="dropout",
        ),
        # PyTorch 2.0 to 2.4 in bf16: scores 1 GiB, peak max(2 GiB, 1 GiB + 32 MiB) = 2 GiB,
        # kept 1 GiB; 2048 / 32.5 = 63.0154.
        pytest.param(
            {"math_precision": "pre-2.5"},
            {
                "score_matrix_gib": 1.0,
                "math_extra_gib": 2.0,
                "math_saved_gib": 1.0,
                "math_to_fused_ratio": 63.015385,
            },
            id="pre-2.5",
        ),
        # pre-2.5 with dropout: softmax 1 GiB + mask 0.5 GiB + dropped-out copy 1 GiB =
        # 2.5 GiB kept, 2,560 MiB = Megatron-LM#965's 1,024 + 1,536 MiB; peak + 32 MiB.
        pytest.param(
            {"math_precision": "pre-2.5", "phase": "training-dropout"},
            {"math_extra_gib": 2.53125, "math_saved_gib": 2.5},
            id="pre-2.5-dropout",
        ),
        # Reduced precision on 2.5+: bf16 scores 1 GiB, peak 2 GiB + 0.5 GiB guard mask.
        pytest.param(
            {"math_precision": "reduced"},
            {"score_matrix_gib": 1.0, "math_extra_gib": 2.5, "math_saved_gib": 1.0},
            id="reduced",
        ),
        pytest.param(
            {"phase": "inference"}, {"math_extra_gib": 4.5, "math_saved_gib": 0.0}, id="inference"
        ),
        # Doubling the sequence quadruples the scores: 8 GiB, peak 2 x 8 + 2 = 18 GiB, 0.225.
        pytest.param(
            {"query_length": 8192, "key_length": 8192},
            {"score_matrix_gib": 8.0, "math_extra_gib": 18.0, "share_of_gpu_memory": 0.225},
            id="8k",
        ),
        # fp32 inputs: nothing to upcast or cast back; scores 2 GiB, peak 4.5 GiB; fused
        # 64 MiB + 0.5 MiB; 4608 / 64.5 = 71.4419.
        pytest.param(
            {"bytes_per_value": 4},
            {"score_matrix_gib": 2.0, "math_extra_gib": 4.5, "math_to_fused_ratio": 71.44186},
            id="fp32",
        ),
        # fp32 inputs before 2.5: peak max(4 GiB, 2 GiB + 64 MiB); 4096 / 64.5 = 63.5039.
        pytest.param(
            {"bytes_per_value": 4, "math_precision": "pre-2.5"},
            {"math_extra_gib": 4.0, "math_to_fused_ratio": 63.503876},
            id="fp32-pre-2.5",
        ),
        # One decoding step against 4,096 cached tokens: 131,072 scores x 4 = 512 KiB,
        # peak 1 MiB + 128 KiB guard = 1,179,648 bytes; fused 32 x 128 x 2 + 32 x 4 = 8,320.
        pytest.param(
            {"query_length": 1, "phase": "inference"},
            {"math_extra_gib": 1179648 / 2**30, "math_to_fused_ratio": 141.784615},
            id="decode",
        ),
        # One key: the outputs dominate; 512 KiB softmax + 64 MiB fp32 output + 32 MiB bf16
        # output + 256 KiB bf16 weights = 101,449,728 bytes against 34,078,720 fused.
        pytest.param(
            {"key_length": 1},
            {"math_extra_gib": 101449728 / 2**30, "math_to_fused_ratio": 2.976923},
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
    assert_refused(
        CALC,
        {"math_precision": "fp16"},
        "math_precision",
        "must be one of: fp32, reduced, pre-2.5 (got 'fp16')",
    )


SHAPES = st.fixed_dictionaries(
    {
        "batch": st.integers(1, 1_000_000),
        "heads": st.integers(1, 100_000),
        "query_length": st.integers(1, 10_000_000),
        "key_length": st.integers(1, 5_000_000),
        "head_dim": st.integers(1, 65_536),
        "bytes_per_value": st.sampled_from([0.125, 1, 2, 4, 16]),
        "phase": st.sampled_from(["training", "training-dropout", "inference"]),
        "math_precision": st.sampled_from(["fp32", "reduced", "pre-2.5"]),
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
