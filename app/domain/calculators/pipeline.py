"""`pipeline-bubble`: step time and efficiency of a synchronous pipeline with uneven stages."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .limits import MAX_DURATION_MS, MIN_DURATION_MS
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "pipeline-bubble"
# A hundred thousand microbatches per step is beyond any global batch; more is a typo.
MAX_MICROBATCHES = 100_000
DEFAULT_STAGE_MS = (200.0, 200.0, 200.0, 400.0, 200.0, 200.0, 200.0, 200.0)


def step_ms(stage_ms: list[float], microbatches: int) -> float:
    """Flush schedule (GPipe / 1F1B): (m − 1) · slowest stage + sum of the stages."""
    return (microbatches - 1) * max(stage_ms) + sum(stage_ms)


def efficiency(stage_ms: list[float], microbatches: int) -> float:
    """Busy time over available time: m · Σ stage / (p · step time), at most 1."""
    busy = microbatches * sum(stage_ms)
    return min(1.0, busy / (len(stage_ms) * step_ms(stage_ms, microbatches)))


def balanced_efficiency(stages: int, microbatches: int) -> float:
    """Efficiency with every stage at the mean: m / (m + p − 1)."""
    return microbatches / (microbatches + stages - 1)


def _compute(values: InputValues) -> dict[str, OutputValue]:
    stage_ms = values.numbers("stage_ms")
    microbatches = values.integer("microbatches")
    stages = len(stage_ms)
    slowest = max(stage_ms)
    actual = efficiency(stage_ms, microbatches)
    balanced = balanced_efficiency(stages, microbatches)
    mean_ms = sum(stage_ms) / stages
    return {
        "stages": stages,
        "step_ms": step_ms(stage_ms, microbatches),
        "balanced_step_ms": (microbatches + stages - 1) * mean_ms,
        "efficiency": actual,
        "balanced_efficiency": balanced,
        "bubble_fraction": 1.0 - actual,
        "imbalance_loss": max(0.0, balanced - actual),
        "slowest_stage": stage_ms.index(slowest) + 1,
        "slowest_stage_ms": slowest,
    }


INPUTS = (
    InputSpec(
        "stage_ms",
        "Time per stage",
        "ms",
        "number-list",
        DEFAULT_STAGE_MS,
        minimum=MIN_DURATION_MS,
        maximum=MAX_DURATION_MS,
        help=(
            "Forward + backward time of one microbatch on each stage, one number per stage "
            "in pipeline order (comma-separated in a form)."
        ),
    ),
    InputSpec(
        "microbatches",
        "Microbatches per step",
        "microbatches",
        "integer",
        32,
        minimum=1,
        maximum=MAX_MICROBATCHES,
        help="m: microbatches that flow through the pipeline before the optimizer step.",
    ),
)

OUTPUTS = (
    OutputSpec("stages", "Stages", "stages", "p, the length of the stage list."),
    OutputSpec("step_ms", "Step time", "ms", "(m − 1) · max(stage) + Σ stage."),
    OutputSpec("balanced_step_ms", "Step time if balanced", "ms", "(m + p − 1) · mean(stage)."),
    OutputSpec("efficiency", "Pipeline efficiency", "fraction", "m · Σ stage / (p · step time)."),
    OutputSpec("balanced_efficiency", "Efficiency if balanced", "fraction", "m / (m + p − 1)."),
    OutputSpec("bubble_fraction", "Idle fraction", "fraction", "1 − efficiency."),
    OutputSpec(
        "imbalance_loss", "Lost to imbalance", "fraction", "Balanced efficiency − efficiency."
    ),
    OutputSpec("slowest_stage", "Slowest stage", "stage", "1-based; the first if tied."),
    OutputSpec("slowest_stage_ms", "Slowest stage time", "ms"),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Pipeline bubble with an uneven stage",
    summary=(
        "In a synchronous pipeline every microbatch waits for the slowest stage, so one "
        "heavy stage stretches the whole step and adds idle time on every other stage, on "
        "top of the fill-and-drain bubble."
    ),
    formula=(
        "step time = (m − 1) · max(stage) + Σ stage; efficiency = m · Σ stage / (p · step "
        "time); balanced efficiency = m / (m + p − 1)"
    ),
    source_title="GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
    source_url="https://arxiv.org/abs/1811.06965",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
)
