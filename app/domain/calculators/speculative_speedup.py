"""`speculative-speedup`: tokens per target step and walltime speed-up of speculative
decoding from the acceptance rate, the draft length and the draft's cost (Leviathan et al.,
"Fast Inference from Transformers via Speculative Decoding")."""

from __future__ import annotations

import math

from .calculator import Calculator, InputValues
from .spec import InputSpec, OutputSpec, OutputValue, Source

NAME = "speculative-speedup"
# Engines draft a handful of tokens (the paper's Table 1 goes to 10); 64 is far beyond any.
MAX_DRAFT_TOKENS = 64
# A draft step costing ten target steps is a unit mistake, not a configuration.
MAX_COST_RATIO = 10.0
# Bisection halves [0, 1] this often: far below the six decimals outputs are rounded to.
BISECTION_STEPS = 60


def expected_tokens(alpha: float, gamma: int) -> float:
    """Tokens per target step, (1 − α^(γ+1)) / (1 − α), summed as 1 + α + … + α^γ.

    The sum is the same number without the division, so α = 1 gives γ + 1 exactly.
    """
    return math.fsum(alpha**power for power in range(gamma + 1))


def speedup(alpha: float, gamma: int, cost_ratio: float) -> float:
    """Walltime improvement over plain decoding (Theorem 3.8): tokens / (γc + 1)."""
    return expected_tokens(alpha, gamma) / (gamma * cost_ratio + 1.0)


def break_even_alpha(gamma: int, cost_ratio: float) -> float:
    """The α at which the speed-up is 1, by bisection: 0 for a free draft, 1 if none."""
    target = gamma * cost_ratio + 1.0
    if expected_tokens(0.0, gamma) >= target:
        return 0.0
    if expected_tokens(1.0, gamma) <= target:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2.0
        if expected_tokens(middle, gamma) < target:
            low = middle
        else:
            high = middle
    return high


def _compute(values: InputValues) -> dict[str, OutputValue]:
    alpha = values.number("acceptance")
    gamma = values.integer("draft_tokens")
    cost_ratio = values.number("cost_ratio")
    tokens = expected_tokens(alpha, gamma)
    return {
        "tokens_per_step": tokens,
        "speedup": speedup(alpha, gamma, cost_ratio),
        "break_even_acceptance": break_even_alpha(gamma, cost_ratio),
        "engine_acceptance_rate": (tokens - 1.0) / gamma,
    }


INPUTS = (
    InputSpec(
        "acceptance",
        "Acceptance rate α",
        "",
        "number",
        0.1,
        minimum=0.0,
        maximum=1.0,
        help=(
            "Chance that the target accepts a drafted token, each token independently (the "
            "paper's α). Not the engine's accepted / drafted ratio: see the last output."
        ),
    ),
    InputSpec(
        "draft_tokens",
        "Draft length γ",
        "tokens",
        "integer",
        5,
        minimum=1,
        maximum=MAX_DRAFT_TOKENS,
        help="Tokens drafted per step (vLLM num_speculative_tokens, SGLang num_steps).",
    ),
    InputSpec(
        "cost_ratio",
        "Draft cost ratio c",
        "× target step",
        "number",
        0.05,
        minimum=0.0,
        maximum=MAX_COST_RATIO,
        help=(
            "Time of one draft step / time of one target step; the paper saw below 0.05 for "
            "drafts two orders of magnitude smaller, about 0 for n-gram lookups."
        ),
    ),
)

OUTPUTS = (
    OutputSpec(
        "tokens_per_step",
        "Tokens per target step",
        "tokens",
        "(1 − α^(γ+1)) / (1 − α): what engines print as mean acceptance length.",
    ),
    OutputSpec(
        "speedup",
        "Speed-up",
        "×",
        "Below 1 means slower than decoding without a draft.",
    ),
    OutputSpec(
        "break_even_acceptance",
        "Break-even α",
        "",
        "The α below which this γ and c lose time; 1 means no α is enough.",
    ),
    OutputSpec(
        "engine_acceptance_rate",
        "Accepted / drafted",
        "fraction",
        "(tokens − 1) / γ, vLLM's draft acceptance rate; below c it loses time for any γ.",
    ),
)

CALCULATOR = Calculator(
    name=NAME,
    title="Speculative decoding speed-up",
    summary=(
        "Speculative decoding pays for γ draft steps and one target step and keeps on "
        "average (1 − α^(γ+1)) / (1 − α) tokens, so a low acceptance rate makes it slower "
        "than plain decoding. Defaults: an acceptance of 0.1 with 5 drafted tokens at the "
        "paper's upper draft cost of 0.05."
    ),
    formula=(
        "tokens = (1 − α^(γ+1)) / (1 − α) (γ + 1 at α = 1); speed-up = tokens / (γc + 1); "
        "break-even α solves tokens = γc + 1 by bisection on [0, 1]; accepted / drafted = "
        "(tokens − 1) / γ"
    ),
    source_title="Leviathan, Kalman and Matias (2023): Fast Inference from Transformers via "
    "Speculative Decoding",
    source_url="https://arxiv.org/abs/2211.17192",
    inputs=INPUTS,
    outputs=OUTPUTS,
    compute=_compute,
    see_also=(
        Source(
            "vLLM v1/spec_decode/metrics.py (the SpecDecoding metrics line)",
            "https://github.com/vllm-project/vllm/blob/016a8587edb04ae53c913a1da9355a07dc0ca4ae/vllm/v1/spec_decode/metrics.py",
        ),
    ),
)
