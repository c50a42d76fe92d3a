"""`input-pipeline`: the GPU utilisation a CPU data loader allows, and the workers it needs."""

from __future__ import annotations

import math

from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "input-pipeline"
# 0.001 samples/s (one per 17 minutes) is the slowest rate worth modelling, and a safe divisor.
MIN_RATE = 0.001
# A billion samples per second per GPU or worker is beyond any pipeline.
MAX_RATE = 1e9
# 4,096 loader processes or cores per GPU is beyond any host.
MAX_PER_GPU = 4096
# Keeps ceil(rate / rate) exact when one rate is an exact multiple of the other.
CEIL_TOLERANCE = 1e-12


def workers_needed(gpu_samples_per_s: float, worker_samples_per_s: float) -> int:
    """Workers (each on its own core) that keep one GPU fed: ceil(gpu / worker)."""
    return math.ceil(gpu_samples_per_s / worker_samples_per_s * (1 - CEIL_TOLERANCE))


def _compute(values: InputValues) -> dict[str, OutputValue]:
    gpu_rate = values.number("gpu_samples_per_s")
    worker_rate = values.number("worker_samples_per_s")
    # Workers beyond the available cores share them, so they add no throughput.
    parallel = min(values.integer("workers_per_gpu"), values.integer("cores_per_gpu"))
    loader_rate = parallel * worker_rate
    utilization = min(1.0, loader_rate / gpu_rate)
    needed = workers_needed(gpu_rate, worker_rate)
    return {
        "effective_workers": parallel,
        "loader_samples_per_s": loader_rate,
        "max_gpu_utilization": utilization,
        "data_stall_fraction": 1.0 - utilization,
        "workers_needed": needed,
        "cores_needed": needed,
    }


def _rate(name: str, label: str, default: float, help_text: str) -> InputSpec:
    return InputSpec(
        name, label, "samples/s", "number", default, MIN_RATE, MAX_RATE, help=help_text
    )


def _count(name: str, label: str, default: int, help_text: str) -> InputSpec:
    return InputSpec(name, label, "", "integer", default, 1, MAX_PER_GPU, help=help_text)


INPUTS = (
    _rate(
        "gpu_samples_per_s",
        "GPU consumption",
        2000.0,
        "Samples one GPU processes per second when never waiting for data.",
    ),
    _rate(
        "worker_samples_per_s",
        "One worker's rate",
        150.0,
        "Samples one loader worker (one core) reads, decodes and augments per second.",
    ),
    _count(
        "workers_per_gpu",
        "Workers per GPU",
        8,
        "Loader processes feeding one GPU (PyTorch DataLoader num_workers).",
    ),
    _count(
        "cores_per_gpu",
        "CPU cores per GPU",
        12,
        "Cores the loader of one GPU can actually run on (host cores / GPUs, cgroup limits).",
    ),
)

OUTPUTS = (
    OutputSpec("effective_workers", "Workers running in parallel", "", "min(workers, cores)."),
    OutputSpec("loader_samples_per_s", "Loader throughput", "samples/s"),
    OutputSpec("max_gpu_utilization", "GPU utilisation bound", "fraction", "min(1, loader / GPU)."),
    OutputSpec("data_stall_fraction", "Time waiting for data", "fraction", "1 − utilisation."),
    OutputSpec("workers_needed", "Workers needed", "workers", "ceil(GPU rate / worker rate)."),
    OutputSpec("cores_needed", "Cores needed", "cores", "One core per needed worker."),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Data loader throughput",
    summary=(
        "A GPU can only process samples as fast as the CPU loader produces them; extra "
        "workers help only while each has a core of its own. Defaults: a GPU consuming "
        "2,000 samples/s fed by 8 workers of 150 samples/s on 12 cores."
    ),
    formula=(
        "loader = min(workers, cores) · worker rate; utilisation ≤ min(1, loader / GPU rate); "
        "workers needed = ceil(GPU rate / worker rate)"
    ),
    source_title="Analyzing and Mitigating Data Stalls in DNN Training (VLDB 2021)",
    source_url="https://arxiv.org/abs/2007.06775",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
)
