"""Grouping a log's lines: the digit buckets and the groups are those of the per-line
rules (each line's digits collapsed with one regular expression, each bucket's first line
normalised on its own), on generated logs and on every whole log."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA

from failref.domain.matching.reading.grouping import digit_buckets, group_log_lines
from failref.domain.matching.reading.normalize import MAX_LINE_CHARS, normalize_line

DIGITS_RE = re.compile(r"\d+")
LINE = st.lists(
    st.sampled_from(["1", "22", "٣", "0", "a", " ", "x", "Xid ", "7", "\x00", "-", "/", "."]),
    max_size=12,
).map("".join)


def buckets_line_by_line(lines: Sequence[str]) -> list[list[int]]:
    buckets: dict[str, list[int]] = {}
    for number, line in enumerate(lines, 1):
        buckets.setdefault(DIGITS_RE.sub("0", line[:MAX_LINE_CHARS]), []).append(number)
    return list(buckets.values())


def groups_line_by_line(lines: Sequence[str]) -> list[tuple[str, list[int]]]:
    groups: dict[str, list[int]] = {}
    for numbers in buckets_line_by_line(lines):
        template = normalize_line(lines[numbers[0] - 1])
        if template:
            groups.setdefault(template, []).extend(numbers)
    return [(template, sorted(numbers)) for template, numbers in groups.items()]


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=30))
def test_digit_buckets_are_the_per_line_buckets(lines: list[str]) -> None:
    assert [list(numbers) for numbers in digit_buckets(lines)] == buckets_line_by_line(lines)


def test_lines_alike_past_the_length_limit_share_a_bucket() -> None:
    head = "x" * MAX_LINE_CHARS
    lines = [head + "1", "y", head + "22", head + "a"]
    assert [list(numbers) for numbers in digit_buckets(lines)] == [[1, 3, 4], [2]]


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=30))
def test_groups_are_the_per_line_groups(lines: list[str]) -> None:
    found = [(group.template, list(group.line_numbers)) for group in group_log_lines(lines)]
    assert found == groups_line_by_line(lines)


def test_every_whole_log_groups_as_line_by_line() -> None:
    for path in sorted((DATA / "wholelogs").glob("*.log")):
        lines = path.read_text(encoding="utf-8").splitlines()
        found = [(group.template, list(group.line_numbers)) for group in group_log_lines(lines)]
        assert found == groups_line_by_line(lines), path.name
