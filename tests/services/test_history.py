"""A reference's history: numbered as the list shows it, each revision described by its
message or by what it changed, and any revision compared with the text now."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from failref.config import Settings
from failref.errors import NotFound
from failref.services.editing import Edit, editable_file, save_reference
from failref.services.history import compare_with_current, history, revision_text
from failref.services.library import Library, open_library

CAUSE_3 = "3. **A dead host.** The process is gone."


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    opened = open_library(settings)
    yield opened
    opened.close()


def save(library: Library, old: str, new: str, message: str) -> str:
    """Save the reference with `old` replaced by `new`; the text saved."""
    found = editable_file(library, "stuck-rank")
    assert found is not None
    text = found[0].replace(old, new)
    save_reference(library, Edit("stuck-rank", text, found[1], False, message), "ann")
    return text


def test_revisions_are_numbered_as_the_list_and_described(library: Library) -> None:
    save(library, CAUSE_3, "3. **A host that died.**", "")
    save(library, "title: One rank is stuck", "title: A rank is stuck", "clearer title")
    save(library, "summary: A rank stops", "summary: One rank stops", "edited")
    entries = history(library, "stuck-rank")
    assert [entry.number for entry in entries] == [4, 3, 2, 1]
    # A revision without a message (or with the placeholder older saves stored) is
    # described by what it changed; a message is kept, with what it changed beside it.
    assert [(entry.message, entry.changed) for entry in entries] == [
        ("", "summary changed"),
        ("clearer title", "title changed"),
        ("", "causes changed"),
        ("loaded from file", "created"),
    ]
    assert [entry.is_current for entry in entries] == [True, False, False, False]
    assert "+3. **A host that died.**" in entries[2].diff
    number, text = revision_text(library, "stuck-rank", entries[-1].row.id or 0)
    assert (number, text) == (1, entries[-1].row.content)


def test_a_revision_compared_with_the_text_now(library: Library) -> None:
    save(library, CAUSE_3, "3. **A host that died.**", "")
    first, newest = history(library, "stuck-rank")[::-1][:2]
    comparison = compare_with_current(library, "stuck-rank", first.row.id or 0)
    assert comparison.entry.number == 1
    changed = [line for line in comparison.diff.splitlines() if line[:1] in "+-"]
    assert changed == [
        "--- revision 1",
        "+++ now",
        f"-{CAUSE_3}",
        "+3. **A host that died.**",
    ]
    now = compare_with_current(library, "stuck-rank", newest.row.id or 0)
    assert (now.diff, now.entry.is_current) == ("", True)


def test_a_revision_of_another_reference_is_not_found(library: Library) -> None:
    other = history(library, "slow-collective")[0].row.id or 0
    with pytest.raises(NotFound):
        compare_with_current(library, "stuck-rank", other)
    with pytest.raises(NotFound):
        revision_text(library, "stuck-rank", other)
    with pytest.raises(NotFound):
        history(library, "no-such-reference")


def test_a_file_changed_in_git_and_not_loaded_yet_is_the_text_now(library: Library) -> None:
    path = library.settings.references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace(CAUSE_3, "3. **Changed in git.**"))
    [entry] = history(library, "stuck-rank")
    assert not entry.is_current
    comparison = compare_with_current(library, "stuck-rank", entry.row.id or 0)
    assert "+3. **Changed in git.**" in comparison.diff
