"""activation-memory: worked example, hand-computed cases, refused inputs, monotonicity."""

from __future__ import annotations

import math

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("activation-memory")


def test_worked_example() -> None:
    # GPT-3 175B shape: sbh = 2048 * 12288 = 25,165,824 bytes (24 MiB); 5as/h = 80.
    # t = 8 with sequence parallelism: 24 MiB * (34 + 80) / 8 = 342 MiB per layer;
    # 96 layers = 32,832 MiB = 32.0625 GiB, 0.4008 of 80 GiB.
    assert outputs_of(CALC, {}) == {
        "sbh_bytes": 25165824.0,
        "score_term": 80.0,
        "per_layer_mib": 342.0,
        "activation_gib": 32.0625,
        "no_recompute_gib": 32.0625,
        "share_of_capacity": 0.400781,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # No parallelism: 24 MiB * (34 + 80) = 2,736 MiB; 96 layers = 256.5 GiB.
        pytest.param(
            {"tensor_parallel": 1}, {"per_layer_mib": 2736, "activation_gib": 256.5}, id="t1"
        ),
        # Selective with SP: 24 * 34 / 8 = 102 MiB; 96 layers = 9,792 MiB = 9.5625 GiB.
        pytest.param(
            {"recompute": "selective"},
            {"per_layer_mib": 102, "activation_gib": 9.5625, "no_recompute_gib": 32.0625},
            id="selective-sp",
        ),
        # No SP: 24 * (10 + (24 + 80) / 8) = 24 * 23 = 552 MiB; 96 layers = 51.75 GiB.
        pytest.param(
            {"sequence_parallel": "off"},
            {"per_layer_mib": 552, "activation_gib": 51.75},
            id="tp-only",
        ),
        # Selective without SP: 24 * (10 + 3) = 312 MiB.
        pytest.param(
            {"recompute": "selective", "sequence_parallel": "off"},
            {"per_layer_mib": 312},
            id="selective",
        ),
        # Full without SP: 2 * 24 = 48 MiB; 96 layers = 4.5 GiB. With SP: 6 MiB.
        pytest.param(
            {"recompute": "full", "sequence_parallel": "off"}, {"activation_gib": 4.5}, id="full"
        ),
        pytest.param({"recompute": "full"}, {"per_layer_mib": 6}, id="full-sp"),
        # Megatron-LM#965's shape: sbh = 4096 * 3072 = 12,582,912; 34 sbh + 5 a s^2 b
        # = 427,819,008 + 2,684,354,560 = 3,112,173,568 bytes = 2,968 MiB.
        pytest.param(
            {
                "sequence_length": 4096,
                "hidden_size": 3072,
                "attention_heads": 32,
                "tensor_parallel": 1,
                "layers": 1,
            },
            {"sbh_bytes": 12582912, "per_layer_mib": 2968},
            id="phi3-shape",
        ),
        # fp32 doubles the 16-bit figure.
        pytest.param({"bytes_per_value": 4}, {"per_layer_mib": 684}, id="fp32"),
    ],
)
def test_hand_computed_cases(inputs: dict[str, object], expected: dict[str, object]) -> None:
    assert_outputs_close(CALC, inputs, expected)


def test_refused_inputs_name_their_field() -> None:
    assert_refused(
        CALC,
        {"attention_heads": 96, "tensor_parallel": 7},
        "tensor_parallel",
        "must divide the attention heads (each GPU holds whole heads)",
    )
    assert_refused(
        CALC,
        {"attention_heads": 64, "hidden_size": 32},
        "attention_heads",
        "must not exceed Hidden size",
    )


SHAPES = st.fixed_dictionaries(
    {
        "sequence_length": st.integers(1, 200_000),
        "micro_batch": st.integers(1, 64),
        "hidden_size": st.sampled_from([512, 1024, 4096, 8192]),
        "attention_heads": st.sampled_from([8, 16, 32]),
        "layers": st.integers(1, 128),
        "tensor_parallel": st.sampled_from([1, 2, 4, 8]),
        "sequence_parallel": st.sampled_from(["on", "off"]),
    }
)


@settings(max_examples=60, deadline=None)
@given(SHAPES)
def test_recomputation_and_sharding_never_cost_memory(shape: dict[str, object]) -> None:
    none, selective, full = (
        outputs_of(CALC, {**shape, "recompute": mode})["activation_gib"]
        for mode in ("none", "selective", "full")
    )
    assert all(isinstance(v, float) and math.isfinite(v) for v in (none, selective, full))
    assert float(full) <= float(selective) <= float(none)  # type: ignore[arg-type]
    on = outputs_of(CALC, {**shape, "sequence_parallel": "on"})["activation_gib"]
    off = outputs_of(CALC, {**shape, "sequence_parallel": "off"})["activation_gib"]
    assert float(on) <= float(off)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(SHAPES, st.integers(2, 4))
def test_more_tokens_never_need_less_memory(shape: dict[str, object], factor: int) -> None:
    base = outputs_of(CALC, shape)["activation_gib"]
    longer = {**shape, "sequence_length": int(shape["sequence_length"]) * factor}  # type: ignore[call-overload]
    assert float(outputs_of(CALC, longer)["activation_gib"]) >= float(base)  # type: ignore[arg-type]
