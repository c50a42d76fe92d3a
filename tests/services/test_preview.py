"""The editor's preview: labelled lines an edit places differently, named; the text a
reference started from a gap begins with."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import REFERENCES
from sqlmodel import select

from failref.config import Settings
from failref.services.editing import editable_file
from failref.services.library import Library, open_library
from failref.services.preview import new_reference_text, preview, rough_page
from failref.store.db import writing
from failref.store.gaps import record_gap
from failref.store.models import GapRow

LABELLED = """reference: stuck-rank
lines:
  - text: "torch._dynamo hit config.recompile_limit (8)"
    source: https://example.org/test-fixture
"""


@pytest.fixture
def library(settings: Settings, tmp_path: Path) -> Iterator[Library]:
    labelled = tmp_path / "labelled"
    labelled.mkdir()
    (labelled / "stuck-rank.yaml").write_text(LABELLED)
    (settings.references_dir / "README.md").write_text((REFERENCES / "README.md").read_text())
    opened = open_library(settings.model_copy(update={"labelled_dir": labelled}))
    yield opened
    opened.close()


def test_a_line_the_edit_loses_is_named_with_both_placements(library: Library) -> None:
    found = editable_file(library, "stuck-rank")
    assert found is not None
    edited = found[0].replace(
        "torch._dynamo hit config.recompile_limit (<n>)", "a completely different failure text"
    )
    shown = preview(library, "stuck-rank", edited.replace("\n", "\r\n"))
    [change] = shown.changes
    assert change.file == "stuck-rank.yaml"
    assert change.text == "torch._dynamo hit config.recompile_limit (8)"
    assert change.expected == "One rank is stuck while the others wait (stuck-rank)"
    assert change.before == "One rank is stuck while the others wait (stuck-rank)"
    assert change.direction == "now-wrong"
    assert (shown.now_right, shown.now_wrong) == (0, 1)
    assert change.after == "nothing"


def test_an_edit_that_moves_nothing_lists_nothing(library: Library) -> None:
    found = editable_file(library, "stuck-rank")
    assert found is not None
    shown = preview(library, "stuck-rank", found[0].replace("A dead host.", "A host died."))
    assert shown.changes == []
    assert (shown.labelled_right, shown.labelled_total) == (1, 1)


def test_a_gap_starts_an_outline_holding_only_its_line(library: Library) -> None:
    with writing(library.engine) as session:
        record_gap(session, "NVRM: Xid (PCI:0000:3b:00): 201, pid=1234, odd")
        session.commit()
        gap_id = session.exec(select(GapRow.id)).one()
    text = new_reference_text(library, gap_id)
    assert "```text\nNVRM: Xid (PCI:<hex>): 201, pid=<n>, odd\n```" in text
    assert text.startswith("---\nid:\ntitle:\nsummary:\n")
    for example in ("example-failure", "calculator", "allreduce-slow-link", "example.org"):
        assert example not in text
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## Message",
        "## Context",
        "## Causes",
        "## Evidence checks",
        "## Worked example",
        "## Sources",
    ]
    assert "title: One line naming the failure" in new_reference_text(library, None)


def test_a_text_whose_front_matter_does_not_parse_reads_whole() -> None:
    rough = rough_page("no front matter\n\n## Context\n\nA *slow* link.\n")
    assert rough.title == ""
    assert "<h2>Context</h2>" in rough.body_html
    assert "<em>slow</em>" in rough.body_html


def test_a_text_with_problems_reads_with_its_title_and_no_raw_html() -> None:
    rough = rough_page("---\ntitle: Slow link\n---\n\n<script>alert(1)</script>\n\n## Causes\n")
    assert rough.title == "Slow link"
    assert "<script>" not in rough.body_html
    assert "<h2>Causes</h2>" in rough.body_html
