"""The walk of the bounded search: lines highest bound first, in growing batches, until no
line left reaches the need, asked after every batch."""

from __future__ import annotations

from failref.domain.matching.search.walk import walk


def _walked(
    bounds: list[float],
    needs: list[float],
    most: int = 100,
    tight: dict[int, float] | None = None,
) -> tuple[list[int], float]:
    """The lines `walk` compares (in order) against a need that takes `needs` in turn;
    `tight` gives some lines (by entry) a tight bound under their bound."""
    compared: list[int] = []
    asked = iter([*needs, *[needs[-1]] * 100])
    entries = [10 * n for n in range(len(bounds))]
    tights = [(tight or {}).get(entry, bound) for entry, bound in zip(entries, bounds, strict=True)]
    order = sorted(range(len(bounds)), key=bounds.__getitem__, reverse=True)
    bar = walk(entries, bounds, tights, order, compared.extend, lambda: next(asked), 2, most)
    return compared, bar


def test_the_walk_compares_highest_bound_first_until_none_left_reaches_the_need() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.0, 0.6])
    assert compared == [10, 50, 30]  # 0.9 and 0.8, then 0.7; 0.5 is under the need
    assert bar == 0.6
    assert _walked(bounds, [2.0]) == ([], 2.0)
    assert _walked(bounds, [0.0]) == ([10, 50, 30, 0, 40, 20], 0.0)


def test_the_need_is_asked_after_every_batch() -> None:
    compared, bar = _walked([0.5, 0.9, 0.1, 0.7, 0.3, 0.8], [0.0, 0.4, 0.85])
    assert compared == [10, 50, 30, 0]  # a batch of two, then of up to four over 0.4
    assert bar == 0.85  # what was found raised the need past the lines left


def test_the_walk_stops_at_most_and_says_where() -> None:
    compared, bar = _walked([0.5, 0.9, 0.1, 0.7, 0.3, 0.8], [0.0], most=3)
    assert compared == [10, 50, 30]
    assert 0.5 < bar < 0.5000001  # every line left out is under it, the best of them 0.5


def test_a_line_under_the_need_by_its_tight_bound_is_not_compared() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.6], tight={10: 0.2})
    assert compared == [50, 30]  # 0.9 is 0.2 at its tight bound
    assert bar == 0.6


def test_a_line_passed_over_is_compared_when_the_need_falls_to_it() -> None:
    bounds = [0.5, 0.9, 0.1, 0.7, 0.3, 0.8]
    compared, bar = _walked(bounds, [0.6, 0.6, 0.15], tight={10: 0.2})
    assert compared == [50, 30, 10, 0, 40]  # 0.9, passed over at 0.2, comes in at 0.15
    assert bar == 0.15
