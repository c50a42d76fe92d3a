"""What a text gives away about its run: the frameworks, phase and GPU count, read from the
words it prints; and what a user types, read field by field (`read_context`)."""

from __future__ import annotations

import pytest
from paths import LABELLED

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.context import (
    FIELD_CHARS,
    GPU_COUNT_RES,
    MAX_EXTRA_KEYS,
    ContextFields,
    RunContext,
    infer_context,
    read_context,
)


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
    assert infer_context(line).phases == (() if phase is None else (phase,))


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
    assert infer_context(text).gpus == (None if gpus is None else int(gpus))


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
    assert infer_context(f"launching: {text} ok").gpus == 8


def test_every_gpu_count_match_holds_one_of_its_needles() -> None:
    """A pattern is not run on a lowered text holding none of its needles: over the
    labelled lines and every way of giving a count, every match holds one."""
    texts = [line.text for line in read_labelled(LABELLED)] + GPU_COUNT_TEXTS
    for text in texts:
        for pattern, needles in GPU_COUNT_RES:
            if pattern.search(text):
                assert any(needle in text.lower() for needle in needles), (pattern, text)


def test_every_framework_a_text_names_is_kept_engines_first() -> None:
    log = "[rank0]: torch.distributed ... ProcessGroupNCCL.cpp ... megatron/core/utils.py"
    assert infer_context(log).frameworks == ("megatron", "pytorch", "nccl")


def test_what_a_user_types_is_read_field_by_field() -> None:
    read = read_context(
        RunContext.model_validate(
            {
                "framework": "vLLM 0.8 (OpenAI server)",
                "phase": "serving",
                "gpus": "8x H100",
                "model": "Qwen2.5-72B",
                "cluster": "slurm, 2 nodes",
            }
        )
    )
    assert read.fields == ContextFields(
        frameworks=("vllm",),
        phases=("inference",),
        gpu="H100",
        gpus=8,
        model="Qwen2.5-72B",
        notes="cluster: slurm, 2 nodes",
    )
    assert read.ignored == ()
    assert read.said["framework"] == "vLLM 0.8 (OpenAI server)"


@pytest.mark.parametrize(
    ("given", "fields", "ignored"),
    [
        pytest.param(
            {"gpus": "single node"},
            ContextFields(notes="gpus: single node"),
            ["GPU count: “single node” gives no number of GPUs; kept as notes"],
            id="words-for-a-count",
        ),
        pytest.param(
            {"gpus": 0},
            ContextFields(notes="gpus: 0"),
            ["GPU count: “0” gives no number of GPUs; kept as notes"],
            id="no-gpus",
        ),
        pytest.param({"gpus": 8}, ContextFields(gpus=8), [], id="a-number"),
        pytest.param(
            {"framework": ["vllm", "ray"]},
            ContextFields(frameworks=("vllm", "ray")),
            [],
            id="a-list",
        ),
        pytest.param(
            {"framework": "our own trainer"},
            ContextFields(),
            ["framework: “our own trainer” names no framework failref knows"],
            id="an-unknown-framework",
        ),
        pytest.param(
            {"phase": "the third day"},
            ContextFields(),
            ["phase: “the third day” names no phase failref knows"],
            id="an-unknown-phase",
        ),
        pytest.param(
            {"gpu": "the big ones"},
            ContextFields(notes="gpu: the big ones"),
            ["gpu: “the big ones” names no GPU model failref knows; kept as notes"],
            id="an-unknown-gpu",
        ),
        pytest.param(
            {"host": {"name": "node-3", "rack": 2}},
            ContextFields(notes='host: {"name":"node-3","rack":2}'),
            [],
            id="an-object-under-a-new-key",
        ),
        pytest.param(
            {"debug": True}, ContextFields(notes="debug: yes"), [], id="a-flag-under-a-new-key"
        ),
    ],
)
def test_what_cannot_be_read_is_kept_as_notes_or_reported_never_refused(
    given: dict[str, object], fields: ContextFields, ignored: list[str]
) -> None:
    read = read_context(RunContext.model_validate(given))
    assert read.fields == fields
    assert list(read.ignored) == ignored


def test_a_long_value_is_read_up_to_its_limit_and_the_cut_reported() -> None:
    read = read_context(RunContext(framework="vllm " + "x" * 500))
    assert read.fields.frameworks == ("vllm",)
    assert len(read.said["framework"]) == FIELD_CHARS
    assert read.ignored == (f"framework: only the first {FIELD_CHARS} characters were read",)


def test_keys_beyond_the_limit_are_reported() -> None:
    extra = {f"key{number}": "x" for number in range(MAX_EXTRA_KEYS + 3)}
    read = read_context(RunContext.model_validate(extra))
    assert read.ignored == (f"3 more keys beyond {MAX_EXTRA_KEYS}",)
    assert read.fields.notes is not None
    assert read.fields.notes.count("key") == MAX_EXTRA_KEYS
