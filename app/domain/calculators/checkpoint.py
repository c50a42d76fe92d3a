"""`checkpoint-interval`: the Young/Daly checkpoint interval and the time failures cost."""

from __future__ import annotations

import math

from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "checkpoint-interval"
HOURS_PER_DAY = 24.0
MINUTES_PER_HOUR = 60.0
# Ten million GPUs or interruptions is far beyond any job.
MAX_COUNT = 10_000_000
# 0.01 day (14 minutes) is the shortest useful observation window.
MIN_DAYS = 0.01
# Ten years of a single job is beyond any real run.
MAX_DAYS = 3650.0
# A directly given MTBF under 0.01 h (36 s) leaves no time to compute between failures.
MIN_DIRECT_MTBF_HOURS = 0.01
# A million hours (114 years) between job interruptions is effectively never.
MAX_MTBF_HOURS = 1_000_000.0
# 0.01 minute (0.6 s) is the fastest conceivable checkpoint, and a safe divisor.
MIN_CHECKPOINT_MINUTES = 0.01
# A week to write or restore a checkpoint is certainly a typo.
MAX_MINUTES = 10_080.0


def young_interval(checkpoint_minutes: float, mtbf_minutes: float) -> float:
    """Young's optimum compute time between checkpoints: √(2 · checkpoint · MTBF)."""
    return math.sqrt(2.0 * checkpoint_minutes * mtbf_minutes)


def lost_fraction(
    checkpoint_minutes: float, interval_minutes: float, restart_minutes: float, mtbf_minutes: float
) -> float:
    """First order: checkpoint/interval + (interval/2 + restart)/MTBF, kept within [0, 1]."""
    writing = checkpoint_minutes / interval_minutes
    rework = (interval_minutes / 2.0 + restart_minutes) / mtbf_minutes
    return min(1.0, max(0.0, writing + rework))


def _mtbf_hours(values: InputValues) -> float:
    direct = values.optional_number("mtbf_hours")
    if direct is None:
        return values.number("days") * HOURS_PER_DAY / values.integer("interruptions")
    return direct


def _compute(values: InputValues) -> dict[str, OutputValue]:
    mtbf_hours = _mtbf_hours(values)
    mtbf_minutes = mtbf_hours * MINUTES_PER_HOUR
    checkpoint = values.number("checkpoint_minutes")
    interval = young_interval(checkpoint, mtbf_minutes)
    fraction = lost_fraction(checkpoint, interval, values.number("restart_minutes"), mtbf_minutes)
    gpus = values.integer("gpus")
    period_hours = values.number("days") * HOURS_PER_DAY
    return {
        "mtbf_hours": mtbf_hours,
        "interruptions_per_day": HOURS_PER_DAY / mtbf_hours,
        "gpu_mtbf_hours": mtbf_hours * gpus,
        "optimal_interval_minutes": interval,
        "expected_lost_fraction": fraction,
        "lost_hours": period_hours * fraction,
        "lost_gpu_hours": period_hours * fraction * gpus,
    }


INPUTS = (
    InputSpec(
        "gpus",
        "GPUs",
        "GPUs",
        "integer",
        16384,
        minimum=1,
        maximum=MAX_COUNT,
        help="GPUs in the job (Llama 3 405B pre-training: 16,384 H100s).",
    ),
    InputSpec(
        "interruptions",
        "Interruptions",
        "interruptions",
        "integer",
        419,
        minimum=1,
        maximum=MAX_COUNT,
        help="Unexpected job interruptions observed over the period (Llama 3: 419 in 54 days).",
    ),
    InputSpec(
        "days",
        "Period",
        "days",
        "number",
        54.0,
        minimum=MIN_DAYS,
        maximum=MAX_DAYS,
        help="Length of the period the interruptions were counted over, and of the run.",
    ),
    InputSpec(
        "mtbf_hours",
        "Job MTBF (direct)",
        "h",
        "number",
        None,
        minimum=MIN_DIRECT_MTBF_HOURS,
        maximum=MAX_MTBF_HOURS,
        help="Mean time between job interruptions if known; leave it empty to derive it as "
        "days · 24 / interruptions.",
        optional=True,
    ),
    InputSpec(
        "checkpoint_minutes",
        "Checkpoint write time",
        "min",
        "number",
        1.0,
        minimum=MIN_CHECKPOINT_MINUTES,
        maximum=MAX_MINUTES,
        help="Time training stalls to write one checkpoint (assumed; not given by Llama 3).",
    ),
    InputSpec(
        "restart_minutes",
        "Restart time",
        "min",
        "number",
        10.0,
        minimum=0.0,
        maximum=MAX_MINUTES,
        help="Time from an interruption to training again: detect, reschedule, load (assumed).",
    ),
)

OUTPUTS = (
    OutputSpec("mtbf_hours", "Job MTBF", "h", "Mean time between interruptions of the job."),
    OutputSpec("interruptions_per_day", "Interruptions per day", "per day"),
    OutputSpec("gpu_mtbf_hours", "MTBF per GPU", "h", "Job MTBF × GPUs: each GPU's implied MTBF."),
    OutputSpec(
        "optimal_interval_minutes", "Checkpoint every", "min", "Young: √(2 · checkpoint · MTBF)."
    ),
    OutputSpec(
        "expected_lost_fraction",
        "Time lost",
        "fraction",
        "Writing checkpoints, redoing half an interval and restarting, per failure.",
    ),
    OutputSpec("lost_hours", "Wall-clock lost over the period", "h"),
    OutputSpec("lost_gpu_hours", "GPU-hours lost over the period", "GPU·h"),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Checkpoint interval and failure cost",
    summary=(
        "A job on thousands of GPUs is interrupted every few hours; checkpointing too often "
        "wastes time writing, too rarely wastes time redoing work. Defaults: Llama 3 405B's "
        "419 interruptions in 54 days on 16,384 GPUs, with assumed 1-minute checkpoints "
        "and 10-minute restarts."
    ),
    formula=(
        "MTBF = days · 24 / interruptions; interval = √(2 · checkpoint · MTBF) (Young); lost "
        "fraction ≈ checkpoint / interval + (interval / 2 + restart) / MTBF, within [0, 1]"
    ),
    source_title="Young (1974): A first order approximation to the optimum checkpoint interval",
    source_url="https://doi.org/10.1145/361147.361115",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    see_also=(
        Source(
            "Daly (2006): A higher order estimate of the optimum checkpoint interval for "
            "restart dumps",
            "https://doi.org/10.1016/j.future.2004.11.016",
        ),
        Source(
            "The Llama 3 Herd of Models (interruption counts)", "https://arxiv.org/abs/2407.21783"
        ),
    ),
)
