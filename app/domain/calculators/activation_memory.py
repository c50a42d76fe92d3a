"""`activation-memory`: the activations a transformer stores for the backward pass, per
layer and per GPU, under tensor and sequence parallelism and each recomputation choice
(Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models")."""

from __future__ import annotations

from ...errors import CalculatorInputError
from .calculator import Calculator, InputValues
from .extract import CUDA_TOTAL_CAPACITY, TO_GIB, ExtractionRule
from .limits import bytes_per_value_input
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "activation-memory"
BYTES_PER_MIB = 2**20
BYTES_PER_GIB = 2**30
# The paper's coefficients are bytes per s·b·h for 16-bit activations: 34 for the
# linear parts of a layer (10 of them left replicated by tensor parallelism alone) and
# 5·a·s/h for the attention scores, softmax and dropout.
LINEAR_BYTES = 34.0
REPLICATED_BYTES = 10.0
SCORE_BYTES = 5.0
FULL_RECOMPUTE_BYTES = 2.0  # only the layer's input is kept
PAPER_BYTES_PER_VALUE = 2.0
RECOMPUTE = ("none", "selective", "full")
SEQUENCE_PARALLEL = ("on", "off")
# Beyond any published model or cluster; larger is a unit mistake.
MAX_SEQUENCE = 10_000_000
MAX_BATCH = 1_000_000
MAX_WIDTH = 1_000_000
MAX_HEADS = 100_000
MAX_LAYERS = 10_000
MAX_TENSOR_PARALLEL = 1_024
MIN_CAPACITY_GIB = 0.001
MAX_CAPACITY_GIB = 100_000.0


def per_layer_bytes(
    sbh: float, score_term: float, tensor_parallel: int, sequence_parallel: bool, recompute: str
) -> float:
    """Bytes one layer stores on one GPU, for 16-bit activations (the paper's Table 2)."""
    t = tensor_parallel
    sharded = sequence_parallel and t > 1
    if recompute == "full":
        return FULL_RECOMPUTE_BYTES * sbh / (t if sharded else 1)
    scores = 0.0 if recompute == "selective" else score_term
    if sharded:
        return sbh * (LINEAR_BYTES + scores) / t
    return sbh * (REPLICATED_BYTES + (LINEAR_BYTES - REPLICATED_BYTES + scores) / t)


def _check(values: InputValues) -> None:
    heads, hidden = values.integer("attention_heads"), values.integer("hidden_size")
    if heads > hidden:
        raise CalculatorInputError("attention_heads", "must not exceed Hidden size")
    if heads % values.integer("tensor_parallel"):
        raise CalculatorInputError(
            "tensor_parallel", "must divide the attention heads (each GPU holds whole heads)"
        )


def _compute(values: InputValues) -> dict[str, OutputValue]:
    _check(values)
    s, b = values.integer("sequence_length"), values.integer("micro_batch")
    h, a = values.integer("hidden_size"), values.integer("attention_heads")
    t, layers = values.integer("tensor_parallel"), values.integer("layers")
    sequence_parallel = values.choice("sequence_parallel") == "on"
    scale = values.number("bytes_per_value") / PAPER_BYTES_PER_VALUE
    sbh = float(s * b * h)
    score_term = SCORE_BYTES * a * s / h
    layer = per_layer_bytes(sbh, score_term, t, sequence_parallel, values.choice("recompute"))
    baseline = per_layer_bytes(sbh, score_term, t, sequence_parallel, "none")
    total_gib = layer * scale * layers / BYTES_PER_GIB
    return {
        "sbh_bytes": sbh,
        "score_term": score_term,
        "per_layer_mib": layer * scale / BYTES_PER_MIB,
        "activation_gib": total_gib,
        "no_recompute_gib": baseline * scale * layers / BYTES_PER_GIB,
        "share_of_capacity": total_gib / values.number("capacity_gib"),
    }


def _integer(
    name: str, label: str, unit: str, default: int, maximum: int, help_text: str
) -> InputSpec:
    return InputSpec(name, label, unit, "integer", default, 1, maximum, help=help_text)


INPUTS = (
    _integer(
        "sequence_length", "Sequence length", "tokens", 2048, MAX_SEQUENCE, "Tokens per sample (s)."
    ),
    _integer(
        "micro_batch",
        "Micro-batch size",
        "samples",
        1,
        MAX_BATCH,
        "Samples in one forward pass on one GPU (b), not the global batch.",
    ),
    _integer("hidden_size", "Hidden size", "", 12288, MAX_WIDTH, "Model width (h)."),
    _integer("attention_heads", "Attention heads", "", 96, MAX_HEADS, "Query heads (a)."),
    _integer("layers", "Layers", "", 96, MAX_LAYERS, "Transformer layers of the whole model."),
    bytes_per_value_input(
        "Bytes per activation value",
        (
            "2 for fp16/bf16, where the formula is exact; other values scale it (the "
            "dropout masks, one byte each, do not change with precision)."
        ),
    ),
    _integer(
        "tensor_parallel",
        "Tensor-parallel size",
        "GPUs",
        8,
        MAX_TENSOR_PARALLEL,
        "GPUs one layer is split over (t); must divide the attention heads.",
    ),
    InputSpec(
        "sequence_parallel",
        "Sequence parallelism",
        "",
        "choice",
        "on",
        choices=SEQUENCE_PARALLEL,
        help=(
            "on: the layer-norm and dropout regions are split along the sequence too "
            "(Megatron's --sequence-parallel); no effect at tensor-parallel size 1."
        ),
    ),
    InputSpec(
        "recompute",
        "Activation recomputation",
        "",
        "choice",
        "none",
        choices=RECOMPUTE,
        help=(
            "selective: attention scores are recomputed in backward (FlashAttention never "
            "stores them either, so count it as selective); full: only each layer's input "
            "is kept and the layer is rerun."
        ),
    ),
    InputSpec(
        "capacity_gib",
        "GPU memory",
        "GiB",
        "number",
        80.0,
        minimum=MIN_CAPACITY_GIB,
        maximum=MAX_CAPACITY_GIB,
        help="Only for the share output; weights, gradients and optimizer state come on top.",
    ),
)

OUTPUTS = (
    OutputSpec("sbh_bytes", "s · b · h", "bytes", "The unit every coefficient multiplies."),
    OutputSpec(
        "score_term",
        "Attention-score coefficient",
        "× sbh",
        "5·a·s/h; once it passes 34 the sequence-squared scores dominate the layer.",
    ),
    OutputSpec("per_layer_mib", "Activations per layer", "MiB", "On one GPU."),
    OutputSpec("activation_gib", "Activations, all layers", "GiB", "On one GPU."),
    OutputSpec(
        "no_recompute_gib", "Same without recomputation", "GiB", "To compare with the choice."
    ),
    OutputSpec(
        "share_of_capacity", "Share of GPU memory", "fraction", "Activations alone; above 1 OOMs."
    ),
)

# The GPU's memory, as PyTorch's CUDA out-of-memory message prints it.
EXTRACT = (
    ExtractionRule(
        "capacity_gib",
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
    title="Activation memory",
    summary=(
        "The activations a transformer keeps for its backward pass grow with micro-batch "
        "and width, and with the square of the sequence length while attention scores are "
        "stored. Defaults: the GPT-3 175B shape (s 2,048, h 12,288, 96 heads, 96 layers), "
        "bf16, tensor parallel 8 with sequence parallelism, no recomputation."
    ),
    formula=(
        "bytes per layer (16-bit) = sbh·(10 + (24 + 5as/h)/t) without sequence parallelism, "
        "sbh·(34 + 5as/h)/t with it; selective recomputation drops the 5as/h term; full "
        "recomputation keeps 2·sbh (÷t with sequence parallelism); × bytes_per_value/2; "
        "× layers"
    ),
    source_title="Reducing Activation Recomputation in Large Transformer Models",
    source_url="https://arxiv.org/abs/2205.05198",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
    see_also=(
        Source(
            "AWS Neuron: activation memory reduction (the per-layer formulas)",
            "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/libraries/neuronx-distributed/activation_memory_reduction.rst",
        ),
        Source(
            "Megatron-LM theoretical_memory_usage.py (Table 2 of the paper in code)",
            "https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/training/theoretical_memory_usage.py",
        ),
    ),
)
