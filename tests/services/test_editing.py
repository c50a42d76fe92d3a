"""Saving as an editor: the draft is kept on a conflict (with the diff) and dropped on success."""

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
    history,
    latest_draft,
    revision_text,
    save_as_editor,
    unified_diff,
)
from failref.services.editors import add_editor
from failref.services.library import Library, open_library
from failref.store.db import writing
from failref.store.editors import editor_for_token


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    opened = open_library(settings)
    yield opened
    opened.close()


@pytest.fixture
def editor_id(library: Library) -> int:
    token = add_editor(library, "ann")
    with writing(library.engine) as session:
        row = editor_for_token(session, token)
    assert row.id is not None
    return row.id


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
    assert library.catalog.references["stuck-rank"].content_hash == saved.content_hash


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


def test_history_numbers_revisions_as_the_list_and_ignores_line_endings(
    library: Library, editor_id: int
) -> None:
    save_as_editor(library, editor_id, "ann", edit_of(library, "A host that died."))
    entries = history(library, "stuck-rank")
    assert [entry.number for entry in entries] == [2, 1]
    assert unified_diff("a\r\nb\r\n", "a\nb\n", "before", "after") == ""
    number, text = revision_text(library, "stuck-rank", entries[-1].row.id or 0)
    assert (number, text) == (1, entries[-1].row.content)


def test_an_editor_save_in_database_mode_never_touches_the_folder(
    settings: Settings, references_dir: Path
) -> None:
    library = open_library(in_database_mode(settings))
    token = add_editor(library, "ann")
    with writing(library.engine) as session:
        editor = editor_for_token(session, token).id
    assert editor is not None
    before = {path.name: path.read_bytes() for path in references_dir.iterdir()}
    saved = save_as_editor(library, editor, "ann", edit_of(library, "A host that died."))
    stale = edit_of(library, "A host that hung.", base="0" * 64)
    with pytest.raises(StaleBase):
        save_as_editor(library, editor, "ann", stale)
    assert {path.name: path.read_bytes() for path in references_dir.iterdir()} == before
    served = library.catalog.references["stuck-rank"]
    assert (served.content_hash, served.causes[2].title) == (saved.content_hash, "A host that died")
    library.close()
