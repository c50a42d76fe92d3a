"""What a run's context says of each reference, remembered per index and context: the
verdict remembered is the one worked out, whatever the fields' order, and the memo is
bounded."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from app.domain.matching.verdicts import ContextVerdicts, context_adjustment, fields_key
from app.domain.references.document import Reference
from app.domain.references.folder import read_folder


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
