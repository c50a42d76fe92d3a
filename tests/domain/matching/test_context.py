"""What a text gives away about its run (the phase, read from the words it prints), and
what a run's context says of each reference, remembered per context."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from app.domain.matching.context import (
    ContextVerdicts,
    context_adjustment,
    fields_key,
    infer_context,
)
from app.domain.references.document import Reference
from app.domain.references.folder import read_folder


@pytest.mark.parametrize(
    ("line", "phase"),
    [
        pytest.param("Saving checkpoint took 41.2 secs", "checkpointing", id="a-save"),
        pytest.param(
            "Saving checkpoint. This may take some time. Retrieving full model state dict...",
            "checkpointing",
            id="a-full-state-dict-save",
        ),
        pytest.param("model.save_pretrained(out_dir)", "checkpointing", id="save-pretrained"),
        pytest.param(
            "Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:00<00:00,  2.83it/s]",
            None,
            id="weights-loaded-at-start-up",
        ),
        pytest.param(
            "INFO 06-10 06:16:43 [weight_utils.py:291] Using model weights format "
            "['*.safetensors']",
            None,
            id="the-weights-file-format",
        ),
        pytest.param(
            "Loading safetensors checkpoint shards: 100% Completed | 1/1\n"
            "INFO:     Started server process [1]\nINFO 06-10 serving requests",
            "inference",
            id="a-server-start-up",
        ),
    ],
)
def test_the_phase_is_read_from_what_the_text_prints(line: str, phase: str | None) -> None:
    assert infer_context(line).get("phase") == phase


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
