"""The conflict view: three versions merged when the base is known, two when it is not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from failref.config import Settings
from failref.services.conflicts import conflict_view
from failref.services.editing import editable_file
from failref.services.library import Library, open_library


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    opened = open_library(settings)
    yield opened
    opened.close()


def started(library: Library) -> tuple[str, str]:
    found = editable_file(library, "stuck-rank")
    assert found is not None
    return found


def test_a_known_base_merges_what_only_one_side_changed(library: Library) -> None:
    text, base = started(library)
    theirs = text.replace("A dead host.", "Theirs.")
    yours = text.replace("Compilation on one rank.", "Yours.")
    view = conflict_view(library, "stuck-rank", base, theirs, yours, "moved on")
    assert view.base_known
    assert view.merge is not None
    assert view.merge.conflicts == []
    assert view.merge.text == theirs.replace("Compilation on one rank.", "Yours.")
    assert view.merged_by_themselves == {"theirs": 1, "yours": 1, "both": 0}


def test_an_unknown_base_leaves_every_difference_to_decide(library: Library) -> None:
    text, _ = started(library)
    theirs = text.replace("A dead host.", "Theirs.")
    yours = text.replace("Compilation on one rank.", "Yours.")
    view = conflict_view(library, "stuck-rank", "0" * 64, theirs, yours, "moved on")
    assert not view.base_known
    assert view.merge is not None
    assert len(view.merge.conflicts) == 2


def test_a_deleted_file_has_nothing_to_merge(library: Library) -> None:
    text, base = started(library)
    view = conflict_view(library, "stuck-rank", base, None, text, "deleted")
    assert (view.merge, view.base_known, view.merged_by_themselves) == (
        None,
        False,
        {"theirs": 0, "yours": 0, "both": 0},
    )
