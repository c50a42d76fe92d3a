"""What a text gives away about its run: the phase and the GPU count, read from the words
it prints."""

from __future__ import annotations

import pytest
from paths import LABELLED

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.context import GPU_COUNT_RES, infer_context


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


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        pytest.param("torchrun: WORLD_SIZE=16 LOCAL_RANK=3", "16", id="world-size-upper"),
        pytest.param("launching with world_size: 8", "8", id="world-size-lower"),
        pytest.param("World_Size=8", None, id="world-size-in-mixed-case-is-not-read"),
        pytest.param("--nproc_per_node=4 train.py", "4", id="nproc-per-node"),
        pytest.param("LLM(model=m, tensor_parallel_size=2)", "2", id="tensor-parallel"),
        pytest.param("a node of 8x H100 SXM", "8", id="count-times-gpu"),
        pytest.param("a node of 8 X NVIDIA A100 80GB", "8", id="count-times-gpu-any-case"),
        pytest.param("on 4 × GPUs", "4", id="not-ascii-times-sign"),
        pytest.param("8x speed-up on the next step", None, id="a-count-of-nothing"),
    ],
)
def test_the_gpu_count_is_read_from_what_the_text_prints(text: str, gpus: str | None) -> None:
    assert infer_context(text).get("gpus") == gpus


GPU_COUNT_TEXTS = [
    *(f"{key}=8" for key in ("world_size", "WORLD_SIZE", "nproc_per_node", "num_gpus", "n_gpus")),
    *(f"{key}: 8" for key in ("tensor_parallel_size", "tp_size")),
    *(
        text
        for name in ("H100", "A100", "H200", "B200", "V100", "L40S", "GPU", "GPUs")
        for text in (f"8x {name}", f"8 X NVIDIA {name.lower()}")
    ),
]


@pytest.mark.parametrize("text", GPU_COUNT_TEXTS)
def test_every_way_of_giving_a_gpu_count_is_read(text: str) -> None:
    assert infer_context(f"launching: {text} ok").get("gpus") == "8"


def test_every_gpu_count_match_holds_one_of_its_needles() -> None:
    """A pattern is not run on a lowered text holding none of its needles: over the
    labelled lines and every way of giving a count, every match holds one."""
    texts = [line.text for line in read_labelled(LABELLED)] + GPU_COUNT_TEXTS
    for text in texts:
        for pattern, needles in GPU_COUNT_RES:
            if pattern.search(text):
                assert any(needle in text.lower() for needle in needles), (pattern, text)
