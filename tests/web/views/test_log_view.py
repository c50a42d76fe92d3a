"""The numbered view of a pasted log: whole when short, excerpts around linked lines."""

from __future__ import annotations

from failref.web.views.log_view import AROUND_LINES, MAX_SHOWN_LINES, WHOLE_LOG_LINES, log_view


def numbered_log(lines: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, lines + 1))


def test_a_short_log_is_shown_whole() -> None:
    view = log_view(numbered_log(10), [3])
    assert view.whole
    (stretch,) = view.stretches
    assert (stretch.skipped, stretch.lines[0], stretch.lines[-1]) == (
        0,
        (1, "line 1"),
        (10, "line 10"),
    )
    assert view.trailing == 0


def test_a_long_log_shows_stretches_around_the_linked_lines() -> None:
    total = WHOLE_LOG_LINES + 1_000
    view = log_view(numbered_log(total), [100, 104, 2_500])
    assert not view.whole
    first, second = view.stretches
    assert first.skipped == 100 - AROUND_LINES - 1
    assert [n for n, _ in first.lines] == list(range(100 - AROUND_LINES, 104 + AROUND_LINES + 1))
    assert second.skipped == 2_500 - AROUND_LINES - (104 + AROUND_LINES) - 1
    assert view.trailing == total - (2_500 + AROUND_LINES)


def test_a_long_log_never_shows_more_than_the_cap() -> None:
    total = WHOLE_LOG_LINES * 20
    view = log_view(numbered_log(total), range(1, total, 3))
    shown = sum(len(stretch.lines) for stretch in view.stretches)
    assert shown <= MAX_SHOWN_LINES + 2 * AROUND_LINES + 1
