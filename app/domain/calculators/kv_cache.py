"""`kv-cache`: how much memory the KV cache of a batch of sequences needs, and what fits."""

from __future__ import annotations

import math

from .calculator import Calculator, InputValues
from .extract import TO_GB, ExtractionRule
from .limits import bytes_per_value_input
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "kv-cache"
BYTES_PER_GB = 1e9
BYTES_PER_MB = 1e6
# Ten thousand layers or heads is far beyond any published model.
MAX_MODEL_DIM = 10_000
# Head dimensions beyond 100,000 do not exist; larger is a unit mistake.
MAX_HEAD_DIM = 100_000
# A direct bytes-per-token below one byte is not a real model; it would also
# make max_sequences astronomically large.
MIN_DIRECT_BYTES_PER_TOKEN = 1.0
# 1 GB per token would be a model thousands of times larger than any today.
MAX_BYTES_PER_TOKEN = 1e9
# Ten million concurrent sequences is beyond any serving fleet's batch.
MAX_SEQUENCES = 10_000_000
# A hundred million tokens per sequence is beyond any context window.
MAX_TOKENS = 100_000_000
# 1 MB is the smallest memory worth asking about, and a safe divisor.
MIN_CAPACITY_GB = 0.001
# Ten million GB (10 PB) of KV memory is beyond any cluster.
MAX_CAPACITY_GB = 10_000_000.0
# Keeps floor(capacity / bytes) exact when the capacity is an exact multiple.
FLOOR_TOLERANCE = 1e-12
# A trillion cached tokens is beyond any server (vLLM prints about a million per GPU).
MAX_CACHE_TOKENS = 1_000_000_000_000


def derived_bytes_per_token(
    layers: int, kv_heads: int, head_dim: int, bytes_per_value: float
) -> float:
    """2 (K and V) · layers · KV heads · head dimension · bytes per value."""
    return 2.0 * layers * kv_heads * head_dim * bytes_per_value


def _bytes_per_token(values: InputValues) -> float:
    direct = values.optional_number("bytes_per_token")
    if direct is None:
        return derived_bytes_per_token(
            values.integer("layers"),
            values.integer("kv_heads"),
            values.integer("head_dim"),
            values.number("bytes_per_value"),
        )
    return direct


def _capacity_tokens(values: InputValues, bytes_per_token: float) -> float:
    """The tokens the cache holds: the server's own count when given (it knows its block
    layout and dtype), else the memory divided by the bytes per token."""
    counted = values.optional_number("cache_tokens")
    if counted is not None:
        return counted
    return values.number("capacity_gb") * BYTES_PER_GB / bytes_per_token


def _compute(values: InputValues) -> dict[str, OutputValue]:
    bytes_per_token = _bytes_per_token(values)
    sequences = values.integer("sequences")
    tokens = values.integer("tokens_per_sequence")
    block_tokens = values.integer("block_tokens")
    sequence_bytes = bytes_per_token * tokens
    total_bytes = sequence_bytes * sequences
    capacity_tokens = _capacity_tokens(values, bytes_per_token)
    max_sequences = math.floor(capacity_tokens / tokens * (1 + FLOOR_TOLERANCE))
    blocks_per_sequence = -(-tokens // block_tokens)
    paged_bytes = sequences * blocks_per_sequence * block_tokens * bytes_per_token
    return {
        "bytes_per_token": bytes_per_token,
        "kv_mb_per_token": bytes_per_token / BYTES_PER_MB,
        "gb_per_sequence": sequence_bytes / BYTES_PER_GB,
        "total_gb": total_bytes / BYTES_PER_GB,
        "capacity_tokens": math.floor(capacity_tokens * (1 + FLOOR_TOLERANCE)),
        "utilization": sequences * tokens / capacity_tokens,
        "fits": sequences <= max_sequences,
        "max_sequences": max_sequences,
        "blocks": sequences * blocks_per_sequence,
        "paged_gb": paged_bytes / BYTES_PER_GB,
    }


def _model_dim(name: str, label: str, default: int, maximum: int, help_text: str) -> InputSpec:
    return InputSpec(name, label, "", "integer", default, 1, maximum, help=help_text)


INPUTS = (
    _model_dim("layers", "Layers", 80, MAX_MODEL_DIM, "Transformer layers (Llama 2 70B: 80)."),
    _model_dim(
        "kv_heads",
        "KV heads",
        8,
        MAX_MODEL_DIM,
        "Key/value heads per layer; fewer than query heads with GQA (Llama 2 70B: 8).",
    ),
    _model_dim("head_dim", "Head dimension", 128, MAX_HEAD_DIM, "Per head (Llama 2 70B: 128)."),
    bytes_per_value_input(
        "Bytes per value",
        "Storage of one cached number: 2 for fp16/bf16, 1 for fp8, 0.5 for int4.",
    ),
    InputSpec(
        "bytes_per_token",
        "Bytes per token (direct)",
        "bytes",
        "number",
        None,
        minimum=MIN_DIRECT_BYTES_PER_TOKEN,
        maximum=MAX_BYTES_PER_TOKEN,
        help="KV bytes per token if known; leave it empty to derive it from the four model "
        "inputs above.",
        optional=True,
    ),
    InputSpec(
        "sequences",
        "Concurrent sequences",
        "sequences",
        "integer",
        512,
        minimum=1,
        maximum=MAX_SEQUENCES,
        help="Sequences whose KV cache is held at the same time.",
    ),
    InputSpec(
        "tokens_per_sequence",
        "Tokens per sequence",
        "tokens",
        "integer",
        4096,
        minimum=1,
        maximum=MAX_TOKENS,
        help="Prompt plus generated tokens cached for each sequence.",
    ),
    InputSpec(
        "capacity_gb",
        "KV cache memory",
        "GB",
        "number",
        1000.0,
        minimum=MIN_CAPACITY_GB,
        maximum=MAX_CAPACITY_GB,
        help="Memory left for the KV cache after weights and activations, in 10^9 bytes.",
    ),
    InputSpec(
        "cache_tokens",
        "KV cache size, as the server prints it",
        "tokens",
        "integer",
        None,
        minimum=1,
        maximum=MAX_CACHE_TOKENS,
        help="vLLM prints it at start-up (GPU KV cache size: 1,028,832 tokens); when "
        "given, it replaces KV cache memory / bytes per token in what fits. Leave it empty "
        "to work it out from the memory.",
        optional=True,
    ),
    InputSpec(
        "block_tokens",
        "Tokens per block",
        "tokens",
        "integer",
        16,
        minimum=1,
        maximum=MAX_TOKENS,
        help="Paged-attention block size (vLLM's default is 16).",
    ),
)

OUTPUTS = (
    OutputSpec("bytes_per_token", "KV bytes per token", "bytes"),
    OutputSpec("kv_mb_per_token", "KV per token", "MB"),
    OutputSpec("gb_per_sequence", "KV per sequence", "GB"),
    OutputSpec("total_gb", "KV cache needed", "GB", "sequences · tokens · bytes per token."),
    OutputSpec(
        "capacity_tokens",
        "Tokens the cache holds",
        "tokens",
        "The server's count when given, else memory / bytes per token.",
    ),
    OutputSpec(
        "utilization",
        "Share of the cache needed",
        "fraction",
        "sequences · tokens / tokens the cache holds; above 1 does not fit.",
    ),
    OutputSpec("fits", "Fits", "", "sequences ≤ max_sequences."),
    OutputSpec(
        "max_sequences",
        "Sequences that fit",
        "sequences",
        "floor(tokens the cache holds / tokens per sequence).",
    ),
    OutputSpec("blocks", "Paged blocks", "blocks", "sequences · ceil(tokens / block)."),
    OutputSpec("paged_gb", "KV cache in whole blocks", "GB", "Blocks · block · bytes per token."),
)

# vLLM's error when one request of the model's length does not fit (`model's` in
# vllm/v1/core/kv_cache_planning.py of vLLM 0.34, `models's` before; the labelled set's
# kv-cache-exhaustion lines): the length, the GiB it needs, so the bytes per token, and
# the GiB there are. Releases that printed `GB` are not read: which unit it meant is not
# said.
_SEQUENCE_DOES_NOT_FIT = (
    "ValueError: To serve at least one request with the models's max seq len (131072), "
    "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory "
    "(0.71 GiB). Based on the available memory, the estimated maximum model length is "
    "5632. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
    "initializing the engine."
)
TO_BYTES = {"GiB": 1024.0**3, "MiB": 1024.0**2}

# vLLM's start-up lines: the memory left for the KV cache, the tokens that memory holds
# and the request length its concurrency is reported for (tests/data/labelled/healthy.yaml,
# tests/data/wholelogs/healthy_vllm_server_startup.log); and its error when one request
# does not fit.
EXTRACT = (
    ExtractionRule(
        "tokens_per_sequence",
        r"max seq len \((?P<value>[0-9][0-9,]*)\), \([0-9.]+ (?:GiB|MiB) KV cache is needed",
        example=_SEQUENCE_DOES_NOT_FIT,
        sets=(("sequences", "1"),),  # "to serve at least one request"
    ),
    ExtractionRule(
        "bytes_per_token",
        r"max seq len \((?P<per>[0-9][0-9,]*)\), \((?P<value>[0-9][0-9.,]*) "
        r"(?P<unit>GiB|MiB) KV cache is needed",
        units=TO_BYTES,
        example=_SEQUENCE_DOES_NOT_FIT,
    ),
    ExtractionRule(
        "capacity_gb",
        r"larger than the available KV cache memory \((?P<value>[0-9][0-9.,]*) "
        r"(?P<unit>GiB|MiB)\)",
        units=TO_GB,
        example=_SEQUENCE_DOES_NOT_FIT,
    ),
    ExtractionRule(
        "capacity_gb",
        r"Available KV cache memory: (?P<value>[0-9][0-9.,]*) (?P<unit>GiB|MiB)",
        units=TO_GB,
        example="INFO 01-29 05:21:42 [gpu_worker.py:356] Available KV cache memory: 64.73 GiB",
    ),
    ExtractionRule(
        "cache_tokens",
        r"GPU KV cache size: (?P<value>[0-9][0-9,]*) tokens",
        example="INFO 06-10 06:16:44 [kv_cache_utils.py:637] GPU KV cache size: 1,028,832 tokens",
    ),
    ExtractionRule(
        "tokens_per_sequence",
        r"Maximum concurrency for (?P<value>[0-9][0-9,]*) tokens per request",
        example=(
            "INFO 06-10 06:16:44 [kv_cache_utils.py:640] Maximum concurrency for 131,072 "
            "tokens per request: 7.85x"
        ),
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="KV cache size",
    summary=(
        "The KV cache grows with every token of every concurrent sequence; when it no longer "
        "fits, a server preempts, swaps or rejects requests. Defaults: Llama 2 70B (80 "
        "layers, 8 KV heads, head dimension 128, bf16), 512 sequences of 4,096 tokens "
        "against 1,000 GB. The token count a server prints at start-up, when given, "
        "replaces the memory in what fits."
    ),
    formula=(
        "bytes per token = 2 · layers · kv_heads · head_dim · bytes_per_value; total = "
        "sequences · tokens · bytes per token; cache tokens = the server's count, else "
        "capacity / bytes per token; max sequences = floor(cache tokens / tokens); blocks = "
        "sequences · ceil(tokens / block_tokens)"
    ),
    source_title="Efficient Memory Management for Large Language Model Serving with PagedAttention",
    source_url="https://arxiv.org/abs/2309.06180",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
    see_also=(
        Source(
            "Llama 2: Open Foundation and Fine-Tuned Chat Models (model dimensions)",
            "https://arxiv.org/abs/2307.09288",
        ),
    ),
)
