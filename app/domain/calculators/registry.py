"""The registry: every calculator by name, in the order pages and the API list them."""

from __future__ import annotations

from ...errors import UnknownCalculator
from . import (
    activation_memory,
    allreduce,
    attention_memory,
    checkpoint,
    checkpoint_stall,
    input_pipeline,
    kv_cache,
    matmul_time,
    moe,
    pipeline,
    speculative_speedup,
    static_batch,
    straggler,
    zero3,
)
from .calculator import Calculator

CALCULATORS: dict[str, Calculator] = {
    calculator.name: calculator
    for calculator in (
        allreduce.CALCULATOR,
        pipeline.CALCULATOR,
        kv_cache.CALCULATOR,
        moe.CALCULATOR,
        checkpoint.CALCULATOR,
        straggler.CALCULATOR,
        input_pipeline.CALCULATOR,
        zero3.CALCULATOR,
        static_batch.CALCULATOR,
        activation_memory.CALCULATOR,
        attention_memory.CALCULATOR,
        checkpoint_stall.CALCULATOR,
        speculative_speedup.CALCULATOR,
        matmul_time.CALCULATOR,
    )
}


def get_calculator(name: str) -> Calculator:
    """The calculator registered as `name`; raises UnknownCalculator otherwise."""
    try:
        return CALCULATORS[name]
    except KeyError:
        raise UnknownCalculator(name, CALCULATORS) from None
