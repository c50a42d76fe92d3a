"""A revision described by what it changed: the front matter keys and sections it touched,
or a count of lines when it touched many."""

from __future__ import annotations

import pytest
from paths import GOOD

from failref.domain.references.changes import describe_change, part_of_each_line

TEXT = (GOOD / "stuck-rank.md").read_text(encoding="utf-8")
TITLE = "title: One rank is stuck while the others wait"
SUMMARY = "summary: A rank stops making progress and its peers time out in a collective."
CAUSE = "3. **A dead host.** The process is gone."


@pytest.mark.parametrize(
    ("new", "described"),
    [
        pytest.param(TEXT.replace(TITLE, "title: One rank hangs"), "title changed", id="title"),
        pytest.param(
            TEXT.replace(TITLE, "title: One rank hangs").replace(SUMMARY, "summary: Hangs."),
            "title and summary changed",
            id="title-and-summary",
        ),
        pytest.param(TEXT.replace(CAUSE, "3. **A host died.**"), "causes changed", id="a-cause"),
        pytest.param(
            TEXT.replace("## Context\n", "## Context\n\nA new paragraph.\n"),
            "context changed",
            id="inserted-in-a-section",
        ),
        pytest.param(TEXT.replace(CAUSE + "\n", ""), "causes changed", id="deleted-line"),
        pytest.param(
            TEXT.replace(TITLE, "title: X").replace("updated: 2026-10-01", "updated: 2026-12-01"),
            "title changed",
            id="updated-goes-without-saying",
        ),
        pytest.param(
            TEXT.replace("updated: 2026-10-01", "updated: 2026-12-01"),
            "updated changed",
            id="only-updated",
        ),
        pytest.param(
            TEXT.replace(TITLE, "title: X")
            .replace(SUMMARY, "summary: Y.")
            .replace(CAUSE, "3. Z")
            .replace("## Context\n", "## Context\n\nW\n"),
            "5 lines changed",
            id="many-parts-counted",
        ),
        pytest.param(TEXT, "no change", id="same"),
    ],
)
def test_a_change_is_named_by_the_parts_it_touched(new: str, described: str) -> None:
    assert describe_change(TEXT, new) == described


def test_a_first_revision_is_a_creation_and_line_endings_are_no_change() -> None:
    assert describe_change("", TEXT) == "created"
    assert describe_change(TEXT, TEXT.replace("\n", "\r\n")) == "no change"


def test_each_line_belongs_to_its_key_or_section_even_in_a_text_that_does_not_parse() -> None:
    lines = ["---", "title: a", "tags:", "  - b", "---", "", "## Causes", "1. c", "## Odd ##"]
    assert part_of_each_line(lines) == [
        "front matter",
        "title",
        "tags",
        "tags",
        "front matter",
        "text before the sections",
        "causes",
        "causes",
        "odd",
    ]
    assert part_of_each_line(["no front matter", "## Context"]) == [
        "text before the sections",
        "context",
    ]
