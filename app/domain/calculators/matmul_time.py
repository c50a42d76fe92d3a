"""`matmul-time`: the time one training step's matmuls take on one GPU in plain fp32, in
TF32 and in bf16, from the 6·N·T FLOP count and the GPU's dense peak rates."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "matmul-time"
# A training step costs about 6 FLOPs per parameter per token, forward and backward
# (nanoGPT's estimate_mfu, after the PaLM paper's Appendix B, which adds an attention
# term, 12 · layers · heads · head size · sequence length, that is left out here).
FLOPS_PER_PARAMETER_TOKEN = 6.0
PARAMETERS_PER_BILLION = 1e9
FLOPS_PER_TFLOP = 1e12
# NVIDIA A100 SXM dense peaks in TFLOPS from NVIDIA's A100 datasheet, read from the table on
# glennklockwood.com/garden/processors/A100, a secondary source that cites the datasheet:
# FP32 19.5 on CUDA cores, TF32 156 and BF16 312 on tensor cores. The table's sparse
# column gives twice these for TF32 and BF16 (312 and 624).
A100_FP32_TFLOPS = 19.5
A100_TF32_TFLOPS = 156.0
A100_BF16_TFLOPS = 312.0
# 100 trillion parameters and a billion tokens per GPU per step are far beyond any run.
MAX_PARAMETERS_B = 100_000.0
MAX_TOKENS_PER_STEP = 1_000_000_000
# 1 GFLOPS is below any GPU's rate and a safe divisor; 100 PFLOPS dense per GPU is beyond
# any product.
MIN_PEAK_TFLOPS = 0.001
MAX_PEAK_TFLOPS = 100_000.0
# 0.1% of peak is below any real run and keeps the divisor away from zero.
MIN_ACHIEVED_FRACTION = 0.001


def step_flops(parameters_b: float, tokens_per_step: int) -> float:
    """FLOPs of one training step on one GPU: 6 · N · T."""
    return FLOPS_PER_PARAMETER_TOKEN * parameters_b * PARAMETERS_PER_BILLION * tokens_per_step


def matmul_seconds(flops: float, peak_tflops: float, achieved_fraction: float) -> float:
    """Seconds for `flops` at `achieved_fraction` of a dense peak given in TFLOPS."""
    return flops / (peak_tflops * FLOPS_PER_TFLOP * achieved_fraction)


def _compute(values: InputValues) -> dict[str, OutputValue]:
    flops = step_flops(values.number("parameters_b"), values.integer("tokens_per_step"))
    fraction = values.number("achieved_fraction")
    fp32_tflops = values.number("fp32_tflops")
    tf32_tflops = values.number("tf32_tflops")
    bf16_tflops = values.number("bf16_tflops")
    fp32_s = matmul_seconds(flops, fp32_tflops, fraction)
    tf32_s = matmul_seconds(flops, tf32_tflops, fraction)
    bf16_s = matmul_seconds(flops, bf16_tflops, fraction)
    return {
        "step_tflop": flops / FLOPS_PER_TFLOP,
        "fp32_step_s": fp32_s,
        "tf32_step_s": tf32_s,
        "bf16_step_s": bf16_s,
        # Ratios of the peaks, not of the times: tiny steps may round the times to 0.
        "tf32_speedup": tf32_tflops / fp32_tflops,
        "bf16_speedup": bf16_tflops / fp32_tflops,
        "tf32_saved_s": fp32_s - tf32_s,
        "bf16_saved_s": fp32_s - bf16_s,
    }


def _peak(name: str, label: str, default: float, help_text: str) -> InputSpec:
    return InputSpec(
        name,
        label,
        "TFLOPS",
        "number",
        default,
        minimum=MIN_PEAK_TFLOPS,
        maximum=MAX_PEAK_TFLOPS,
        help=help_text,
    )


INPUTS = (
    InputSpec(
        "parameters_b",
        "Parameters",
        "billions",
        "number",
        1.0,
        minimum=0.0,
        exclusive_minimum=True,
        maximum=MAX_PARAMETERS_B,
        help="Parameters that take part in each token's matmuls (N); for a MoE, the active ones.",
    ),
    InputSpec(
        "tokens_per_step",
        "Tokens per GPU per step",
        "tokens",
        "integer",
        32768,
        minimum=1,
        maximum=MAX_TOKENS_PER_STEP,
        help=(
            "Tokens one GPU processes in one optimizer step (T): micro-batch × sequence "
            "length × accumulation steps, divided by the model-parallel size."
        ),
    ),
    _peak(
        "fp32_tflops",
        "FP32 peak (CUDA cores)",
        A100_FP32_TFLOPS,
        "Dense non-tensor FP32 rate: what a float32 matmul gets with TF32 off (A100 SXM: 19.5).",
    ),
    _peak(
        "tf32_tflops",
        "TF32 tensor-core peak, dense",
        A100_TF32_TFLOPS,
        "Dense TF32 rate (A100 SXM: 156). A figure quoted with sparsity is twice it.",
    ),
    _peak(
        "bf16_tflops",
        "BF16 tensor-core peak, dense",
        A100_BF16_TFLOPS,
        "Dense BF16 rate (A100 SXM: 312). A figure quoted with sparsity is twice it.",
    ),
    InputSpec(
        "achieved_fraction",
        "Achieved fraction of peak",
        "fraction",
        "number",
        0.5,
        minimum=MIN_ACHIEVED_FRACTION,
        maximum=1.0,
        help=(
            "Share of each peak the matmuls reach (an MFU-like figure), the same at every "
            "precision, so the speed-ups are the ratios of the peaks: an upper bound."
        ),
    ),
)

OUTPUTS = (
    OutputSpec("step_tflop", "Matmul work per step", "TFLOP", "6 · N · T on one GPU."),
    OutputSpec("fp32_step_s", "Matmul time, plain fp32", "s", "TF32 off, no autocast."),
    OutputSpec("tf32_step_s", "Matmul time, TF32", "s", "float32 tensors, TF32 tensor cores."),
    OutputSpec("bf16_step_s", "Matmul time, bf16", "s", "bf16 autocast or bf16 weights."),
    OutputSpec("tf32_speedup", "Speed-up from TF32", "×", "fp32 time / TF32 time."),
    OutputSpec("bf16_speedup", "Speed-up from bf16", "×", "fp32 time / bf16 time."),
    OutputSpec("tf32_saved_s", "Saved per step with TF32", "s"),
    OutputSpec("bf16_saved_s", "Saved per step with bf16", "s"),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Matmul time at fp32, TF32 and bf16",
    summary=(
        "On Ampere and Hopper GPUs a float32 matmul runs on the CUDA cores unless TF32 is "
        "allowed, at a small fraction of the tensor-core rate. This is the time one step's "
        "matmuls take at each precision. Defaults: a 1-billion-parameter model, 32,768 "
        "tokens per GPU per step, A100 SXM dense peaks, half of peak achieved."
    ),
    formula=(
        "step FLOPs = 6 · parameters · tokens per GPU per step; time at a precision = step "
        "FLOPs / (dense peak TFLOPS · 10¹² · achieved fraction); speed-up = that precision's "
        "peak / the FP32 peak"
    ),
    source_title="nanoGPT model.py: estimate_mfu (6·N FLOPs per token, after PaLM Appendix B)",
    source_url="https://github.com/karpathy/nanoGPT/blob/master/model.py",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    see_also=(
        Source(
            "A100 specifications (dense and sparse peaks from NVIDIA's datasheet)",
            "https://glennklockwood.com/garden/processors/A100",
        ),
        Source(
            "PyTorch CUDA semantics: TensorFloat-32 on Ampere and later devices",
            "https://pytorch.org/docs/stable/notes/cuda.html",
        ),
    ),
)
