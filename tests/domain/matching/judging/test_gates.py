"""When a run's context contradicts a reference outright: only what the user said, and only
a real contradiction (a run said to be only serving against a training-only failure, or
the reverse; another engine for an `engine_specific` failure). What the text gives away,
libraries every job uses and phases that happen in both kinds of run never gate."""

from __future__ import annotations

import pytest
from reference_helpers import made_reference

from failref.domain.matching.judging.gates import context_gates
from failref.domain.matching.reading.context import ContextFields, RunContext, read_context

SERVING = made_reference(frameworks=["vLLM", "PyTorch"], phases=["inference"])
VLLM_ONLY = made_reference(
    frameworks=["vLLM", "PyTorch"], phases=["inference"], engine_specific=True
)
TRAINING = made_reference(frameworks=["DeepSpeed"], phases=["training"])
ANYWHERE = made_reference(frameworks=["PyTorch"], phases=[])


def said(**fields: object) -> ContextFields:
    return read_context(RunContext.model_validate(fields)).fields


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param({}, [], id="no-context"),
        pytest.param({"phase": "inference"}, [], id="same-phase"),
        pytest.param({"phase": "deployment"}, [], id="a-synonym"),
        pytest.param(
            {"phase": "pre-training"},
            ["context disagrees: you said training, and this happens in inference"],
            id="said-phase",
        ),
        pytest.param({"phase": "startup (two nodes)"}, [], id="startup-is-both"),
        pytest.param({"phase": "RLHF"}, [], id="rl-trains-and-generates"),
        pytest.param({"framework": "deepspeed"}, [], id="not-engine-specific"),
    ],
)
def test_a_serving_reference_is_gated_only_by_a_real_contradiction(
    given: dict[str, object], expected: list[str]
) -> None:
    assert context_gates(SERVING, said(**given)) == expected


@pytest.mark.parametrize(
    ("given", "gated"),
    [
        pytest.param({"framework": "DeepSpeed ZeRO-3"}, True, id="another-engine"),
        pytest.param({"framework": "vLLM 0.8 (OpenAI server)"}, False, id="its-engine"),
        pytest.param({"framework": "verl + vLLM rollout"}, False, id="its-engine-among-others"),
        pytest.param({"framework": "PyTorch 2.5, NCCL 2.21"}, False, id="libraries-are-no-engine"),
    ],
)
def test_an_engine_specific_reference_is_gated_by_another_engine(
    given: dict[str, object], gated: bool
) -> None:
    assert bool(context_gates(VLLM_ONLY, said(**given))) is gated


def test_fine_tuning_is_training() -> None:
    assert context_gates(TRAINING, said(phase="LoRA fine-tune")) == []


def test_a_reference_naming_no_phase_or_engine_is_never_gated() -> None:
    assert context_gates(ANYWHERE, said(phase="training", framework="vllm")) == []
