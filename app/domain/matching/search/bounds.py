"""What the bounded search needs to know of scoring, as a protocol: how far keywords, code
paths and the run's context can lift a line's similarity, per reference and for all at
once. `scoring.Scorer` satisfies it, so the search never imports scoring."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from ..index.context_terms import ContextVerdict

# Bounds on a score are taken this much loose (relative), so a
# sum rounded another way never puts a reference that counts under one.
CEILING_SLACK = 1 + 1e-9


class ScoreBounds(Protocol):
    """The most a reference can score on a line of a given similarity, and its score."""

    @property
    def lift(self) -> float:
        """The most the run's context can multiply any score by."""
        ...

    def ceiling(self, similarity: float) -> float:
        """The most any reference can score on a line of this similarity."""
        ...

    def gap(self, ref: int) -> float:
        """The share of the gap to 1 that keywords and code paths fill for `ref`."""
        ...

    def gaps(self) -> NDArray[np.float64]:
        """`gap` of every reference at once (a bound, a hair loose)."""
        ...

    def base(self, ref: int, similarity: float) -> float:
        """The similarity with the gap to 1 partly filled, before the context."""
        ...

    def offset(self, ref: int) -> ContextVerdict:
        """What the run's context says of `ref`: its offset and reasons."""
        ...


class RawScore(Protocol):
    """A reference's score as the paste found it so far (`scoring.Scored`)."""

    @property
    def raw(self) -> float: ...
