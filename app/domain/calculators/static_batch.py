"""`static-batch-latency`: request latency under static versus continuous batching."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "static-batch-latency"
# Ten million generated tokens per request is beyond any context window.
MAX_OUTPUT_TOKENS = 10_000_000.0
# 1 microsecond per token is faster than any decoder, and keeps latencies positive.
MIN_DECODE_MS = 0.001
# A million ms (16 minutes) per token is not a decoder, it is a hang.
MAX_DECODE_MS = 1_000_000.0
DEFAULT_LENGTHS = (32.0, 64.0, 128.0, 128.0, 256.0, 256.0, 512.0, 1024.0)


def nearest_rank(values: list[float], percent: int) -> float:
    """Nearest-rank percentile: the ceil(percent/100 · n)-th smallest value (1-based)."""
    ordered = sorted(values)
    rank = max(1, -(-percent * len(ordered) // 100))  # integer ceil avoids float error
    return ordered[rank - 1]


def _compute(values: InputValues) -> dict[str, OutputValue]:
    lengths = values.numbers("output_lengths")
    ms_per_token = values.number("decode_ms_per_token")
    # Static: every request returns when the longest one finishes.
    static = [max(lengths) * ms_per_token] * len(lengths)
    # Continuous: each request leaves the batch the step it finishes.
    continuous = [length * ms_per_token for length in lengths]
    waits = [s - c for s, c in zip(static, continuous, strict=True)]
    return {
        "static_latencies_ms": static,
        "continuous_latencies_ms": continuous,
        "static_p50_ms": nearest_rank(static, 50),
        "static_p99_ms": nearest_rank(static, 99),
        "continuous_p50_ms": nearest_rank(continuous, 50),
        "continuous_p99_ms": nearest_rank(continuous, 99),
        "static_mean_ms": sum(static) / len(static),
        "continuous_mean_ms": sum(continuous) / len(continuous),
        "mean_wait_ms": sum(waits) / len(waits),
    }


INPUTS = (
    InputSpec(
        "output_lengths",
        "Output tokens per request",
        "tokens",
        "number-list",
        DEFAULT_LENGTHS,
        minimum=1.0,
        maximum=MAX_OUTPUT_TOKENS,
        help="Tokens each request in the batch generates, one number per request.",
    ),
    InputSpec(
        "decode_ms_per_token",
        "Decode step time",
        "ms",
        "number",
        20.0,
        minimum=MIN_DECODE_MS,
        maximum=MAX_DECODE_MS,
        help="Time of one decode step of the batch, assumed constant.",
    ),
)

OUTPUTS = (
    OutputSpec("static_latencies_ms", "Latency per request, static", "ms", "max(length) · step."),
    OutputSpec(
        "continuous_latencies_ms", "Latency per request, continuous", "ms", "length · step."
    ),
    OutputSpec("static_p50_ms", "p50, static", "ms", "Nearest-rank percentile."),
    OutputSpec("static_p99_ms", "p99, static", "ms", "Nearest-rank percentile."),
    OutputSpec("continuous_p50_ms", "p50, continuous", "ms", "Nearest-rank percentile."),
    OutputSpec("continuous_p99_ms", "p99, continuous", "ms", "Nearest-rank percentile."),
    OutputSpec("static_mean_ms", "Mean, static", "ms"),
    OutputSpec("continuous_mean_ms", "Mean, continuous", "ms"),
    OutputSpec(
        "mean_wait_ms", "Mean time waiting for the longest", "ms", "Static − continuous, averaged."
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Static versus continuous batching latency",
    summary=(
        "With static batching every request waits for the longest one in its batch; "
        "iteration-level (continuous) batching lets each request leave when it is done. "
        "Ignores prefill and queueing; percentiles are nearest-rank."
    ),
    formula=(
        "static latency = max(lengths) · ms per token for every request; continuous latency "
        "= length · ms per token; pXX = the ceil(XX/100 · n)-th smallest latency"
    ),
    source_title="Orca: A Distributed Serving System for Transformer-Based Generative Models",
    source_url="https://www.usenix.org/conference/osdi22/presentation/yu",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
)
