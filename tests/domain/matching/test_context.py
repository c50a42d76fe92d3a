"""What a text gives away about its run: the phase, read from the words it prints."""

from __future__ import annotations

import pytest

from app.domain.matching.context import infer_context


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
