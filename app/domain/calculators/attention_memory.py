"""`attention-memory`: what one attention call allocates on the math path of
scaled_dot_product_attention (the full score matrix) against a fused kernel that keeps
only its output and one softmax statistic per query row (Dao et al., FlashAttention).

The math path follows `_scaled_dot_product_attention_math` in PyTorch's attention.cpp:
from 2.5 on it upcasts fp16/bf16 q, k and v to fp32 unless
`torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)` is set, normalises with
`_safe_softmax` (which also builds a one-byte `isneginf` mask of the scores) and casts the
output and the attention weights back to the input dtype."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .extract import CUDA_TOTAL_CAPACITY, TO_GIB, ExtractionRule
from .limits import bytes_per_value_input
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "attention-memory"
BYTES_PER_GIB = 2**30
# The dropout mask PyTorch keeps for backward holds one byte per element (a bool tensor);
# NVIDIA/Megatron-LM#965 measured dropout adding 1.5x the 16-bit softmax output.
DROPOUT_MASK_BYTES = 1.0
# FlashAttention keeps the log-sum-exp of every query row in fp32 for its backward pass
# (`softmax_lse`, shape batch x heads x seqlen_q, kFloat, in flash_api.cpp).
LSE_BYTES = 4.0
# `_safe_softmax` marks the -inf scores in a bool tensor of the scores' shape.
GUARD_MASK_BYTES = 1.0
# The math path's accumulation type for 16-bit inputs when it upcasts (kFloat).
UPCAST_BYTES = 4.0
HALF_BYTES = 2.0
PHASES = ("training", "training-dropout", "inference")
# fp32: PyTorch 2.5+ default (16-bit inputs upcast, `_safe_softmax`); reduced: 2.5+ with
# allow_fp16_bf16_reduction_math_sdp(True); pre-2.5: 2.0 to 2.4 (input dtype, plain softmax).
PRECISIONS = ("fp32", "reduced", "pre-2.5")
# Beyond any published model or serving batch; larger is a unit mistake.
MAX_BATCH = 1_000_000
MAX_HEADS = 100_000
MAX_SEQUENCE = 10_000_000
MAX_HEAD_DIM = 65_536
MIN_CAPACITY_GIB = 0.001
MAX_CAPACITY_GIB = 100_000.0


def math_peak_bytes(
    score: float, output: float, mask: float, guard: float, cast_back: float, phase: str
) -> float:
    """Peak bytes of the math path for one call, beyond q, k and v and their copies.

    While the softmax runs, the raw scores, their softmax and (with `_safe_softmax`) its
    one-byte guard mask are alive. At the end the softmax output (with dropout also its mask
    and the dropped-out copy), the output and, when the path upcast, the output and the
    attention weights cast back to the input dtype are alive together.
    """
    during_softmax = 2 * score + guard
    kept = 2 * score + mask if phase == "training-dropout" else score
    return max(during_softmax, kept + output + cast_back)


def math_saved_bytes(score: float, mask: float, phase: str) -> float:
    """Bytes the math path keeps for backward: the softmax output, and with dropout its
    mask and the dropped-out copy the value matmul saves."""
    if phase == "inference":
        return 0.0
    if phase == "training-dropout":
        return 2 * score + mask
    return score


def _compute(values: InputValues) -> dict[str, OutputValue]:
    batch, heads = values.integer("batch"), values.integer("heads")
    query, key = values.integer("query_length"), values.integer("key_length")
    head_dim, phase = values.integer("head_dim"), values.choice("phase")
    precision = values.choice("math_precision")
    width = values.number("bytes_per_value")
    upcast = precision == "fp32" and width == HALF_BYTES
    score_width = UPCAST_BYTES if upcast else width
    elements = float(batch * heads * query * key)
    rows = float(batch * heads * query)
    score = elements * score_width
    mask = elements * DROPOUT_MASK_BYTES if phase == "training-dropout" else 0.0
    guard = elements * GUARD_MASK_BYTES if precision != "pre-2.5" else 0.0
    output = rows * head_dim * width
    # Upcast: the value matmul's output is fp32 and `.to(origin_dtype)` copies it and the
    # attention weights back to 16 bits before the call returns.
    math_output = rows * head_dim * score_width
    cast_back = output + elements * width if upcast else 0.0
    fused = output + rows * LSE_BYTES
    math_peak = math_peak_bytes(score, math_output, mask, guard, cast_back, phase)
    return {
        "score_matrix_gib": score / BYTES_PER_GIB,
        "math_extra_gib": math_peak / BYTES_PER_GIB,
        "math_saved_gib": math_saved_bytes(score, mask, phase) / BYTES_PER_GIB,
        "fused_extra_gib": fused / BYTES_PER_GIB,
        "math_to_fused_ratio": math_peak / fused,
        "share_of_gpu_memory": math_peak / BYTES_PER_GIB / values.number("gpu_memory_gib"),
    }


def _integer(
    name: str, label: str, unit: str, default: int, maximum: int, help_text: str
) -> InputSpec:
    return InputSpec(name, label, unit, "integer", default, 1, maximum, help=help_text)


INPUTS = (
    _integer("batch", "Batch size", "sequences", 1, MAX_BATCH, "Sequences in one call (b)."),
    _integer(
        "heads",
        "Query heads",
        "",
        32,
        MAX_HEADS,
        "Attention heads of the query (h); with grouped-query attention the scores still "
        "have one matrix per query head.",
    ),
    _integer(
        "query_length",
        "Query length",
        "tokens",
        4096,
        MAX_SEQUENCE,
        "Query positions per sequence (seq_q); 1 for one decoding step.",
    ),
    _integer(
        "key_length",
        "Key length",
        "tokens",
        4096,
        MAX_SEQUENCE,
        "Key and value positions per sequence (seq_k), the cached context when decoding.",
    ),
    _integer("head_dim", "Head dimension", "", 128, MAX_HEAD_DIM, "Size of one head (d)."),
    bytes_per_value_input(
        "Bytes per value",
        (
            "Of q, k, v and the output: 2 for fp16/bf16, 4 for fp32 (inputs outside "
            "autocast). The scores take this width too, except when the math path "
            "upcasts 16-bit inputs (math precision fp32)."
        ),
    ),
    InputSpec(
        "math_precision",
        "Math path precision",
        "",
        "choice",
        "fp32",
        choices=PRECISIONS,
        help=(
            "fp32: PyTorch 2.5 and newer by default, 16-bit q, k, v upcast to fp32, so the "
            "scores take 4 bytes, and _safe_softmax adds a one-byte mask; reduced: 2.5 and "
            "newer with torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True), "
            "scores in the input dtype; pre-2.5: PyTorch 2.0 to 2.4, input dtype and a "
            "plain softmax."
        ),
    ),
    InputSpec(
        "phase",
        "Phase",
        "",
        "choice",
        "training",
        choices=PHASES,
        help=(
            "training: the softmax output is kept for backward; training-dropout: dropout "
            "on the attention weights adds its mask and the dropped-out copy; inference: "
            "nothing is kept."
        ),
    ),
    InputSpec(
        "gpu_memory_gib",
        "GPU memory",
        "GiB",
        "number",
        80.0,
        minimum=MIN_CAPACITY_GIB,
        maximum=MAX_CAPACITY_GIB,
        help="Only for the share output.",
    ),
)

OUTPUTS = (
    OutputSpec(
        "score_matrix_gib",
        "One score matrix",
        "GiB",
        "batch · heads · seq_q · seq_k · score bytes (4 when the math path upcasts 16-bit "
        "inputs): the matrix the math path builds.",
    ),
    OutputSpec(
        "math_extra_gib",
        "Math path, peak of one call",
        "GiB",
        "Beyond q, k, v and their scaled, upcast or GQA-expanded copies (linear in "
        "sequence length), output included: scores, softmax and the _safe_softmax mask "
        "side by side, or at the end the softmax (with dropout: its mask and the "
        "dropped-out copy), the output and the 16-bit copies cast back.",
    ),
    OutputSpec(
        "math_saved_gib",
        "Math path, kept for backward",
        "GiB",
        "Held from the forward to the backward pass in every layer; 0 in inference.",
    ),
    OutputSpec(
        "fused_extra_gib",
        "Fused kernel",
        "GiB",
        "The output and one fp32 log-sum-exp per query row; no seq_q × seq_k matrix.",
    ),
    OutputSpec("math_to_fused_ratio", "Math over fused", "×", "How much more the math path needs."),
    OutputSpec(
        "share_of_gpu_memory",
        "Share of GPU memory",
        "fraction",
        "The math path's peak for one call; weights and other activations come on top.",
    ),
)

# The GPU's memory, as PyTorch's CUDA out-of-memory message prints it.
EXTRACT = (
    ExtractionRule(
        "gpu_memory_gib",
        CUDA_TOTAL_CAPACITY,
        units=TO_GIB,
        # A real out-of-memory line (tests/data/labelled), cut after the capacity.
        example=(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has "
            "a total capacity of 15.77 GiB of which 514.19 MiB is free."
        ),
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Attention memory: math path against a fused kernel",
    summary=(
        "When scaled_dot_product_attention falls back to its math path it builds the full "
        "score matrix, quadratic in sequence length, in fp32 for 16-bit inputs since "
        "PyTorch 2.5; FlashAttention keeps only the output and one statistic per query "
        "row. Defaults: one sequence of 4,096 tokens, 32 heads of 128, bf16 inputs, "
        "PyTorch 2.5 or newer, training without attention dropout, an 80 GiB GPU."
    ),
    formula=(
        "E = b·h·seq_q·seq_k; S = E·s with s = 4 for 16-bit inputs on fp32, else the "
        "input bytes w; O = b·h·seq_q·d·w; math peak = max(2S + G, K + O·s/w + C) with "
        "G = E (the _safe_softmax mask, 0 on pre-2.5), K = S (dropout: 2S + E), C = O + "
        "E·w when upcast, else 0; kept for backward K, 0 in inference; "
        "fused = O + 4·b·h·seq_q"
    ),
    source_title="FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
    source_url="https://arxiv.org/abs/2205.14135",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
    see_also=(
        Source(
            "PyTorch _scaled_dot_product_attention_math and _safe_softmax (the math path: "
            "fp32 upcast, guard mask, cast back; attention.cpp)",
            "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/attention.cpp",
        ),
        Source(
            "PyTorch torch/backends/cuda/__init__.py (allow_fp16_bf16_reduction_math_sdp)",
            "https://github.com/pytorch/pytorch/blob/main/torch/backends/cuda/__init__.py",
        ),
        Source(
            "FlashAttention flash_api.cpp (output and fp32 softmax_lse per query row)",
            "https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp",
        ),
        Source(
            "NVIDIA/Megatron-LM#965 (memory added by softmax and attention dropout, measured)",
            "https://github.com/NVIDIA/Megatron-LM/issues/965",
        ),
    ),
)
