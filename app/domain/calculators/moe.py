"""`moe-load`: tokens dropped and throughput lost when one expert of an MoE layer runs hot."""

from __future__ import annotations

from ...errors import CalculatorInputError
from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue

NAME = "moe-load"
# A billion tokens in one MoE layer's batch is beyond any step.
MAX_TOKENS = 1_000_000_000
# A hundred thousand experts per layer is two orders beyond published models.
MAX_EXPERTS = 100_000
# Capacity factors in practice run from about 0.5 to 2; outside [0.01, 100] is a typo.
MIN_CAPACITY_FACTOR = 0.01
MAX_CAPACITY_FACTOR = 100.0


def max_multiplier(experts: int, top_k: int) -> float:
    """The hottest expert gets each token at most once, so its load ≤ tokens = E/k · mean."""
    return experts / top_k


def _check(experts: int, top_k: int, multiplier: float) -> None:
    if top_k > experts:
        raise CalculatorInputError("top_k", f"must not exceed Experts ({experts})")
    bound = max_multiplier(experts, top_k)
    if multiplier > bound:
        raise CalculatorInputError(
            "hot_expert_multiplier",
            f"must be at most Experts / Experts per token = {bound:g}: an expert receives each "
            f"token at most once, so its load cannot exceed all tokens, which is {bound:g} × the "
            "mean",
        )


def _compute(values: InputValues) -> dict[str, OutputValue]:
    tokens = values.integer("tokens")
    experts = values.integer("experts")
    top_k = values.integer("top_k")
    multiplier = values.number("hot_expert_multiplier")
    _check(experts, top_k, multiplier)
    assignments = tokens * top_k
    mean = assignments / experts
    hot = min(float(tokens), multiplier * mean)
    # The rest of the assignments spread evenly over the other experts.
    others = (assignments - hot) / (experts - 1) if experts > 1 else 0.0
    capacity = values.number("capacity_factor") * mean
    dropped = max(0.0, hot - capacity) + (experts - 1) * max(0.0, others - capacity)
    return {
        "assignments": assignments,
        "mean_tokens_per_expert": mean,
        "hot_expert_tokens": hot,
        "other_expert_tokens": others,
        "capacity_per_expert": capacity,
        "dropped_tokens": dropped,
        "dropped_fraction": dropped / assignments,
        "relative_throughput": mean / hot,
        "max_multiplier": max_multiplier(experts, top_k),
    }


INPUTS = (
    InputSpec(
        "tokens",
        "Tokens per batch",
        "tokens",
        "integer",
        4096,
        minimum=1,
        maximum=MAX_TOKENS,
        help="Tokens routed by one MoE layer in one step (on the devices of one expert group).",
    ),
    InputSpec(
        "experts",
        "Experts",
        "experts",
        "integer",
        64,
        minimum=1,
        maximum=MAX_EXPERTS,
        help="Experts in the layer.",
    ),
    InputSpec(
        "top_k",
        "Experts per token",
        "experts",
        "integer",
        2,
        minimum=1,
        maximum=MAX_EXPERTS,
        help="k: experts each token is routed to (Switch: 1, Mixtral: 2); at most experts.",
    ),
    InputSpec(
        "capacity_factor",
        "Capacity factor",
        "×",
        "number",
        1.25,
        minimum=MIN_CAPACITY_FACTOR,
        maximum=MAX_CAPACITY_FACTOR,
        help="Expert buffer size as a multiple of the mean load; overflow is dropped.",
    ),
    InputSpec(
        "hot_expert_multiplier",
        "Hottest expert load",
        "× mean",
        "number",
        10.0,
        minimum=1.0,
        maximum=float(MAX_EXPERTS),
        help=(
            "How many times the mean load the busiest expert receives; at most experts / "
            "top_k, because an expert sees each token at most once."
        ),
    ),
)

OUTPUTS = (
    OutputSpec("assignments", "Token-expert assignments", "assignments", "tokens · top_k."),
    OutputSpec("mean_tokens_per_expert", "Mean load", "tokens", "tokens · top_k / experts."),
    OutputSpec("hot_expert_tokens", "Hottest expert load", "tokens", "multiplier · mean."),
    OutputSpec(
        "other_expert_tokens", "Load of each other expert", "tokens", "The rest, spread evenly."
    ),
    OutputSpec("capacity_per_expert", "Capacity per expert", "tokens", "capacity_factor · mean."),
    OutputSpec(
        "dropped_tokens",
        "Dropped assignments",
        "assignments",
        "Load above capacity, summed over experts; these skip the expert (residual only).",
    ),
    OutputSpec("dropped_fraction", "Dropped share", "fraction", "Dropped / assignments."),
    OutputSpec(
        "relative_throughput",
        "Throughput without dropping",
        "fraction",
        "mean / hottest load: the step waits for the busiest expert.",
    ),
    OutputSpec("max_multiplier", "Largest possible multiplier", "× mean", "experts / top_k."),
)

CALCULATOR = Calculator(
    name=NAME,
    title="MoE expert load imbalance",
    summary=(
        "With top-k routing the step waits for the busiest expert; with a capacity limit "
        "the overflow is dropped instead. Defaults: 4,096 tokens, 64 experts, top-2, "
        "capacity factor 1.25, one expert at 10× the mean."
    ),
    formula=(
        "mean = tokens · top_k / experts; hottest = multiplier · mean; capacity = "
        "capacity_factor · mean; dropped = Σ max(0, load − capacity); relative throughput "
        "without dropping = mean / hottest"
    ),
    source_title="Switch Transformers: Scaling to Trillion Parameter Models (expert capacity)",
    source_url="https://arxiv.org/abs/2101.03961",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
)
