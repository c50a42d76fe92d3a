"""`zero3-prefetch`: ZeRO-3 communication per step, overlapped with compute or not."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .limits import (
    MAX_BANDWIDTH_GBPS,
    MAX_BYTES_PER_VALUE,
    MAX_DURATION_MS,
    MAX_WORKERS,
    MIN_BANDWIDTH_GBPS,
    MIN_BYTES_PER_VALUE,
    MIN_DURATION_MS,
)
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "zero3-prefetch"
MS_PER_S = 1000.0
# Forward all-gather + backward all-gather + gradient reduce-scatter: three passes over
# the parameters, ZeRO-3's 3Ψ against data parallelism's 2Ψ.
PASSES_PER_STEP = 3
# A hundred trillion parameters is beyond any model.
MAX_PARAMETERS_BILLION = 100_000.0


def comm_gb(parameters_billion: float, bytes_per_param: float, dp_size: int) -> float:
    """GB each rank sends per step: 3 · params · bytes · (N − 1)/N."""
    shard_fraction = (dp_size - 1) / dp_size
    return PASSES_PER_STEP * parameters_billion * bytes_per_param * shard_fraction


def _compute(values: InputValues) -> dict[str, OutputValue]:
    traffic_gb = comm_gb(
        values.number("parameters_billion"),
        values.number("bytes_per_param"),
        values.integer("dp_size"),
    )
    comm_ms = traffic_gb / values.number("allgather_gbps") * MS_PER_S
    compute_ms = values.number("compute_ms")
    overlapped = max(compute_ms, comm_ms)
    synchronous = compute_ms + comm_ms
    return {
        "comm_gb": traffic_gb,
        "comm_ms": comm_ms,
        "overlapped_step_ms": overlapped,
        "synchronous_step_ms": synchronous,
        "exposed_comm_ms": overlapped - compute_ms,
        "slowdown": synchronous / overlapped,
    }


INPUTS = (
    InputSpec(
        "parameters_billion",
        "Parameters",
        "billion",
        "number",
        7.0,
        minimum=0.0,
        exclusive_minimum=True,
        maximum=MAX_PARAMETERS_BILLION,
        help="Model parameters, in billions.",
    ),
    InputSpec(
        "bytes_per_param",
        "Bytes per parameter",
        "bytes",
        "number",
        2.0,
        minimum=MIN_BYTES_PER_VALUE,
        maximum=MAX_BYTES_PER_VALUE,
        help="Bytes of each gathered parameter and reduced gradient: 2 for bf16.",
    ),
    InputSpec(
        "dp_size",
        "Data-parallel ranks",
        "GPUs",
        "integer",
        64,
        minimum=1,
        maximum=MAX_WORKERS,
        help="N: ranks the parameters are sharded over; with 1 nothing is communicated.",
    ),
    InputSpec(
        "allgather_gbps",
        "Collective bandwidth",
        "GB/s",
        "number",
        50.0,
        minimum=MIN_BANDWIDTH_GBPS,
        maximum=MAX_BANDWIDTH_GBPS,
        help="Bus bandwidth each rank reaches in all-gather / reduce-scatter (400 Gb/s ≈ 50).",
    ),
    InputSpec(
        "compute_ms",
        "Compute per step",
        "ms",
        "number",
        1500.0,
        minimum=MIN_DURATION_MS,
        maximum=MAX_DURATION_MS,
        help="Forward + backward time of one step with no communication.",
    ),
)

OUTPUTS = (
    OutputSpec("comm_gb", "Traffic per rank per step", "GB", "3 · params · bytes · (N − 1)/N."),
    OutputSpec("comm_ms", "Communication per step", "ms", "Traffic / bandwidth."),
    OutputSpec(
        "overlapped_step_ms", "Step with prefetch", "ms", "max(compute, comm): fully overlapped."
    ),
    OutputSpec(
        "synchronous_step_ms", "Step without overlap", "ms", "compute + comm: gathers on demand."
    ),
    OutputSpec("exposed_comm_ms", "Exposed communication", "ms", "Overlapped step − compute."),
    OutputSpec("slowdown", "Cost of no overlap", "×", "Synchronous step / overlapped step."),
)

CALCULATOR = Calculator(
    name=NAME,
    title="ZeRO-3 prefetch and overlap",
    summary=(
        "ZeRO-3 gathers every layer's parameters before using them, twice a step, and "
        "reduce-scatters the gradients; if that traffic is not prefetched behind compute, "
        "it adds straight onto the step. Defaults: 7B parameters in bf16 over 64 ranks at "
        "50 GB/s with 1.5 s of compute."
    ),
    formula=(
        "comm = 3 · params · bytes · (N − 1)/N / bandwidth; overlapped step = max(compute, "
        "comm); synchronous step = compute + comm"
    ),
    source_title="ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
    source_url="https://arxiv.org/abs/1910.02054",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
)
