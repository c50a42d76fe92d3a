"""Whether a run's context contradicts a reference outright (then it is never confident,
whatever its score). Only what the user said can contradict, and only for real: a run
said to be only training (or only serving) against a failure that happens only in the
other, or an engine other than the ones an `engine_specific` failure belongs to. What
the text gives away is a guess from words and never gates; phases that happen in both
kinds of run (start-up, checkpoints, compiling, data loading) never contradict either.
How much an agreeing context lifts a score is `index.context_terms`.
"""

from __future__ import annotations

from ...references.document import Reference
from ..index.context_terms import ENGINES, contradicts
from ..reading.context import ContextFields
from ..reading.context_words import framework_name


def context_gates(reference: Reference, given: ContextFields) -> list[str]:
    """Why what the user said of the run contradicts a reference (then it is never
    confident): the phase, or the engine of an engine-specific failure."""
    gates = []
    if given.phases and contradicts(given.phases, reference.phases):
        gates.append(
            f"context disagrees: you said {', '.join(given.phases)}, "
            f"and this happens in {', '.join(reference.phases)}"
        )
    if given.frameworks and _other_engine(reference, given.frameworks):
        gates.append(
            f"context disagrees: you said {', '.join(given.frameworks)}, "
            f"and this belongs to {', '.join(reference.frameworks)}"
        )
    return gates


def _other_engine(reference: Reference, frameworks: tuple[str, ...]) -> bool:
    """True when the run names an engine, none of those named is the reference's, and the
    reference's failure belongs to its engines."""
    if not reference.engine_specific or not set(frameworks) & ENGINES:
        return False
    named = {framework_name(f) for f in reference.frameworks}
    return named.isdisjoint(frameworks)
