"""Run context: what the user says about their run, and what the text gives away.

What a context says of each reference is `index.context_terms`; when it contradicts one,
`judging.gates`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from .either_case import EitherCase, holds_a_needle, lowered_ascii

# Text beyond this is not searched for context: the head of a log names the framework
# and GPU, and a 50 MB paste must not cost a second here (about 30 ms for 64 KiB).
MAX_INFER_CHARS = 64 * 1024
# A framework, phase, GPU or model name is a few words; notes a few sentences. Longer is
# a mistake or an attempt to make every answer carry the request back many times over.
FIELD_CHARS = 100
NOTES_CHARS = 1000
# More GPUs than any cluster has.
MAX_GPUS = 1_000_000

# Most specific first: a DeepSpeed log also mentions torch and NCCL. Each pattern comes
# with the pieces one of which every match of it holds (`EitherCase.needles`).
FRAMEWORK_PATTERNS: tuple[tuple[str, EitherCase], ...] = tuple(
    (name, EitherCase.of(pattern, needles))
    for name, needles, pattern in (
        ("vllm", ("vllm",), r"\bvllm\b"),
        ("sglang", ("sglang",), r"\bsglang\b"),
        ("tensorrt-llm", ("tensorrt", "trtllm"), r"\btensorrt[-_]?llm\b|\btrtllm\b"),
        (
            "text-generation-inference",
            ("generation",),
            r"\btext[-_]generation[-_]inference\b",
        ),
        ("deepspeed", ("deepspeed",), r"\bdeepspeed\b"),
        ("megatron", ("megatron",), r"\bmegatron\b"),
        ("accelerate", ("accelerate",), r"\baccelerate\b"),
        ("jax", ("jax", "xla"), r"\bjax(?:lib)?\b|\bxla\b"),
        ("transformers", ("transformers",), r"\btransformers\b"),
        ("nccl", ("nccl",), r"\bnccl\b|(?-i:NCCL)"),  # also WorkNCCL, ProcessGroupNCCL
        ("pytorch", ("torch",), r"\btorch\b|\bpytorch\b"),
        ("cuda", ("cuda",), r"\bcuda\b"),
    )
)
GPU = EitherCase.of(
    r"\b(?:NVIDIA\s+)?((?:GH|GB)200|[HBA]100|H200|H20|B200|A10G?|A30|A40|A6000|L40S?|L4|V100|T4"
    r"|P100|MI\d{3}X?|RTX\s?\d{4}(?:\s?Ti)?)\b"
)
# Each with its needles: pieces, lower case, one of which the lowered text holds wherever
# the pattern matches (a pattern starting with `\b` costs ~7 us over a long line).
GPU_COUNT_RES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\b(?:world_size|WORLD_SIZE|nproc_per_node|num_gpus|n_gpus)\s*[=:]\s*(\d+)"),
        ("world_size", "nproc_per_node", "num_gpus", "n_gpus"),
    ),
    (
        re.compile(r"\b(?:tensor_parallel_size|tp_size)\s*[=:]\s*(\d+)"),
        ("tensor_parallel_size", "tp_size"),
    ),
    (
        re.compile(
            r"\b(\d+)\s*[x×]\s*(?:NVIDIA\s+)?(?:H100|A100|H200|B200|V100|L40S|GPUs?)\b", re.I
        ),
        ("h100", "a100", "h200", "b200", "v100", "l40s", "gpu"),
    ),
)
MODEL = EitherCase.of(
    r"\b(llama|mistral|mixtral|qwen|deepseek|gemma|phi|falcon|gpt|bert|t5|opt|bloom|mpt"
    r"|starcoder|codellama|yi|internlm|baichuan|chatglm|olmo|grok|nemotron)(?![a-z])[\w.-]*"
)
PHASE_PATTERNS: tuple[tuple[str, EitherCase], ...] = tuple(
    (name, EitherCase.of(pattern, needles))
    for name, needles, pattern in (
        # not PyTorch's hint after every CUDA error, "Compile with `TORCH_USE_CUDA_DSA`"
        (
            "compilation",
            ("compil", "inductor", "dynamo"),
            r"\btorch\.compile\b|\binductor\b|\bdynamo\b"
            r"|\bcompil(?:e|ing|ation)\b(?! with .TORCH_USE_CUDA_DSA)",
        ),
        # not the weights loaded at start-up: vLLM's "Loading safetensors checkpoint
        # shards" and Hugging Face's "Loading checkpoint shards" progress bars, and
        # `safetensors`, which names the weights' file format when they are loaded too
        (
            "checkpointing",
            ("save_pretrained", "checkpoint"),
            r"\bsave_pretrained\b|(?<!loading )(?<!loading safetensors )(?<!loading pt )"
            r"\bcheckpoint(?:ing|s)?\b(?! shards)",
        ),
        ("data-loading", ("data",), r"\bdataloader\b|\bdata ?loader worker\b|\bdataset\b"),
        (
            "inference",
            ("generat", "prefill", "decode", "request", "serv"),
            r"\bgenerat(?:e|ion)\b|\bprefill\b|\bdecode\b|\brequests?\b|\bserv(?:e|ing)\b",
        ),
        (
            "training",
            ("backward", "optimizer", "loss", "epoch", "grad"),
            r"\bbackward\b|\boptimizer\b|\bloss\b|\bepoch\b|\bgrad(?:ient)?s?\b",
        ),
        (
            "startup",
            ("init_process_group", "initializ", "rendezvous"),
            r"\binit_process_group\b|\binitializ(?:e|ing)\b|\brendezvous\b",
        ),
    )
)


class RunContext(BaseModel):
    """What the user says about their run; every field optional and short."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    framework: str | None = Field(
        default=None, max_length=FIELD_CHARS, description="vllm, deepspeed, pytorch, ..."
    )
    phase: str | None = Field(
        default=None, max_length=FIELD_CHARS, description="training, inference, startup, ..."
    )
    gpu: str | None = Field(
        default=None, max_length=FIELD_CHARS, description="GPU model, H100, A100, ..."
    )
    gpus: int | None = Field(
        default=None, ge=1, le=MAX_GPUS, description="How many GPUs the run uses."
    )
    model: str | None = Field(
        default=None, max_length=FIELD_CHARS, description="The model, llama-3-70b, ..."
    )
    notes: str | None = Field(
        default=None, max_length=NOTES_CHARS, description="Anything else, free text."
    )


def infer_context(text: str) -> dict[str, str]:
    """Framework, GPU, GPU count, model and phase that the text itself names."""
    head = text[:MAX_INFER_CHARS]
    lowered = lowered_ascii(head)
    found: dict[str, str] = {}
    for name, pattern in FRAMEWORK_PATTERNS:
        if pattern.search(head, lowered):
            found["framework"] = name
            break
    if gpu := GPU.search(head, lowered):
        found["gpu"] = gpu.group(1).upper().replace(" ", "")
    for count_pattern, needles in GPU_COUNT_RES:
        if lowered is not None and not holds_a_needle(lowered, needles):
            continue
        if count := count_pattern.search(head):
            found["gpus"] = count.group(1)
            break
    if model := MODEL.search(head, lowered):
        found["model"] = model.group(0).lower()
    for name, pattern in PHASE_PATTERNS:
        if pattern.search(head, lowered):
            found["phase"] = name
            break
    return found


@dataclass(frozen=True, slots=True)
class QueryContext:
    """The run's context for one query: what the user gave, what the text gave away, and
    the two merged (the user's word wins)."""

    given: dict[str, str]
    inferred: dict[str, str]
    fields: dict[str, str]

    @classmethod
    def of(cls, given: RunContext | None, inferred: dict[str, str]) -> QueryContext:
        stated = {} if given is None else given.model_dump(exclude_none=True)
        told = {key: str(value).strip() for key, value in stated.items() if str(value).strip()}
        return cls(told, dict(inferred), merge_context(given, inferred))


def merge_context(given: RunContext | None, inferred: dict[str, str]) -> dict[str, str]:
    """The fields to compare: what the user gave wins over what was inferred."""
    merged = dict(inferred)
    if given is not None:
        for key, value in given.model_dump(exclude_none=True).items():
            merged[key] = str(value)
    return {key: value.strip() for key, value in merged.items() if value.strip()}
