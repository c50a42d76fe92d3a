"""Reading what a person types about their run: framework names with versions and extra
words, phase words and their synonyms, GPU counts as people write them (`8x H100`,
`2 x 8`, `8 (tp=8)`). Each reader returns what it understood, or nothing; what a field
holds beyond that is the caller's to keep as notes and report (`context.read_context`).
"""

from __future__ import annotations

import re

from .either_case import EitherCase

# GPU models as people and logs name them.
GPU_MODELS = (
    r"(?:GH|GB)200|[HBA]100|H200|H20|B200|A10G?|A30|A40|A6000|L40S?|L4|V100|T4|P100|MI\d{3}X?"
    r"|RTX\s?\d{4}(?:\s?Ti)?"
)
GPU = EitherCase.of(rf"\b(?:NVIDIA\s+)?({GPU_MODELS})\b")

# Canonical framework names, each with the spellings that name it (lower case, as whole
# words; `-`, `_`, `.` and spaces inside a name are interchangeable). Most specific first:
# "PyTorch Lightning" names Lightning (and PyTorch), "Megatron-DeepSpeed" both.
FRAMEWORK_SPELLINGS: tuple[tuple[str, str], ...] = (
    ("vllm", r"vllm"),
    ("sglang", r"sglang"),
    ("tensorrt-llm", r"tensorrt[-_ ]?llm|trt[-_ ]?llm"),
    ("text-generation-inference", r"text[-_ ]generation[-_ ]inference|tgi"),
    ("llama.cpp", r"llama\.?cpp"),
    ("deepspeed", r"deepspeed|zero[-_ ]?[123]|ds[-_ ]?zero"),
    ("megatron", r"megatron(?:[-_ ]?(?:lm|core|bridge))?|m[-_ ]?core|nemo"),
    ("lightning", r"(?:pytorch[-_ ])?lightning|ptl"),
    ("accelerate", r"accelerate"),
    ("transformers", r"transformers|hf[-_ ]?trainer|hugging[-_ ]?face(?:[-_ ]trainer)?|hf"),
    ("trl", r"trl"),
    ("peft", r"peft|lora|qlora"),
    ("unsloth", r"unsloth"),
    ("llamafactory", r"llama[-_ ]?factory"),
    ("verl", r"verl"),
    ("openrlhf", r"openrlhf"),
    ("ray", r"ray(?:[-_ ]serve|[-_ ]train)?"),
    ("torchtitan", r"torchtitan"),
    ("torchtune", r"torchtune"),
    ("colossalai", r"colossal[-_ ]?ai"),
    ("fairseq", r"fairseq"),
    ("jax", r"jax(?:lib)?|xla|flax|maxtext"),
    ("tensorflow", r"tensorflow|tf|keras"),
    ("paddlepaddle", r"paddle(?:paddle)?"),
    ("triton", r"triton"),
    ("flash-attn", r"flash[-_ ]?attn|flash[-_ ]?attention"),
    ("transformer-engine", r"transformer[-_ ]?engine|te"),
    ("torchrun", r"torchrun|torch\.distributed\.(?:run|launch)|elastic"),
    ("pytorch", r"pytorch|torch|ddp|fsdp2?|torchrun|torch\.distributed"),
    ("nccl", r"nccl"),
    ("cuda", r"cuda"),
    ("dcgm", r"dcgm|dcgmi"),
)
# A framework's other names in a reference's `frameworks` list.
FRAMEWORK_ALIASES = {
    "torch": "pytorch",
    "megatron-lm": "megatron",
    "megatron-core": "megatron",
    "nemo": "megatron",
    "pytorch-lightning": "lightning",
    "lightning-ai": "lightning",
    "tf": "tensorflow",
    "trtllm": "tensorrt-llm",
    "tgi": "text-generation-inference",
}
_FRAMEWORKS = tuple(
    (name, re.compile(rf"(?<![\w.-])(?:{spelling})(?![a-z0-9_])"))
    for name, spelling in FRAMEWORK_SPELLINGS
)

# Canonical phases (`references.document.PHASES`) each phrase names. An RL run trains
# and generates; evaluation is either, so neither can contradict it.
PHASE_WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("fine-tuning", "inference"),
        r"rlhf|rl|ppo|grpo|dapo|rloo|reinforcement learning|rollouts?|online rl",
    ),
    (("training", "inference"), r"eval|evaluation|evaluating|validation|validating"),
    (
        ("fine-tuning",),
        r"fine[-_ ]?tun(?:e|es|ed|ing)|finetun(?:e|ed|ing)|sft|lora|qlora|peft|dpo|orpo|kto"
        r"|instruction[-_ ]tuning|alignment|post[-_ ]?training",
    ),
    (
        ("training",),
        r"train(?:s|ed|ing)?|pre[-_ ]?train(?:ed|ing)?|continued pre[-_ ]?training|cpt"
        r"|distillation|backward(?: pass)?|optimi[sz]er step|(?:first |training )?steps?"
        r"|epochs?|iterations?",
    ),
    (
        ("inference",),
        r"inference|infer|serving|serve|server|deploy(?:ment|ed|ing)?|production|online"
        r"|offline|benchmark(?:s|ing)?|bench|load[-_ ]?test(?:ing)?|stress[-_ ]?test"
        r"|generation|generate|generating|decod(?:e|ing)|prefill|chat|api server"
        r"|openai[-_ ]?(?:compatible )?server|requests?|sampling",
    ),
    (
        ("startup",),
        r"start[-_ ]?up|starting|start|init|initiali[sz](?:e|ed|ing|ation)|launch(?:ing)?"
        r"|boot(?:ing)?|warm[-_ ]?up|loading(?: the)? (?:model|weights|checkpoint)"
        r"|model load(?:ing)?|weight load(?:ing)?|rendezvous|profil(?:e|ing) run"
        r"|cuda graph capture|graph capture|capturing",
    ),
    (("checkpointing",), r"checkpoint(?:s|ing)?|sav(?:e|es|ing)(?: checkpoints?)?|resum(?:e|ing)"),
    (
        ("compilation",),
        r"compil(?:e|es|ed|ing|ation)|torch\.compile|inductor|dynamo|jit|tracing"
        r"|engine build(?:ing)?|build(?:ing)? (?:the )?engine",
    ),
    (
        ("data-loading",),
        r"data[-_ ]?load(?:ing|er)|data pipeline|preprocess(?:ing)?|tokeni[sz](?:e|ing|ation)"
        r"|dataset",
    ),
)
_PHASES = tuple(
    (phases, re.compile(rf"(?<![\w-])(?:{words})(?![\w-])")) for phases, words in PHASE_WORDS
)

NUMBER_WORDS = {
    "one": 1,
    "single": 1,
    "a single": 1,
    "two": 2,
    "dual": 2,
    "three": 3,
    "four": 4,
    "quad": 4,
    "six": 6,
    "eight": 8,
    "sixteen": 16,
}
# A number standing alone: not the 100 of `H100`, not a version's `0.8`.
_NUMBER = r"(?<![A-Za-z\d.])(\d+)"
_DEVICES = r"(?:gpus?|cards?|devices?|accelerators?|ranks?|processes)"
_MODEL = rf"(?:nvidia\s+)?(?:{GPU_MODELS})\b"
# What people write for a count, most telling first; each gives one or two numbers (two
# multiply: nodes times GPUs per node).
_COUNTS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"{_NUMBER}\s*(?:nodes?|machines?|hosts?|servers?)\s*(?:[x×*]|of|with|each with|,)?\s*"
        rf"(\d+)\s*(?:{_DEVICES}|{_MODEL})?",
        rf"{_NUMBER}\s*[x×*]\s*(\d+)(?!\s*(?:g|gb|gib|mb)\b)(?!\d)",
        rf"{_NUMBER}\s*[x×*]\s*\d+\s*(?:g|gb|gib)\b",
        rf"{_NUMBER}\s*[x×*]?\s*(?:{_MODEL}|{_DEVICES})",
        rf"(?:{_MODEL}[\w-]*|{_DEVICES})\s*[x×*]\s*(\d+)(?![\d.])",
        r"^\s*(\d+)(?![\w.])",
        r"\b(?:world[_ ]size|nproc[_ ]per[_ ]node|num[_ ]gpus|n[_ ]gpus|tp|tp[_ ]size"
        r"|tensor[_ ]parallel[_ ]size)\s*[=:]?\s*(\d+)",
    )
)
_GPU_IN_WORDS = re.compile(
    rf"(?:(?<![A-Za-z\d])|(?<=\d[xX×]))({GPU_MODELS})(?![A-Za-z\d])", re.IGNORECASE
)
_WORD_COUNT = re.compile(
    rf"\b({'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})\s+(?:{_MODEL}\s*)?{_DEVICES}",
    re.IGNORECASE,
)


def framework_names(text: str) -> tuple[str, ...]:
    """The canonical frameworks a free text names, in the table's order (most specific
    first), each once: `vLLM 0.8 (OpenAI server)` -> ("vllm",)."""
    lowered = text.lower()
    return tuple(name for name, pattern in _FRAMEWORKS if pattern.search(lowered))


def framework_name(name: str) -> str:
    """A framework's name as a reference lists it, compared: lower case, alias resolved."""
    return FRAMEWORK_ALIASES.get(name.lower(), name.lower())


def phase_names(text: str) -> tuple[str, ...]:
    """The canonical phases a free text names, each once, in `PHASES` order of first
    mention: `SFT (step 61)` -> ("fine-tuning", "training"); none when no word is known."""
    lowered = text.lower()
    found: dict[str, None] = {}
    for phases, pattern in _PHASES:
        if pattern.search(lowered):
            found.update(dict.fromkeys(phases))
    return tuple(found)


def gpu_count(text: str) -> int | None:
    """The number of GPUs a free text gives: `8x H100` = 8, `2 x 8` = 16, `2 nodes x 8
    GPUs` = 16, `8 (tensor_parallel_size=8)` = 8, `single GPU` = 1; None when it gives none."""
    for pattern in _COUNTS:
        if found := pattern.search(text):
            numbers = [int(group) for group in found.groups() if group is not None]
            count = 1
            for number in numbers:
                count *= number
            return count
    if found := _WORD_COUNT.search(text):
        return NUMBER_WORDS[found.group(1).lower()]
    return None


def gpu_model(text: str) -> str | None:
    """The GPU model a free text names (`H100 80GB HBM3`, `4xA100` -> `H100`, `A100`),
    upper case."""
    found = _GPU_IN_WORDS.search(text)
    return None if found is None else found.group(1).upper().replace(" ", "")
