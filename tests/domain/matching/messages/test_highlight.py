"""Where a match was found in the pasted text: the matched line split around the matched
characters, and nothing for a span that names no sound place."""

from __future__ import annotations

import pytest

from failref.domain.matching.messages.highlight import Highlight, highlight
from failref.domain.matching.results import Match


def match_at(span: tuple[int, int] | None) -> Match:
    return Match(
        id="x",
        title="X",
        summary="X.",
        score=0.9,
        confident=True,
        reasons=[],
        matched_message=None,
        matched_span=span,
    )


@pytest.mark.parametrize(
    ("text", "span", "expected"),
    [
        pytest.param("abc def", (4, 7), Highlight(1, "abc ", "def", ""), id="one-line"),
        pytest.param("a\nxx yy zz\nb", (5, 7), Highlight(2, "xx ", "yy", " zz"), id="middle"),
        pytest.param("a\r\nhit\r\n", (3, 6), Highlight(2, "", "hit", ""), id="crlf"),
    ],
)
def test_highlight_splits_the_matched_line(
    text: str, span: tuple[int, int], expected: Highlight
) -> None:
    assert highlight(text, match_at(span)) == expected


@pytest.mark.parametrize("span", [None, (5, 50), (3, 2)])
def test_no_highlight_without_a_sound_span(span: tuple[int, int] | None) -> None:
    assert highlight("short", match_at(span)) is None
