"""What a run's context says of each reference, remembered per index and context: a field
that agrees lifts, only a real contradiction lowers, what the text gives away only lifts;
the verdict remembered is the one worked out, and the memo is bounded."""

from __future__ import annotations

import pytest
from paths import REFERENCES
from reference_helpers import made_reference

from failref.domain.matching.index.context_terms import (
    ContextTerms,
    ContextVerdicts,
    context_adjustment,
)
from failref.domain.matching.reading.context import (
    NO_FIELDS,
    ContextFields,
    RunContext,
    read_context,
)
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder


def said(**fields: object) -> ContextFields:
    """The fields a user typed, read."""
    return read_context(RunContext.model_validate(fields)).fields


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
    given = said(**fields)
    for ref, reference in enumerate(references):
        assert verdicts.of(ref, given, NO_FIELDS) == context_adjustment(reference, given)
        assert verdicts.of(ref, said(**dict(reversed(fields.items()))), NO_FIELDS) == (
            context_adjustment(reference, given)
        )


def test_verdicts_are_kept_per_context_and_forgotten_past_the_limit(
    references: list[Reference],
) -> None:
    verdicts = ContextVerdicts(references, kept=3)
    training, serving = said(phase="training"), said(phase="serving")
    first = verdicts.of(0, training, NO_FIELDS)
    assert verdicts.of(0, training, NO_FIELDS) is first  # remembered, not worked out again
    assert verdicts.of(0, serving, NO_FIELDS) == context_adjustment(references[0], serving)
    verdicts.of(1, training, NO_FIELDS)
    verdicts.of(2, training, NO_FIELDS)  # the fourth: the three before are forgotten
    assert verdicts.of(0, training, NO_FIELDS) is not first
    assert verdicts.of(0, training, NO_FIELDS) == first


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
        pytest.param(
            {"framework": "DeepSpeed 0.14 (ZeRO-3)"},
            0.03,
            ["you said deepspeed, which it happens in"],
            id="fw",
        ),
        pytest.param(
            {"framework": "torch"}, 0.03, ["you said pytorch, which it happens in"], id="alias"
        ),
        pytest.param({"framework": "vLLM 0.8 (OpenAI server)"}, 0.0, [], id="other-engine"),
        pytest.param(
            {"phase": "SFT"}, 0.03, ["you said fine-tuning, which it happens in"], id="phase"
        ),
        pytest.param(
            {"phase": "serving"},
            -0.05,
            ["you said inference; this happens in training"],
            id="contradiction",
        ),
        pytest.param({"phase": "startup (two nodes)"}, 0.0, [], id="startup-never-contradicts"),
        pytest.param({"gpu": "h100 80GB HBM3"}, 0.03, ["GPU H100 agrees"], id="gpu-any-case"),
        pytest.param({"gpu": "A100"}, 0.0, [], id="another-gpu-says-nothing"),
        pytest.param(
            {"gpus": "8x H100"},
            0.06,
            ["GPU H100 agrees", "8 GPUs fits a multi-GPU failure"],
            id="gpus",
        ),
        pytest.param(
            {"gpus": 1}, -0.05, ["a single GPU rules out most multi-GPU failures"], id="one"
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
            {"framework": "deepspeed", "phase": "training", "gpu": "H100", "gpus": "2 x 8"},
            0.10,
            [
                "you said deepspeed, which it happens in",
                "you said training, which it happens in",
                "GPU H100 agrees",
                "16 GPUs fits a multi-GPU failure",
            ],
            id="agreeing-lifts-at-most-max-lift",
        ),
    ],
)
def test_each_field_lifts_when_it_agrees_and_lowers_only_on_a_contradiction(
    fields: dict[str, object], offset: float, reasons: list[str]
) -> None:
    found, reasons_given = context_adjustment(_reference(), said(**fields))
    assert found == pytest.approx(offset)
    assert list(reasons_given) == reasons


def test_another_engine_lowers_only_a_failure_that_belongs_to_its_engines() -> None:
    specific = _reference(engine_specific=True)
    found, reasons = context_adjustment(specific, said(framework="vLLM 0.8"))
    assert found == pytest.approx(-0.05)
    assert list(reasons) == ["you said vllm; this belongs to DeepSpeed, pytorch"]
    # a library every job uses is not another engine
    assert context_adjustment(specific, said(framework="NCCL 2.21")) == (0.0, ())


def test_what_the_text_gives_away_only_lifts() -> None:
    inferred = ContextFields(frameworks=("vllm",), phases=("inference",))
    assert context_adjustment(_reference(), NO_FIELDS, inferred) == (0.0, ())
    agreeing = ContextFields(frameworks=("deepspeed",), phases=("training",))
    found, reasons = context_adjustment(_reference(), NO_FIELDS, agreeing)
    assert found == pytest.approx(0.06)
    assert list(reasons) == [
        "the text names deepspeed, which it happens in",
        "the text suggests training, which it happens in",
    ]


def test_what_the_user_said_wins_over_the_text() -> None:
    inferred = ContextFields(phases=("training",))
    found, reasons = context_adjustment(_reference(), said(phase="serving"), inferred)
    assert list(reasons) == ["you said inference; this happens in training"]
    assert found == pytest.approx(-0.05)


def test_a_reference_naming_no_gpu_model_or_not_distributed_says_nothing_of_them() -> None:
    plain = _reference(hardware=["InfiniBand"], tags=["checkpoint"], frameworks=[])
    assert context_adjustment(plain, said(gpu="H100", gpus="8", framework="vllm")) == (0.0, ())


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
            {"frameworks": ["megatron-lm"]},
            {"framework": "Megatron-Core 0.9"},
            ["you said megatron, which it happens in"],
            id="an-alias-on-the-references-side",
        ),
        pytest.param(
            {"phases": ["inference"]},
            {"phase": "inference (load test)"},
            ["you said inference, which it happens in"],
            id="words-around-the-phase",
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
    assert list(context_adjustment(_reference(**reference), said(**fields))[1]) == reasons


def test_a_references_words_are_cut_only_for_a_verdict_that_reads_them() -> None:
    terms = ContextTerms(_reference())
    terms.adjustment(said(framework="vllm", phase="training", gpus="8"), NO_FIELDS)
    assert "keywords" not in vars(terms)  # ~13 us a reference, for a model or notes alone
    terms.adjustment(said(model="llama-3-8b"), NO_FIELDS)
    assert "llama" in vars(terms)["keywords"]
