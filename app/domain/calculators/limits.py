"""Bounds shared by several calculators: wide enough for any real run, tight enough that
no combination of inputs can overflow, divide by zero or produce NaN."""

from __future__ import annotations

from .spec import InputSpec

# A billion steps is orders of magnitude beyond the longest training run.
MAX_STEPS = 1_000_000_000
# A million workers or ranks exceeds the largest cluster by two orders of magnitude.
MAX_WORKERS = 1_000_000
# 1 MB/s: below this a "link" is down, and smaller divisors would blow up times.
MIN_BANDWIDTH_GBPS = 0.001
# 100 TB/s exceeds any single device's memory or interconnect bandwidth.
MAX_BANDWIDTH_GBPS = 100_000.0
# 1 microsecond: the smallest duration worth modelling, and a safe divisor.
MIN_DURATION_MS = 0.001
# A billion milliseconds (11.6 days) for one step or stage is certainly a typo.
MAX_DURATION_MS = 1_000_000_000.0
# A million GB (1 PB) of gradients or weights is beyond any model.
MAX_SIZE_GB = 1_000_000.0
# 1 bit per value is the smallest storage format in use.
MIN_BYTES_PER_VALUE = 0.125
# 16 bytes covers fp64 with a companion value; larger is a unit mistake.
MAX_BYTES_PER_VALUE = 16.0


def bytes_per_value_input(label: str, help_text: str) -> InputSpec:
    """The storage width of one number (2 for fp16/bf16 by default), as every memory
    calculator takes it."""
    return InputSpec(
        "bytes_per_value",
        label,
        "bytes",
        "number",
        2.0,
        minimum=MIN_BYTES_PER_VALUE,
        maximum=MAX_BYTES_PER_VALUE,
        help=help_text,
    )
