"""The three-way merge of reference files: one-sided changes merge, overlapping ones conflict."""

from __future__ import annotations

import random

import pytest

from failref.domain.references.merge import (
    SPLIT_MARKER,
    THEIRS_MARKER,
    YOURS_MARKER,
    conflict_markers,
    merge_lines,
    merge_texts,
    plain_newlines,
    split_lines,
    two_way,
)

BASE = "".join(f"line {n}\n" for n in range(1, 11))


def edit(text: str, number: int, new: str) -> str:
    """`text` with line `number` (1-based) replaced by `new` (several lines, or none)."""
    lines = text.splitlines(keepends=True)
    lines[number - 1 : number] = [f"{line}\n" for line in new.splitlines()] if new else []
    return "".join(lines)


@pytest.mark.parametrize(
    ("theirs", "yours", "expected"),
    [
        pytest.param(BASE, BASE, BASE, id="nobody-changed"),
        pytest.param(edit(BASE, 2, "two"), BASE, edit(BASE, 2, "two"), id="only-theirs"),
        pytest.param(BASE, edit(BASE, 9, "nine"), edit(BASE, 9, "nine"), id="only-yours"),
        pytest.param(
            edit(BASE, 2, "two"),
            edit(BASE, 9, "nine"),
            edit(edit(BASE, 2, "two"), 9, "nine"),
            id="apart",
        ),
        pytest.param(
            edit(BASE, 3, "three"),
            edit(BASE, 5, "five"),
            edit(edit(BASE, 3, "three"), 5, "five"),
            id="one-line-between",
        ),
        pytest.param(
            edit(BASE, 4, "same"), edit(BASE, 4, "same"), edit(BASE, 4, "same"), id="same"
        ),
        pytest.param(
            edit(BASE, 1, "new first\nline 1"),
            edit(BASE, 10, "line 10\nnew last"),
            edit(edit(BASE, 1, "new first\nline 1"), 11, "line 10\nnew last"),
            id="insert-at-both-ends",
        ),
        pytest.param(
            edit(BASE, 6, ""),
            edit(BASE, 2, "two"),
            edit(edit(BASE, 6, ""), 2, "two"),
            id="delete-and-edit-apart",
        ),
    ],
)
def test_changes_that_do_not_overlap_merge_by_themselves(
    theirs: str, yours: str, expected: str
) -> None:
    merged = merge_texts(BASE, theirs, yours)
    assert merged.conflicts == []
    assert merged.text == expected


@pytest.mark.parametrize(
    ("theirs", "yours", "expected"),
    [
        pytest.param(
            edit(BASE, 3, "title"),
            edit(BASE, 4, "summary"),
            edit(edit(BASE, 3, "title"), 4, "summary"),
            id="next-line",
        ),
        pytest.param(
            edit(BASE, 4, "summary"),
            edit(BASE, 3, "title"),
            edit(edit(BASE, 3, "title"), 4, "summary"),
            id="line-before",
        ),
        pytest.param(
            edit(edit(BASE, 3, "three"), 5, "five"),
            edit(BASE, 4, "four"),
            edit(edit(edit(BASE, 3, "three"), 4, "four"), 5, "five"),
            id="between-two-of-theirs",
        ),
        pytest.param(
            edit(BASE, 4, ""),
            edit(BASE, 5, "five"),
            edit(edit(BASE, 5, "five"), 4, ""),
            id="deleted-and-edited-next",
        ),
        pytest.param(
            edit(BASE, 4, "added before 4\nline 4"),
            edit(BASE, 4, "four"),
            edit(BASE, 4, "added before 4\nfour"),
            id="insert-before-an-edited-line",
        ),
        pytest.param(
            edit(BASE, 4, "line 4\nadded after 4"),
            edit(BASE, 4, "four"),
            edit(BASE, 4, "four\nadded after 4"),
            id="insert-after-an-edited-line",
        ),
    ],
)
def test_edits_of_adjacent_lines_merge_by_themselves(
    theirs: str, yours: str, expected: str
) -> None:
    merged = merge_texts(BASE, theirs, yours)
    assert merged.conflicts == []
    assert merged.text == expected
    assert merge_texts(BASE, yours, theirs).text == expected


def test_only_the_lines_both_changed_conflict_and_the_adjacent_ones_merge() -> None:
    theirs = edit(edit(BASE, 3, "three (theirs)"), 5, "five (theirs)")
    yours = edit(edit(BASE, 4, "four (yours)"), 5, "five (yours)")
    merged = merge_texts(BASE, theirs, yours)
    assert [hunk.kind for hunk in merged.hunks] == ["unchanged", "theirs", "conflict", "unchanged"]
    [conflict] = merged.conflicts
    assert (conflict.base, conflict.theirs, conflict.yours, conflict.base_start) == (
        ("line 4", "line 5"),
        ("line 4", "five (theirs)"),
        ("four (yours)", "five (yours)"),
        4,
    )
    lines = split_lines(merged.text)
    assert lines[2] == "three (theirs)"
    assert merged.conflict_lines() == [4]


@pytest.mark.parametrize(
    ("theirs", "yours"),
    [
        pytest.param(edit(BASE, 4, "theirs"), edit(BASE, 4, "yours"), id="same-line"),
        pytest.param(edit(BASE, 4, ""), edit(BASE, 4, "yours"), id="deleted-and-edited"),
        pytest.param(
            edit(BASE, 4, "line 4\nadded by them"),
            edit(BASE, 4, "line 4\nadded by you"),
            id="both-insert-at-one-place",
        ),
        pytest.param(
            edit(edit(BASE, 4, "four"), 5, "five"),
            edit(BASE, 5, "FIVE"),
            id="overlapping-ranges",
        ),
        pytest.param(
            edit(BASE, 3, "line 3\nadded by them"),
            edit(BASE, 4, "added by you\nline 4"),
            id="both-insert-between-the-same-two-lines",
        ),
        pytest.param(
            edit(edit(BASE, 4, "four"), 5, "five"),
            edit(BASE, 4, "line 4\nadded by you"),
            id="insert-inside-lines-they-changed",
        ),
        pytest.param(
            edit(edit(BASE, 3, "three"), 4, "four"),
            edit(edit(BASE, 4, "FOUR"), 5, "FIVE"),
            id="chained-overlap",
        ),
    ],
)
def test_changes_that_overlap_are_one_conflict_with_all_three_versions(
    theirs: str, yours: str
) -> None:
    merged = merge_texts(BASE, theirs, yours)
    [conflict] = merged.conflicts
    assert conflict.base == tuple(
        split_lines(BASE)[conflict.base_start - 1 :][: len(conflict.base)]
    )
    assert conflict.theirs != conflict.yours
    lines = split_lines(merged.text)
    start = merged.conflict_lines()[0]
    assert lines[start - 1] == THEIRS_MARKER
    assert lines[start - 1 + len(conflict.theirs) + 1] == SPLIT_MARKER
    assert lines[start - 1 + len(conflict.theirs) + len(conflict.yours) + 2] == YOURS_MARKER
    assert conflict_markers(merged.text) == [start, start + len(conflict.merged) - 1]


def test_only_the_overlapping_stretch_is_a_conflict_and_the_rest_merges() -> None:
    theirs = edit(edit(BASE, 2, "two"), 7, "seven (theirs)")
    yours = edit(edit(BASE, 7, "seven (yours)"), 10, "ten")
    merged = merge_texts(BASE, theirs, yours)
    [conflict] = merged.conflicts
    assert (conflict.base, conflict.theirs, conflict.yours) == (
        ("line 7",),
        ("seven (theirs)",),
        ("seven (yours)",),
    )
    assert conflict.base_start == 7
    lines = split_lines(merged.text)
    assert (lines[1], lines[-1]) == ("two", "ten")
    assert merged.conflict_lines() == [7]


def test_line_endings_are_not_changes() -> None:
    crlf = BASE.replace("\n", "\r\n")
    merged = merge_texts(BASE, BASE, edit(BASE, 3, "three").replace("\n", "\r\n"))
    assert merged.conflicts == []
    assert merged.text == edit(BASE, 3, "three")
    assert [hunk.kind for hunk in merge_texts(BASE, crlf, crlf).hunks] == ["unchanged"]


def test_empty_and_missing_final_newline() -> None:
    assert merge_texts("", "", "").text == ""
    assert merge_texts("", "a\n", "").text == "a\n"
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\r\nb\r\n") == ["a", "b"]
    assert plain_newlines("a\rb\r\nc") == "a\nb\nc"


def test_a_text_without_markers_has_none() -> None:
    assert conflict_markers(BASE + "=======\n") == []


@pytest.mark.parametrize("seed", range(40))
def test_random_edits_in_separate_stretches_merge_to_both(seed: int) -> None:
    """Theirs edits the first half, yours the second, with an untouched line between: the
    merge is always both edits, never a conflict; swapping the sides gives the same text."""
    rng = random.Random(seed)
    base = [f"b{n}" for n in range(30)]

    def scramble(lines: list[str], tag: str) -> list[str]:
        out = []
        for line in lines:
            roll = rng.random()
            if roll < 0.15:
                continue  # deleted
            out.append(f"{tag}-{line}" if roll < 0.35 else line)
            if rng.random() < 0.1:
                out.append(f"{tag}-new")
        return out

    theirs = scramble(base[:14], "t") + base[14:]
    yours = base[:16] + scramble(base[16:], "y")
    merged = merge_lines(base, theirs, yours)
    assert merged.conflicts == []
    # b14 and b15 are untouched on both sides: theirs up to them, yours from them on.
    expected = theirs[: theirs.index("b14")] + yours[yours.index("b14") :]
    assert split_lines(merged.text) == expected
    assert merge_lines(base, yours, theirs).text == merged.text


def test_without_a_base_every_difference_is_a_conflict() -> None:
    theirs, yours = edit(BASE, 2, "two"), edit(BASE, 9, "nine")
    merged = two_way(theirs, yours)
    assert [(hunk.theirs, hunk.yours) for hunk in merged.conflicts] == [
        (("two",), ("line 2",)),
        (("line 9",), ("nine",)),
    ]
    assert conflict_markers(merged.text) == [2, 6, 13, 17]
    assert two_way(BASE, BASE.replace("\n", "\r\n")).conflicts == []
