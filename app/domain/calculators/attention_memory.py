"""`attention-memory`: what one attention call allocates on the math path of
scaled_dot_product_attention (the full score matrix) against a fused kernel that keeps
only its output and one softmax statistic per query row (Dao et al., FlashAttention)."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .limits import MAX_BYTES_PER_VALUE, MIN_BYTES_PER_VALUE
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "attention-memory"
BYTES_PER_GIB = 2**30
# The dropout mask PyTorch keeps for backward holds one byte per element (a bool tensor);
# NVIDIA/Megatron-LM#965 measured dropout adding 1.5x the 16-bit softmax output.
DROPOUT_MASK_BYTES = 1.0
# FlashAttention keeps the log-sum-exp of every query row in fp32 for its backward pass
# (`softmax_lse`, shape batch x heads x seqlen_q, kFloat, in flash_api.cpp).
LSE_BYTES = 4.0
PHASES = ("training", "training-dropout", "inference")
# Beyond any published model or serving batch; larger is a unit mistake.
MAX_BATCH = 1_000_000
MAX_HEADS = 100_000
MAX_SEQUENCE = 10_000_000
MAX_HEAD_DIM = 65_536
MIN_CAPACITY_GIB = 0.001
MAX_CAPACITY_GIB = 100_000.0


def math_peak_bytes(score: float, output: float, mask: float, phase: str) -> float:
    """Peak bytes of the math path for one call, beyond q, k and v.

    The raw scores and their softmax are both alive while the softmax runs; with dropout
    the softmax output, the mask, the dropped-out copy and the output are alive together.
    """
    if phase == "training-dropout":
        return 2 * score + mask + output
    return max(2 * score, score + output)


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
    width = values.number("bytes_per_value")
    elements = float(batch * heads * query * key)
    score = elements * width
    mask = elements * DROPOUT_MASK_BYTES if phase == "training-dropout" else 0.0
    output = float(batch * heads * query * head_dim) * width
    fused = output + float(batch * heads * query) * LSE_BYTES
    math_peak = math_peak_bytes(score, output, mask, phase)
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
    InputSpec(
        "bytes_per_value",
        "Bytes per value",
        "bytes",
        "number",
        2.0,
        minimum=MIN_BYTES_PER_VALUE,
        maximum=MAX_BYTES_PER_VALUE,
        help=(
            "Of the scores and the output: 2 for fp16/bf16, 4 for fp32 (inputs outside "
            "autocast, or scores computed in fp32)."
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
        "batch · heads · seq_q · seq_k · bytes per value: the matrix the math path builds.",
    ),
    OutputSpec(
        "math_extra_gib",
        "Math path, peak of one call",
        "GiB",
        "Beyond q, k and v, output included: scores and softmax side by side (with dropout: "
        "softmax, mask, dropped-out copy and output).",
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

CALCULATOR = Calculator(
    name=NAME,
    title="Attention memory: math path against a fused kernel",
    summary=(
        "When scaled_dot_product_attention falls back to its math path it builds the full "
        "score matrix, quadratic in sequence length; FlashAttention keeps only the output "
        "and one statistic per query row. Defaults: one sequence of 4,096 tokens, 32 heads "
        "of 128, bf16, training without attention dropout, an 80 GiB GPU."
    ),
    formula=(
        "S = b·h·seq_q·seq_k·bytes; O = b·h·seq_q·d·bytes; math peak = max(2S, S + O), "
        "with dropout 2S + b·h·seq_q·seq_k·1 + O; kept for backward S (dropout: "
        "2S + b·h·seq_q·seq_k), 0 in inference; fused = O + 4·b·h·seq_q"
    ),
    source_title="FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
    source_url="https://arxiv.org/abs/2205.14135",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    see_also=(
        Source(
            "PyTorch _scaled_dot_product_attention_math (the math path, in attention.cpp)",
            "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/attention.cpp",
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
