"""Run context: what the user says about their run, read as well as it can be (each free
text field is read for what it names: `context_words`), and what the text gives away.

What a context says of each reference is `index.context_terms`; when it contradicts one,
`judging.gates`. Nothing a person can type is refused: what a field holds beyond what was
understood is kept as notes, and what cannot be read is reported (`ReadContext.ignored`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .context_words import GPU, framework_names, gpu_count, gpu_model, phase_names
from .either_case import EitherCase, holds_a_needle, lowered_ascii

# Text beyond this is not searched for context: the head of a log names the framework
# and GPU, and a 50 MB paste must not cost a second here (about 30 ms for 64 KiB).
MAX_INFER_CHARS = 64 * 1024
# A framework, phase, GPU or model name is a few words; notes a few sentences. What is
# longer is read up to here and the rest reported, so that an answer never carries a
# request back many times over.
FIELD_CHARS = 200
NOTES_CHARS = 1000
# Keys beyond the known ones are read as notes, this many at most.
MAX_EXTRA_KEYS = 16
# More GPUs than any cluster has.
MAX_GPUS = 1_000_000

# Engines first, then the libraries every job uses: a DeepSpeed log also mentions torch
# and NCCL, and every framework named is kept. Each pattern comes
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
        ("pytorch", ("torch",), r"\btorch\b|\bpytorch\b"),
        ("nccl", ("nccl",), r"\bnccl\b|(?-i:NCCL)"),  # also WorkNCCL, ProcessGroupNCCL
        ("cuda", ("cuda",), r"\bcuda\b"),
    )
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


ContextValue = JsonValue


class RunContext(BaseModel):
    """What the user says about their run, in their own words: every field optional, any
    JSON value accepted (numbers and lists too), and keys beyond these kept as notes.
    Nothing here is refused; `read_context` says what was understood."""

    model_config = ConfigDict(frozen=True, extra="allow")

    framework: ContextValue = Field(
        default=None,
        description="Engines and libraries in your words: `vLLM 0.8 (OpenAI server)`, "
        "`PyTorch DDP (torchrun)`, `DeepSpeed ZeRO-3 + HF Trainer`.",
    )
    phase: ContextValue = Field(
        default=None,
        description="What the run was doing: training, SFT, pre-training, serving, "
        "benchmark, startup, checkpoint save, ...",
    )
    gpu: ContextValue = Field(default=None, description="GPU model: H100, A100 80GB, ...")
    gpus: ContextValue = Field(
        default=None,
        description="How many GPUs, as you would write it: 8, `8x H100`, `2 x 8`, "
        "`2 nodes x 8 GPUs`, `8 (tensor_parallel_size=8)`.",
    )
    model: ContextValue = Field(default=None, description="The model, llama-3-70b, ...")
    notes: ContextValue = Field(default=None, description="Anything else, free text.")


@dataclass(frozen=True, slots=True)
class ContextFields:
    """What a context says, read: canonical framework and phase names, a GPU model and
    count, the model and notes as given. Hashable: context verdicts are kept per value."""

    frameworks: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    gpu: str | None = None
    gpus: int | None = None
    model: str | None = None
    notes: str | None = None

    def __bool__(self) -> bool:
        return any((self.frameworks, self.phases, self.gpu, self.gpus, self.model, self.notes))

    def count(self) -> int:
        """How many fields hold something (each can lift a score once)."""
        return sum(
            map(bool, (self.frameworks, self.phases, self.gpu, self.gpus, self.model, self.notes))
        )

    def shown(self) -> dict[str, str]:
        """The fields as words, for pages and JSON: `{"framework": "vllm, pytorch"}`."""
        values = {
            "framework": ", ".join(self.frameworks),
            "phase": ", ".join(self.phases),
            "gpu": self.gpu or "",
            "gpus": "" if self.gpus is None else str(self.gpus),
            "model": self.model or "",
            "notes": self.notes or "",
        }
        return {key: value for key, value in values.items() if value}


@dataclass(frozen=True, slots=True)
class ReadContext:
    """A run context as the user gave it, read: the fields understood, each field's text
    as typed (`said`, what reasons quote), and what could not be read (`ignored`)."""

    fields: ContextFields
    said: dict[str, str]
    ignored: tuple[str, ...]


NO_FIELDS = ContextFields()
NO_CONTEXT = ReadContext(NO_FIELDS, {}, ())


def read_context(context: RunContext | None) -> ReadContext:
    """Each field read for what it names; words that name nothing known kept as notes and
    reported in `ignored`, values cut at FIELD_CHARS (notes at NOTES_CHARS) reported too."""
    if context is None:
        return NO_CONTEXT
    ignored: list[str] = []
    said: dict[str, str] = {}
    extras = dict(context.model_extra or {})
    given = {key: getattr(context, key) for key in ("framework", "phase", "gpu", "gpus", "model")}
    for key, value in given.items():
        if (text := _as_text(key, value, FIELD_CHARS, ignored)) is not None:
            said[key] = text
    notes = (
        [] if (note := _as_text("notes", context.notes, NOTES_CHARS, ignored)) is None else [note]
    )
    for number, (key, value) in enumerate(extras.items()):
        if number >= MAX_EXTRA_KEYS:
            ignored.append(f"{len(extras) - MAX_EXTRA_KEYS} more keys beyond {MAX_EXTRA_KEYS}")
            break
        if (text := _as_text(str(key)[:40], value, FIELD_CHARS, ignored)) is not None:
            notes.append(f"{str(key)[:40]}: {text}")
    frameworks = framework_names(said.get("framework", ""))
    if "framework" in said and not frameworks:
        ignored.append(f"framework: “{said['framework']}” names no framework failref knows")
    phases = phase_names(said.get("phase", ""))
    if "phase" in said and not phases:
        ignored.append(f"phase: “{said['phase']}” names no phase failref knows")
    gpu = gpu_model(said["gpu"]) if "gpu" in said else None
    if "gpu" in said and gpu is None:
        notes.append(f"gpu: {said['gpu']}")
        ignored.append(f"gpu: “{said['gpu']}” names no GPU model failref knows; kept as notes")
    count = None
    if "gpus" in said:
        count = gpu_count(said["gpus"])
        gpu = gpu or gpu_model(said["gpus"])
        if count is None or not 1 <= count <= MAX_GPUS:
            notes.append(f"gpus: {said['gpus']}")
            ignored.append(f"GPU count: “{said['gpus']}” gives no number of GPUs; kept as notes")
            count = None
    if "notes" in said or notes:
        said["notes"] = "; ".join(notes)
    fields = ContextFields(
        frameworks=frameworks,
        phases=phases,
        gpu=gpu,
        gpus=count,
        model=said.get("model"),
        notes="; ".join(notes)[:NOTES_CHARS] or None,
    )
    return ReadContext(fields, said, tuple(ignored))


def _as_text(key: str, value: JsonValue, limit: int, ignored: list[str]) -> str | None:
    """A value as text (numbers as written, lists joined), cut at `limit`; None for nothing."""
    if value is None:
        return None
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, int | float | str):
        text = str(value)
    elif isinstance(value, list) and all(isinstance(item, int | float | str) for item in value):
        text = ", ".join(map(str, value))
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = " ".join(text.split())
    if len(text) > limit:
        ignored.append(f"{key}: only the first {limit} characters were read")
        text = text[:limit]
    return text or None


def infer_context(text: str) -> ContextFields:
    """Frameworks, GPU, GPU count, model and phase that the text itself names."""
    head = text[:MAX_INFER_CHARS]
    lowered = lowered_ascii(head)
    frameworks = tuple(
        name for name, pattern in FRAMEWORK_PATTERNS if pattern.search(head, lowered)
    )
    gpu = None
    if found := GPU.search(head, lowered):
        gpu = found.group(1).upper().replace(" ", "")
    count = None
    for count_pattern, needles in GPU_COUNT_RES:
        if lowered is not None and not holds_a_needle(lowered, needles):
            continue
        if found_count := count_pattern.search(head):
            count = int(found_count.group(1))
            break
    model = None
    if found_model := MODEL.search(head, lowered):
        model = found_model.group(0).lower()
    phase = next((name for name, pattern in PHASE_PATTERNS if pattern.search(head, lowered)), None)
    return ContextFields(
        frameworks=frameworks,
        phases=() if phase is None else (phase,),
        gpu=gpu,
        gpus=count if count is not None and 1 <= count <= MAX_GPUS else None,
        model=model,
    )


@dataclass(frozen=True, slots=True)
class QueryContext:
    """The run's context for one query: what the user gave, read, and what the text gave
    away. The user's fields gate and lift; the text's only lift (a guess from words)."""

    given: ContextFields
    inferred: ContextFields
    said: dict[str, str]
    ignored: tuple[str, ...] = ()

    @classmethod
    def of(cls, given: RunContext | None, inferred: ContextFields) -> QueryContext:
        read = read_context(given)
        return cls(read.fields, inferred, read.said, read.ignored)

    @property
    def key(self) -> tuple[ContextFields, ContextFields]:
        """What the context verdicts depend on (`index.context_terms.ContextVerdicts`)."""
        return self.given, self.inferred

    def count(self) -> int:
        """How many fields, given or inferred, could lift a score."""
        return len({*_filled(self.given), *_filled(self.inferred)})


def _filled(fields: ContextFields) -> set[str]:
    return {key for key in ContextFields.__slots__ if getattr(fields, key)}
