"""Two messages that match one pasted line, one holding every telling word of the other and
more: the more specific decides. When the line says the extra words, the general message
is not a confident answer for that line (a size mismatch whose shape is `torch.Size([0])`,
which ZeRO-3's page names, against any checkpoint's size mismatch); when the line does
not say them, the specific message is not (it names what the line lacks). Units
(`GiB`, `ms`) clothe values and name no failure: two messages that differ only by them are
as specific as each other (vLLM's `Error in model execution` quoted whole on one page, up to
its `Tried to allocate <n> GiB` on another)."""

from __future__ import annotations

from collections.abc import Sequence

from ..index.match_index import MatchIndex
from ..scoring.scorer import Scored
from ..search.compare import LineScores

# How many of the extra words a reason quotes.
QUOTED_WORDS = 3
# Units of the sizes, times and rates logs print: never what makes a message more specific.
UNIT_WORDS = frozenset(
    [
        "b",
        "kb",
        "kib",
        "mb",
        "mib",
        "gb",
        "gib",
        "tb",
        "tib",
        "bytes",
        "ns",
        "us",
        "ms",
        "sec",
        "secs",
        "seconds",
        "min",
        "mins",
        "minutes",
        "hours",
        "gbps",
        "mbps",
        "gbit",
        "hz",
        "mhz",
        "ghz",
        "tflops",
    ]
)


def narrower_matches(
    index: MatchIndex,
    ranked: Sequence[tuple[int, Scored]],
    neighbours: Sequence[tuple[int, LineScores]],
) -> dict[int, str]:
    """Why each ranked reference is held back from confidence when another reference's
    message fits the line its match rests on better, by reference."""
    by_number = dict(neighbours)
    held: dict[int, str] = {}
    for ref, scored in ranked:
        scores = by_number.get(scored.line_number)
        if scored.line is None or scores is None:
            continue
        mine = set(index.entry_weights[scored.line.entry])
        said = set(scores.query)  # the line's telling words
        for other, _ in ranked:
            line = scores.best_line(index, other) if other != ref else None
            theirs = set(index.entry_weights[line.entry]) if line is not None else mine
            if not (mine < theirs or theirs < mine):
                continue
            extra = (theirs ^ mine) - UNIT_WORDS
            if not extra:
                continue
            words = ", ".join(sorted(extra)[:QUOTED_WORDS])
            if mine < theirs and extra <= said:
                held[ref] = (
                    f"the line says “{words}”, which {index.references[other].id}'s message names"
                )
                break
            if theirs < mine and not extra & said:
                held[ref] = f"its message names “{words}”, which the line does not"
                break
    return held
