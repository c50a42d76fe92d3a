"""`allreduce-slow-link`: what one slow link costs a synchronous gradient all-reduce."""

from __future__ import annotations

from ...errors import CalculatorInputError
from .calculator import Calculator, InputValues
from .extract import ExtractionRule
from .limits import (
    MAX_BANDWIDTH_GBPS,
    MAX_SIZE_GB,
    MAX_STEPS,
    MAX_WORKERS,
    MIN_BANDWIDTH_GBPS,
)
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "allreduce-slow-link"
ALGORITHMS = ("effective", "ring")
SECONDS_PER_MINUTE = 60.0
SECONDS_PER_HOUR = 3600.0


def bus_factor(algorithm: str, workers: int) -> float:
    """Bytes each link carries per byte of gradient: 1 (effective) or 2(N−1)/N (ring)."""
    if algorithm == "ring":
        return 2.0 * (workers - 1) / workers
    return 1.0


def allreduce_seconds(gradient_gb: float, bandwidth_gbps: float, factor: float) -> float:
    """Time of one all-reduce: factor · size / bandwidth (GB over GB/s gives seconds)."""
    return factor * gradient_gb / bandwidth_gbps


def _compute(values: InputValues) -> dict[str, OutputValue]:
    gradient_gb = values.number("gradient_gb")
    workers = values.integer("workers")
    baseline_gbps = values.number("baseline_gbps")
    slow_gbps = values.number("slow_gbps")
    if slow_gbps > baseline_gbps:
        raise CalculatorInputError(
            "slow_gbps",
            f"must not exceed Healthy bandwidth ({baseline_gbps:g} GB/s): the slow link is the "
            "slower one",
        )
    factor = bus_factor(values.choice("algorithm"), workers)
    baseline_s = allreduce_seconds(gradient_gb, baseline_gbps, factor)
    slow_s = allreduce_seconds(gradient_gb, slow_gbps, factor)
    wasted_s = (slow_s - baseline_s) * values.integer("steps")
    return {
        "bus_factor": factor,
        "baseline_step_s": baseline_s,
        "slow_step_s": slow_s,
        "added_per_step_s": slow_s - baseline_s,
        # The ratio of bandwidths, not of times: tiny gradients may round times to 0.
        "slowdown": baseline_gbps / slow_gbps,
        "wasted_total_s": wasted_s,
        "wasted_total_minutes": wasted_s / SECONDS_PER_MINUTE,
        "wasted_gpu_hours": wasted_s * workers / SECONDS_PER_HOUR,
    }


INPUTS = (
    InputSpec(
        "gradient_gb",
        "Gradient size",
        "GB",
        "number",
        140.0,
        minimum=0.0,
        exclusive_minimum=True,
        maximum=MAX_SIZE_GB,
        help="Bytes all-reduced per step, in 10^9 bytes (140 GB: 70B parameters in bf16).",
    ),
    InputSpec(
        "workers",
        "Workers",
        "GPUs",
        "integer",
        256,
        minimum=2,
        maximum=MAX_WORKERS,
        help="Ranks taking part in the all-reduce; only the ring algorithm depends on it.",
    ),
    InputSpec(
        "baseline_gbps",
        "Healthy bandwidth",
        "GB/s",
        "number",
        50.0,
        minimum=MIN_BANDWIDTH_GBPS,
        maximum=MAX_BANDWIDTH_GBPS,
        help="Bandwidth the collective reaches when every link is healthy.",
    ),
    InputSpec(
        "slow_gbps",
        "Degraded bandwidth",
        "GB/s",
        "number",
        25.0,
        minimum=MIN_BANDWIDTH_GBPS,
        maximum=MAX_BANDWIDTH_GBPS,
        help="Bandwidth with the slow link: a ring runs at the speed of its slowest link.",
    ),
    InputSpec(
        "steps",
        "Steps",
        "steps",
        "integer",
        1000,
        minimum=1,
        maximum=MAX_STEPS,
        help="Training steps run with the slow link.",
    ),
    InputSpec(
        "algorithm",
        "Bandwidth convention",
        "",
        "choice",
        "effective",
        choices=ALGORITHMS,
        help=(
            "effective: the bandwidths are what the all-reduce achieves (time = size / "
            "bandwidth). ring: they are link (bus) bandwidths as nccl-tests reports busbw "
            "(time = 2(N−1)/N · size / bandwidth)."
        ),
    ),
)

OUTPUTS = (
    OutputSpec("bus_factor", "Bytes per link per gradient byte", "", "1, or 2(N−1)/N for ring."),
    OutputSpec("baseline_step_s", "All-reduce per step, healthy", "s"),
    OutputSpec("slow_step_s", "All-reduce per step, slow link", "s"),
    OutputSpec("added_per_step_s", "Added per step", "s"),
    OutputSpec("slowdown", "All-reduce slowdown", "×", "Slow all-reduce time / healthy."),
    OutputSpec("wasted_total_s", "Wasted over the run", "s", "Added per step × steps."),
    OutputSpec("wasted_total_minutes", "Wasted over the run", "min"),
    OutputSpec(
        "wasted_gpu_hours", "Idle GPU-hours", "GPU·h", "Every worker waits: wasted × workers."
    ),
)

# nccl-tests' summary line: the bus bandwidth measured on the link being diagnosed, so it
# is the degraded one, in the ring (busbw) convention. The healthy figure is never in the
# same paste, so the panel asks for it rather than judging 92 GB/s against the example's 50.
EXTRACT = (
    ExtractionRule(
        "slow_gbps",
        r"# Avg bus bandwidth\s*: (?P<value>[0-9][0-9.]*)",
        example="[1,0]<stdout>:# Avg bus bandwidth    : 92.3405",
        sets=(("algorithm", "ring"),),
        asks=(
            (
                "baseline_gbps",
                "enter the bus bandwidth nccl-tests reaches on healthy nodes of the same "
                "fabric (the same test, message size and GPU count)",
            ),
        ),
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="All-reduce with a slow link",
    summary=(
        "A synchronous all-reduce moves at the speed of its slowest link, so one degraded "
        "NIC or cable slows every step of every worker. This is the time it adds, "
        "assuming the all-reduce is not hidden behind compute."
    ),
    formula=(
        "time per step = factor · gradient_gb / bandwidth, with factor 1 (effective) or "
        "2(N−1)/N (ring, the nccl-tests bus-bandwidth convention); added per step = slow − "
        "healthy; wasted = added per step × steps"
    ),
    source_title="nccl-tests: Performance reported (algorithm and bus bandwidth)",
    source_url="https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
)
