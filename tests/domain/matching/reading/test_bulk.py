"""The whole-text normaliser gives `normalize_line`'s output, line for line: on the labelled
set, on every whole log, on hostile lines and on generated ones."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.bulk import (
    ANY_DIGIT,
    MASK_PASSES,
    PREFIX_STARTS,
    ZERO_DIGITS,
    MaskPass,
    fewest,
    normalize_lines,
    prefix_length,
    runs_holding,
    spaces_tidied,
    within_lines,
)
from failref.domain.matching.reading.normalize import (
    MAX_LINE_CHARS,
    PREFIX_RES,
    normalize_line,
    strip_prefixes,
)

# Characters the rules turn on: digits (ASCII and not), brackets, separators, placeholders'
# angle brackets, white space of every kind, escapes, controls and the letters of levels.
CHARACTERS = "0123456789٣abcdefxXIWEFDVJMASONCTrankpidl[](){}<>|:;-_./\\~@+,= \t\r\x1b\x00\x0b\x85\u2028\ufffd\u00e9"
PIECES = [
    *("<n>", "<path>", "rank", "INFO ", "ERROR:root:", "Xid", "://", "0x", "localhost", ".py:"),
    *(".com", ".co", "3b:00", "0000:", "1.2", "4x8", "deadbeef", "-4a5b-", "Size([0])", "shape "),
]
TRICKY = st.sampled_from([*CHARACTERS, *PIECES, "pid="])


def whole_log_lines() -> list[str]:
    return [
        line
        for path in sorted((DATA / "wholelogs").glob("*.log"))
        for line in path.read_text(encoding="utf-8").split("\n")
    ]


def labelled_lines() -> list[str]:
    return [line.text for line in read_labelled(DATA / "labelled")]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(labelled_lines(), id="labelled set"),
        pytest.param(whole_log_lines(), id="whole logs"),
        pytest.param(
            [
                "x" * (MAX_LINE_CHARS + 9) + " 12",
                "a\rb 1\r",
                "\x1b[31mE1102 1:2:3 f.cc:1] x\x1b[0m",
            ],
            id="long, redrawn and coloured",
        ),
        pytest.param(["", "  ", "[rank0]:   ", "INFO ", "12: "], id="prefix and nothing after"),
    ],
)
def test_every_line_is_normalised_as_normalize_line_does(lines: list[str]) -> None:
    assert normalize_lines(lines) == [normalize_line(line) for line in lines]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(TRICKY, max_size=40).map("".join), max_size=12))
def test_generated_lines_are_normalised_as_normalize_line_does(lines: list[str]) -> None:
    assert normalize_lines(lines) == [normalize_line(line) for line in lines]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=8))
def test_any_text_is_normalised_as_normalize_line_does(lines: list[str]) -> None:
    assert normalize_lines(lines) == [normalize_line(line) for line in lines]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(labelled_lines(), id="labelled set"),
        pytest.param(whole_log_lines(), id="whole logs"),
        pytest.param(["", "  ", "[rank0]:   ", "INFO ", "12: ", "\u2028INFO x"], id="edges"),
    ],
)
def test_the_prefix_pass_takes_what_strip_prefixes_takes(lines: list[str]) -> None:
    assert [prefix_length(line) for line in lines] == [
        len(line) - len(strip_prefixes(line)) for line in lines
    ]


@settings(max_examples=400, deadline=None)
@given(st.lists(TRICKY, max_size=40).map("".join))
def test_the_prefix_pass_takes_what_strip_prefixes_takes_of_generated_lines(line: str) -> None:
    assert prefix_length(line) == len(line) - len(strip_prefixes(line))


def test_a_line_holding_a_newline_is_normalised_on_its_own() -> None:
    assert normalize_lines(["a 1\nb 2", "c"]) == [normalize_line("a 1\nb 2"), "c"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param(r"a\s+b", r"a[^\S\n]+b", id="white space skips newlines"),
        pytest.param(r"[^)\s]", r"[^\n)\s]", id="a negated class excludes newlines"),
        pytest.param(r"[\w.]\\s", r"[\w.]\\s", id="an escaped backslash is a backslash"),
    ],
)
def test_a_pattern_is_kept_inside_one_line(pattern: str, expected: str) -> None:
    assert within_lines(pattern) == expected


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"a\Wb", id="non-word"),
        pytest.param(r"[\s,]", id="white space in a class"),
        pytest.param(r"^a", id="anchor"),
        pytest.param(r"a\Z", id="end of text"),
    ],
)
def test_a_pattern_that_could_cross_lines_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match="line"):
        within_lines(pattern)


@pytest.mark.parametrize("pattern", PREFIX_RES, ids=lambda p: p.pattern[:30])
def test_every_prefix_rule_needs_a_colon_or_a_known_first_character(
    pattern: re.Pattern[str],
) -> None:
    """What lets `normalize_lines` skip lines: a line with no `:` that starts with none of
    PREFIX_STARTS (nor a digit or a space) is matched by no prefix rule."""
    for first in "abcdefghijklmnopqrstuvwxyzBGHKLPQRUXYZ_.*#\"'":
        if first in PREFIX_STARTS:
            continue
        for rest in ("rank 1] x", "ank1 x", "oo.py-1 x", "a-b x", " x", "nfo x"):
            assert pattern.match(first + rest) is None, first + rest


def holds_needles(text: str, mask: MaskPass) -> bool:
    """Whether `text` holds what `normalize_lines` looks for before running the mask."""
    needles_in = text.translate(ZERO_DIGITS) if mask.needles == ANY_DIGIT else text
    if not any(needle in needles_in for needle in mask.needles):
        return False
    view = text.translate(mask.view) if mask.view else text
    return not mask.view_needles or any(needle in view for needle in mask.view_needles)


@pytest.mark.parametrize("mask", MASK_PASSES, ids=lambda mask: mask.pattern.pattern[:30])
def test_every_match_of_a_mask_holds_its_needles(mask: MaskPass) -> None:
    """What lets `normalize_lines` skip lines for a mask: no match lacks its needles (on
    the labelled and whole-log lines and the hypothesis alphabet's pieces)."""
    shapes = "[<n>, <n>] (<n>,<n>) <n> x <n>"  # what SHAPE_RE reads only appears once masked
    texts = [*labelled_lines(), *whole_log_lines(), *PIECES, " ".join(PIECES), shapes]
    matches = [found.group() for text in texts for found in mask.pattern.finditer(text)]
    assert [found for found in matches if found.isascii() and not holds_needles(found, mask)] == []


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, max_size=40).map("".join))
def test_no_generated_match_of_a_mask_lacks_its_needles(text: str) -> None:
    for mask in MASK_PASSES:
        for found in mask.pattern.finditer(text):
            assert not found.group().isascii() or holds_needles(found.group(), mask)


def test_a_needle_holding_another_is_left_out() -> None:
    assert fewest([".co", ".com", ".cloud", ".co"]) == (".co", ".cloud")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["a", "bc", " ", "  ", "\t", "\x85", "\x1f", "\u2028"]), max_size=12
        ).map("".join),
        max_size=8,
    )
)
def test_spaces_are_tidied_as_each_lines_split_does(lines: list[str]) -> None:
    assert spaces_tidied(lines) == [" ".join(line.split()) for line in lines]


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, max_size=40).map("".join))
def test_no_match_of_a_mask_run_by_runs_reaches_past_one(text: str) -> None:
    """What lets a mask run on `runs_holding` alone: no match holds white space, and the
    mask over the runs one at a time changes the text as over all of it."""
    for mask in MASK_PASSES:
        if mask.runs is None:
            continue
        assert not any(re.search(r"\s", found.group()) for found in mask.pattern.finditer(text))
        masked = mask.pattern.sub
        by_runs = mask.runs.sub(lambda run, masked=masked: masked("<m>", run.group()), text)
        assert by_runs == mask.pattern.sub("<m>", text)


def test_runs_are_found_by_one_character_needles() -> None:
    assert runs_holding(("/",)).findall("a/b c d/ e\n/f") == ["a/b", "d/", "/f"]
    with pytest.raises(ValueError, match="one-character"):
        runs_holding(("://",))
