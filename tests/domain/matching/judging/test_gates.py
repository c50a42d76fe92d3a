"""When a run's context contradicts a reference outright: a phase it does not occur in (said,
or inferred as training or serving), or an engine other than the ones it is about. Libraries
every job uses and phases the text only hints at never gate."""

from __future__ import annotations

import pytest
from reference_helpers import made_reference

from failref.domain.matching.judging.gates import context_gates

SERVING = made_reference(frameworks=["vLLM", "PyTorch"], phases=["inference"])
TRAINING = made_reference(frameworks=["DeepSpeed"], phases=["training"])
ANYWHERE = made_reference(frameworks=["PyTorch"], phases=[])


@pytest.mark.parametrize(
    ("given", "inferred", "expected"),
    [
        pytest.param({}, {}, [], id="no-context"),
        pytest.param({"phase": "inference"}, {}, [], id="same-phase"),
        pytest.param(
            {"phase": "training"},
            {},
            ["context disagrees: you said phase training, and this happens in inference"],
            id="said-phase",
        ),
        pytest.param(
            {},
            {"phase": "fine-tuning"},
            [
                "context disagrees: the text suggests phase fine-tuning, and this happens in inference"
            ],
            id="inferred-phase",
        ),
        pytest.param({}, {"phase": "data-loading"}, [], id="inferred-phase-not-trusted"),
        pytest.param(
            {"framework": "deepspeed"},
            {},
            ["context disagrees: you said deepspeed, and this is about vLLM, PyTorch"],
            id="said-engine",
        ),
        pytest.param(
            {},
            {"framework": "sglang"},
            ["context disagrees: the text names sglang, and this is about vLLM, PyTorch"],
            id="inferred-engine",
        ),
        pytest.param({"framework": "torch"}, {}, [], id="a-library-is-no-engine"),
        pytest.param({"framework": "vllm"}, {"framework": "deepspeed"}, [], id="said-wins"),
    ],
)
def test_a_serving_reference_is_gated_by_what_contradicts_it(
    given: dict[str, str], inferred: dict[str, str], expected: list[str]
) -> None:
    assert context_gates(SERVING, given, inferred) == expected


def test_fine_tuning_is_training() -> None:
    assert context_gates(TRAINING, {"phase": "fine-tuning"}, {}) == []


def test_an_inferred_phase_gates_only_by_the_broad_split() -> None:
    evaluation = made_reference(phases=["evaluation", "inference"])
    assert context_gates(evaluation, {}, {"phase": "inference"}) == []
    assert context_gates(evaluation, {}, {"phase": "training"}) != []
    assert context_gates(evaluation, {"phase": "training"}, {}) != []


def test_a_reference_naming_no_phase_or_engine_is_never_gated() -> None:
    assert context_gates(ANYWHERE, {"phase": "training", "framework": "vllm"}, {}) == []
