"""Saving as an editor: the draft is kept on a conflict (with the diff) and dropped on success;
from the editor page, a change saved meanwhile on other lines is merged in."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from store_helpers import in_database_mode

from failref.config import Settings
from failref.errors import StaleBase
from failref.services.editing import (
    Edit,
    editable_file,
    latest_draft,
    save_as_editor,
    unified_diff,
)
from failref.services.editors import add_editor
from failref.services.library import Library, open_library
from failref.store.db import writing
from failref.store.editors import editor_for_token
from failref.store.revisions import revisions


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    opened = open_library(settings)
    yield opened
    opened.close()


def editor_of(library: Library) -> int:
    token = add_editor(library, "ann")
    with writing(library.engine) as session:
        row = editor_for_token(session, token)
    assert row.id is not None
    return row.id


@pytest.fixture
def editor_id(library: Library) -> int:
    return editor_of(library)


def edit_of(library: Library, replacement: str, base: str | None = None) -> Edit:
    found = editable_file(library, "stuck-rank")
    assert found is not None
    text, current = found
    return Edit(
        "stuck-rank", text.replace("A dead host.", replacement), base or current, False, "e"
    )


def test_a_conflict_keeps_the_text_as_a_draft_and_carries_the_diff(
    library: Library, editor_id: int
) -> None:
    stale = edit_of(library, "A host that died.", base="0" * 64)
    with pytest.raises(StaleBase) as raised:
        save_as_editor(library, editor_id, "ann", stale)
    assert raised.value.diff is not None
    assert "+++ your version" in raised.value.diff
    assert "-3. **A dead host.** The process is gone." in raised.value.diff
    assert "+3. **A host that died.** The process is gone." in raised.value.diff
    kept = latest_draft(library, editor_id, "stuck-rank")
    assert kept is not None
    assert kept.text == stale.text


def test_a_save_drops_the_editors_drafts(library: Library, editor_id: int) -> None:
    with pytest.raises(StaleBase):
        save_as_editor(library, editor_id, "ann", edit_of(library, "First try.", "0" * 64))
    saved = save_as_editor(library, editor_id, "ann", edit_of(library, "A host that died."))
    assert latest_draft(library, editor_id, "stuck-rank") is None
    assert library.catalog.references["stuck-rank"].content_hash == saved.saved.content_hash
    assert not saved.merged


def test_a_browser_s_crlf_is_no_change_in_the_conflict_diff_or_the_draft(
    library: Library, editor_id: int
) -> None:
    plain = edit_of(library, "A host that died.", base="0" * 64)
    crlf = replace(plain, text=plain.text.replace("\n", "\r\n"))
    with pytest.raises(StaleBase) as raised:
        save_as_editor(library, editor_id, "ann", crlf)
    diff = raised.value.diff or ""
    changed = [line for line in diff.splitlines() if line[:1] in "+-"]
    assert changed == [
        "--- saved now",
        "+++ your version",
        "-3. **A dead host.** The process is gone.",
        "+3. **A host that died.** The process is gone.",
    ]
    kept = latest_draft(library, editor_id, "stuck-rank")
    assert kept is not None
    assert kept.text == plain.text


def test_a_crlf_save_writes_plain_newlines(library: Library, editor_id: int) -> None:
    plain = edit_of(library, "A host that died.")
    crlf = replace(plain, text=plain.text.replace("\n", "\r\n"))
    save_as_editor(library, editor_id, "ann", crlf)
    found = editable_file(library, "stuck-rank")
    assert found is not None
    assert found[0] == plain.text


def test_line_endings_are_no_change_in_a_diff() -> None:
    assert unified_diff("a\r\nb\r\n", "a\nb\n", "before", "after") == ""


def test_an_editor_save_in_database_mode_never_touches_the_folder(
    settings: Settings, references_dir: Path
) -> None:
    library = open_library(in_database_mode(settings))
    token = add_editor(library, "ann")
    with writing(library.engine) as session:
        editor = editor_for_token(session, token).id
    assert editor is not None
    before = {path.name: path.read_bytes() for path in references_dir.iterdir()}
    saved = save_as_editor(library, editor, "ann", edit_of(library, "A host that died.")).saved
    stale = edit_of(library, "A host that hung.", base="0" * 64)
    with pytest.raises(StaleBase):
        save_as_editor(library, editor, "ann", stale)
    assert {path.name: path.read_bytes() for path in references_dir.iterdir()} == before
    served = library.catalog.references["stuck-rank"]
    assert (served.content_hash, served.causes[2].title) == (saved.content_hash, "A host that died")
    library.close()


TITLE = "title: One rank is stuck while the others wait"
SUMMARY = "summary: A rank stops making progress and its peers time out in a collective."
CAUSE_3 = "3. **A dead host.** The process is gone."


def current_text(library: Library) -> str:
    found = editable_file(library, "stuck-rank")
    assert found is not None
    return found[0]


def two_edits_from_one_base(library: Library, editor_id: int, theirs: str, yours: str) -> Edit:
    """Save `theirs` (replacing TITLE), as another tab would, and return the edit of `yours`
    (replacing SUMMARY) made from the same base."""
    text, base = editable_file(library, "stuck-rank") or ("", "")
    save_as_editor(
        library, editor_id, "bob", Edit("stuck-rank", text.replace(TITLE, theirs), base, False, "")
    )
    return Edit("stuck-rank", text.replace(SUMMARY, yours), base, False, "")


@pytest.mark.parametrize("store", ["folder", "database"])
def test_a_change_on_the_next_line_merges_is_checked_and_says_so(
    settings: Settings, store: str
) -> None:
    library = open_library(settings if store == "folder" else in_database_mode(settings))
    editor = editor_of(library)
    text = current_text(library)
    mine = two_edits_from_one_base(library, editor, "title: One rank hangs", "summary: It hangs.")
    outcome = save_as_editor(library, editor, "ann", mine, merge=True)
    assert outcome.merged
    merged = text.replace(TITLE, "title: One rank hangs").replace(SUMMARY, "summary: It hangs.")
    assert editable_file(library, "stuck-rank") == (merged, outcome.saved.content_hash)
    served = library.catalog.references["stuck-rank"]
    assert (served.title, served.summary) == ("One rank hangs", "It hangs.")
    newest = revisions(library.engine, "stuck-rank")[0]
    assert (newest.author, newest.message) == (
        "ann",
        "summary changed; merged with a change saved meanwhile (title changed)",
    )
    assert latest_draft(library, editor, "stuck-rank") is None
    library.close()


def test_without_merge_the_same_edit_is_a_conflict(library: Library, editor_id: int) -> None:
    mine = two_edits_from_one_base(library, editor_id, "title: One rank hangs", "summary: X.")
    with pytest.raises(StaleBase):
        save_as_editor(library, editor_id, "ann", mine)
    assert latest_draft(library, editor_id, "stuck-rank") is not None


def test_a_change_to_the_same_line_is_still_a_conflict(library: Library, editor_id: int) -> None:
    text, base = editable_file(library, "stuck-rank") or ("", "")
    theirs = Edit("stuck-rank", text.replace(TITLE, "title: Theirs"), base, False, "")
    save_as_editor(library, editor_id, "bob", theirs)
    mine = Edit("stuck-rank", text.replace(TITLE, "title: Mine"), base, False, "mine")
    with pytest.raises(StaleBase) as raised:
        save_as_editor(library, editor_id, "ann", mine, merge=True)
    assert raised.value.current_text == theirs.text
    assert "+title: Mine" in (raised.value.diff or "")
    assert current_text(library) == theirs.text
    kept = latest_draft(library, editor_id, "stuck-rank")
    assert kept is not None
    assert kept.text == mine.text


def test_a_merge_that_fails_the_checks_saves_nothing(library: Library, editor_id: int) -> None:
    """Each side passes alone; merged, the check names a cause the other side deleted."""
    text, base = editable_file(library, "stuck-rank") or ("", "")
    theirs = Edit("stuck-rank", text.replace(CAUSE_3 + "\n", ""), base, False, "")
    save_as_editor(library, editor_id, "bob", theirs)
    mine = Edit(
        "stuck-rank", text.replace("**confirm** cause 1", "**confirm** cause 3"), base, False, ""
    )
    with pytest.raises(StaleBase) as raised:
        save_as_editor(library, editor_id, "ann", mine, merge=True)
    assert "the merged text fails the checks of a save" in str(raised.value)
    assert current_text(library) == theirs.text


def test_a_base_not_in_the_history_is_a_conflict(library: Library, editor_id: int) -> None:
    with pytest.raises(StaleBase):
        save_as_editor(library, editor_id, "ann", edit_of(library, "Mine.", "0" * 64), merge=True)
