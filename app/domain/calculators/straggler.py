"""`straggler`: what one slow rank costs a synchronous data-parallel job."""

from __future__ import annotations

from .calculator import Calculator, InputValues
from .extract import ExtractionRule
from .limits import MAX_DURATION_MS, MAX_STEPS, MIN_DURATION_MS
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "straggler"
MS_PER_HOUR = 3_600_000.0
# Ten million ranks is beyond any job.
MAX_RANKS = 10_000_000
# A rank a thousand times slower than its peers is down, not straggling.
MAX_SLOW_FACTOR = 1000.0


def step_ms(compute_ms: float, comm_ms: float, slowest_factor: float) -> float:
    """Synchronous step: the slowest rank's compute, then the collective."""
    return compute_ms * slowest_factor + comm_ms


def _compute(values: InputValues) -> dict[str, OutputValue]:
    ranks = values.integer("ranks")
    compute_ms = values.number("compute_ms")
    comm_ms = values.number("comm_ms")
    normal = step_ms(compute_ms, comm_ms, 1.0)
    # slow_factor ≥ 1, so the slow rank is the max over ranks.
    slow = step_ms(compute_ms, comm_ms, values.number("slow_factor"))
    added = slow - normal
    return {
        "normal_step_ms": normal,
        "straggler_step_ms": slow,
        "added_ms_per_step": added,
        "slowdown": slow / normal,
        "efficiency": normal / slow,
        "lost_gpu_hours": ranks * added * values.integer("steps") / MS_PER_HOUR,
    }


INPUTS = (
    InputSpec(
        "ranks",
        "Ranks",
        "GPUs",
        "integer",
        1024,
        minimum=1,
        maximum=MAX_RANKS,
        help="GPUs that wait for each other every step.",
    ),
    InputSpec(
        "compute_ms",
        "Compute per step",
        "ms",
        "number",
        300.0,
        minimum=MIN_DURATION_MS,
        maximum=MAX_DURATION_MS,
        help="Forward + backward time of a healthy rank.",
    ),
    InputSpec(
        "comm_ms",
        "Exposed communication per step",
        "ms",
        "number",
        100.0,
        minimum=0.0,
        maximum=MAX_DURATION_MS,
        help="Collective time not hidden behind compute; it starts when the last rank is ready.",
    ),
    InputSpec(
        "slow_factor",
        "Straggler slowdown",
        "×",
        "number",
        1.5,
        minimum=1.0,
        maximum=MAX_SLOW_FACTOR,
        help="How many times longer ONE rank takes to compute (thermal throttling, bad host).",
    ),
    InputSpec(
        "steps",
        "Steps",
        "steps",
        "integer",
        1000,
        minimum=1,
        maximum=MAX_STEPS,
        help="Steps run with the straggler.",
    ),
)

OUTPUTS = (
    OutputSpec("normal_step_ms", "Step without straggler", "ms", "compute + comm."),
    OutputSpec("straggler_step_ms", "Step with straggler", "ms", "compute · slow_factor + comm."),
    OutputSpec("added_ms_per_step", "Added per step", "ms"),
    OutputSpec("slowdown", "Slowdown", "×", "Straggler step / normal step."),
    OutputSpec("efficiency", "Fleet efficiency", "fraction", "Normal step / straggler step."),
    OutputSpec(
        "lost_gpu_hours", "Lost GPU-hours", "GPU·h", "ranks · added per step · steps / 3.6e6."
    ),
)

# Megatron's StragglerDetector report (`--log-straggler`, README_STRAGGLER.md): the
# fastest and the slowest rank's round-trip time and which ranks they are. Their ratio is
# the slowdown of the slowest rank, against the fastest rather than the median of the
# healthy ranks, so it is the upper end of what the report supports. A report whose two
# ranks are the same rank describes one rank and fills nothing. Step times printed per
# rank are not read: a synchronous step ends when the slowest rank does, so they come out
# nearly equal on every rank and would hide the straggler (and Megatron's iteration line
# and DeepSpeed's timer breakdown are printed by one rank only).
EXTRACT = (
    ExtractionRule(
        "slow_factor",
        r"MnRtt/Rnk: (?P<per>[0-9][0-9.]*)ms/(?P<fastest>\d+) \| "
        r"MxRtt/Rnk: (?P<value>[0-9][0-9.]*)ms/(?!(?P=fastest)\b)\d+",
        example=(
            "2024-10-23 01:29:30] [INFO] | MnRtt/Rnk: 1446.49ms/13 | MxRtt/Rnk: 1570.32ms/30 "
            "| MnPwr/Rnk: 617923.00W/0"
        ),
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="One straggler in a synchronous job",
    summary=(
        "A synchronous step ends when the slowest rank finishes, so one slow GPU makes "
        "every other GPU wait. Defaults: 1,024 ranks, 300 ms compute, 100 ms exposed "
        "communication, one rank 1.5× slower, 1,000 steps. From a Megatron straggler "
        "report the slowdown is the slowest rank's round-trip time over the fastest's."
    ),
    formula=(
        "step = max over ranks of compute + comm; normal = compute + comm; with straggler "
        "= compute · slow_factor + comm; lost GPU-hours = ranks · (added ms) · steps / 3.6e6"
    ),
    source_title="Understanding Stragglers in Large Model Training Using What-if Analysis",
    source_url="https://arxiv.org/abs/2505.05713",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    extract=EXTRACT,
)
