"""The walk of the bounded search: message lines looked at highest bound first, in growing
batches, each compared once its tight bound reaches what is needed, until no line left
can change the answer (`bounded.search_line` gives the bounds and the need)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence


def walk(
    entries: Sequence[int],
    bounds: Sequence[float],
    tight: Sequence[float],
    order: Sequence[int],
    compare: Callable[[list[int]], None],
    needed: Callable[[], float],
    first: int,
    most: int,
) -> float:
    """Look at lines highest bound first (`order`: positions in `entries` by falling
    `bounds`, ties in their order), `first` of them and then twice as many each time,
    until no line left has a bound that reaches `needed()` (asked after each batch: what
    was found raises or lowers it), or `most` have been looked at. A line looked at is
    compared once its `tight` bound (at most its bound) reaches the need too; one passed
    over is compared when the need falls to it (when `bounds` are the tight ones, none is
    passed over). Returns a bar every line
    whose tight bound reaches was compared: the last need, or the highest bound left out
    past `most`.
    """
    end = min(most, len(order))
    passed: list[tuple[float, int]] = []  # looked at, not compared: (-tight bound, entry)
    position, size = 0, first
    while True:
        need = needed()
        batch: list[int] = []
        while passed and -passed[0][0] >= need:
            batch.append(heapq.heappop(passed)[1])
        stop = position
        while stop < min(position + size, end) and bounds[order[stop]] >= need:
            stop += 1
        for n in order[position:stop]:
            if tight[n] >= need:
                batch.append(entries[n])
            else:
                heapq.heappush(passed, (-tight[n], entries[n]))
        if stop == position and not batch:  # every line passed over is under the need
            left = bounds[order[position]] if position < len(order) else -math.inf
            return need if left < need else max(need, math.nextafter(left, math.inf))
        if batch:
            compare(batch)
        position, size = stop, size * 2
