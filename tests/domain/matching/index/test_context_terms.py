"""What a run's context says of each reference, remembered per index and context: the
verdict remembered is the one worked out, whatever the fields' order, and the memo is
bounded."""

from __future__ import annotations

import pytest
from paths import REFERENCES
from reference_helpers import made_reference

from failref.domain.matching.index.context_terms import (
    ContextTerms,
    ContextVerdicts,
    context_adjustment,
    fields_key,
)
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return list(read_folder(REFERENCES).references)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"framework": "vllm", "phase": "inference"},
        {"framework": "deepspeed", "gpus": "1", "notes": "no torch.compile, fsdp off"},
        {"gpu": "H100", "model": "llama-3-70b"},
    ],
)
def test_a_remembered_verdict_is_the_one_worked_out(
    references: list[Reference], fields: dict[str, str]
) -> None:
    verdicts = ContextVerdicts(references)
    for ref, reference in enumerate(references):
        assert verdicts.of(ref, fields_key(fields)) == context_adjustment(reference, fields)
        assert verdicts.of(ref, fields_key(dict(reversed(fields.items())))) == (
            context_adjustment(reference, fields)
        )


def test_verdicts_are_kept_per_context_and_forgotten_past_the_limit(
    references: list[Reference],
) -> None:
    verdicts = ContextVerdicts(references, kept=3)
    training, serving = fields_key({"phase": "training"}), fields_key({"phase": "inference"})
    first = verdicts.of(0, training)
    assert verdicts.of(0, training) is first  # remembered, not worked out again
    assert verdicts.of(0, serving) == context_adjustment(references[0], {"phase": "inference"})
    verdicts.of(1, training)
    verdicts.of(2, training)  # the fourth: the three before are forgotten
    assert verdicts.of(0, training) is not first
    assert verdicts.of(0, training) == first


def _reference(**fields: object) -> Reference:
    """A reference about a DeepSpeed ZeRO-3 hang on H100s, with the fields given."""
    about: dict[str, object] = {
        "title": "ZeRO-3 hang on Llama fine-tunes",
        "summary": "An all-reduce never returns.",
        "tags": ["nccl", "offload"],
        "frameworks": ["DeepSpeed", "pytorch"],
        "phases": ["training"],
        "hardware": ["H100", "InfiniBand"],
    }
    return made_reference(**(about | fields))


@pytest.mark.parametrize(
    ("fields", "offset", "reasons"),
    [
        pytest.param({"framework": "deepspeed"}, 0.03, ["framework deepspeed agrees"], id="fw"),
        pytest.param({"framework": "torch"}, 0.03, ["framework torch agrees"], id="alias"),
        pytest.param(
            {"framework": "vllm"},
            -0.05,
            ["framework vllm is not among DeepSpeed, pytorch"],
            id="other-framework",
        ),
        pytest.param({"phase": "Training"}, 0.03, ["phase Training agrees"], id="phase"),
        pytest.param({"gpu": "h 100"}, 0.03, ["GPU h 100 agrees"], id="gpu-any-case"),
        pytest.param({"gpu": "A100"}, -0.05, ["GPU A100 is not among H100"], id="other-gpu"),
        pytest.param({"gpus": "8"}, 0.03, ["8 GPUs fits a multi-GPU failure"], id="gpus"),
        pytest.param(
            {"gpus": "1"}, -0.05, ["a single GPU rules out most multi-GPU failures"], id="one"
        ),
        pytest.param(
            {"model": "Llama-3-70B"},
            0.03,
            ["model Llama-3-70B is named by the reference"],
            id="model",
        ),
        pytest.param({"model": "mixtral-8x7b"}, 0.0, [], id="model-not-named"),
        pytest.param(
            {"notes": "no offload here"}, -0.05, ["your notes rule out offload"], id="negated"
        ),
        pytest.param(
            {"notes": "nccl hang with offload"},
            0.03,
            ["your notes mention hang, nccl, offload"],
            id="notes",
        ),
        pytest.param(
            {"framework": "deepspeed", "phase": "training", "gpu": "H100", "gpus": "8"},
            0.10,
            [
                "framework deepspeed agrees",
                "phase training agrees",
                "GPU H100 agrees",
                "8 GPUs fits a multi-GPU failure",
            ],
            id="agreeing-lifts-at-most-max-lift",
        ),
    ],
)
def test_each_field_agrees_or_disagrees_by_what_the_reference_names(
    fields: dict[str, str], offset: float, reasons: list[str]
) -> None:
    found, said = context_adjustment(_reference(), fields)
    assert found == pytest.approx(offset)
    assert list(said) == reasons


def test_a_reference_naming_no_gpu_model_or_not_distributed_says_nothing_of_them() -> None:
    plain = _reference(hardware=["InfiniBand"], tags=["checkpoint"], frameworks=[])
    assert context_adjustment(plain, {"gpu": "H100", "gpus": "8", "framework": "vllm"}) == (
        0.0,
        (),
    )


@pytest.mark.parametrize(
    ("reference", "fields", "reasons"),
    [
        pytest.param(
            {"tags": [], "frameworks": ["DeepSpeed"]},
            {"gpus": "8"},
            ["8 GPUs fits a multi-GPU failure"],
            id="multi-gpu-by-its-framework-alone",
        ),
        pytest.param(
            {"frameworks": ["torch"]},
            {"framework": "pytorch"},
            ["framework pytorch agrees"],
            id="an-alias-on-the-references-side",
        ),
        pytest.param(
            {"phases": ["Inference"]}, {"phase": "inference"}, ["phase inference agrees"], id="case"
        ),
        pytest.param({}, {"notes": "an outage on it"}, [], id="notes-of-stop-words-alone"),
        pytest.param(
            {},
            {"notes": "the reduce returns late"},
            ["your notes mention reduce, returns"],
            id="notes-meeting-the-summary",
        ),
    ],
)
def test_what_a_verdict_reads_of_the_reference(
    reference: dict[str, object], fields: dict[str, str], reasons: list[str]
) -> None:
    assert list(context_adjustment(_reference(**reference), fields)[1]) == reasons


def test_a_references_words_are_cut_only_for_a_verdict_that_reads_them() -> None:
    terms = ContextTerms(_reference())
    terms.adjustment({"framework": "vllm", "phase": "training", "gpus": "8"})
    assert "keywords" not in vars(terms)  # ~13 us a reference, for a model or notes alone
    terms.adjustment({"model": "llama-3-8b"})
    assert "llama" in vars(terms)["keywords"]
