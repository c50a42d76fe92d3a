"""One process's catalog catches up with the folder and with other processes' saves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from reference_helpers import counted_renders
from store_helpers import in_database_mode

from failref.config import Settings
from failref.domain.references.folder import read_folder, reference_files
from failref.domain.references.markdown import (
    render_markdown,
)
from failref.services.editing import Edit, editable_file, save_reference
from failref.services.library import Library, open_library
from failref.store.files import current_file


def test_a_save_in_one_process_reaches_the_other_on_its_next_poll(settings: Settings) -> None:
    first, second = open_library(settings), open_library(settings)
    assert second.poll() is None
    text, base = current_file(settings.references_dir, "stuck-rank") or ("", "")
    saved = save_reference(
        first,
        Edit("stuck-rank", text.replace("A dead host.", "A host that died."), base, False, "edit"),
        "ann",
    )
    assert second.catalog.references["stuck-rank"].content_hash != saved.content_hash
    assert second.poll() in ("refreshed", "reloaded")
    assert second.catalog.references["stuck-rank"].content_hash == saved.content_hash
    assert second.catalog.references["stuck-rank"].causes[2].title == "A host that died"
    first.close()
    second.close()


def test_a_file_changed_on_disk_is_reloaded_on_the_next_poll(settings: Settings) -> None:
    library = open_library(settings)
    path = settings.references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
    assert library.poll() == "reloaded"
    assert library.catalog.references["stuck-rank"].causes[2].title == "Pulled from git"
    assert library.poll() is None
    (settings.references_dir / "slow-collective.md").unlink()
    assert library.poll() == "reloaded"
    assert "slow-collective" not in library.catalog.references
    library.close()


def test_a_pull_of_one_file_parses_that_file_alone(settings: Settings) -> None:
    library = open_library(settings)
    loaded = library.parsed_files.parsed
    path = settings.references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
    assert library.poll() == "reloaded"
    assert library.parsed_files.parsed == loaded + 1
    assert library.catalog.references["stuck-rank"].causes[2].title == "Pulled from git"
    assert "slow-collective" in library.catalog.references
    library.close()


def test_replicas_sharing_a_database_serve_a_web_edit_and_keep_their_folders(
    settings: Settings, tmp_path: Path
) -> None:
    """Each replica has its own copy of the folder (baked into its image); a save in one
    lands in the database only and reaches the other on its next poll."""
    replica_folder = tmp_path / "replica"
    shutil.copytree(settings.references_dir, replica_folder)
    first = open_library(in_database_mode(settings))
    second = open_library(
        in_database_mode(settings).model_copy(update={"references_dir": replica_folder})
    )
    folder = sorted(path.read_bytes() for path in settings.references_dir.iterdir())
    text, base = editable_file(first, "stuck-rank") or ("", "")
    edit = Edit("stuck-rank", text.replace("A dead host.", "A host died."), base, False, "edit")
    saved = save_reference(first, edit, "ann")
    assert second.poll() == "refreshed"
    assert second.catalog.references["stuck-rank"].content_hash == saved.content_hash
    assert editable_file(second, "stuck-rank") == (edit.text, saved.content_hash)
    assert sorted(path.read_bytes() for path in settings.references_dir.iterdir()) == folder
    assert sorted(path.read_bytes() for path in replica_folder.iterdir()) == folder
    first.close()
    second.close()


def parsed_count(library: Library) -> int:
    """Files and documents the library parsed so far."""
    return library.parsed_files.parsed + library.parsed_rows.parsed


def test_a_save_reaching_a_replica_works_out_only_the_saved_reference(settings: Settings) -> None:
    """The replica re-parses, re-indexes and re-serialises the saved reference alone; the
    others keep their very objects and API bodies."""
    first, second = open_library(settings), open_library(settings)
    before = second.catalog
    bodies = {ref_id: before.documents[ref_id] for ref_id in ("slow-collective", "stuck-rank")}
    parsed, built = parsed_count(second), second.index_cache.built
    text, base = current_file(settings.references_dir, "stuck-rank") or ("", "")
    edited = text.replace("title: ", "title: Zz ", 1)
    save_reference(first, Edit("stuck-rank", edited, base, False, "edit"), "ann")
    assert second.poll() in ("refreshed", "reloaded")
    after = second.catalog
    # Parsed once: its file on a reload (the index takes that reference, its row's
    # document being its reading), its row's document on a refresh.
    assert (parsed_count(second), second.index_cache.built) == (parsed + 1, built + 1)
    assert after.references["slow-collective"] is before.references["slow-collective"]
    assert after.documents["slow-collective"] is bodies["slow-collective"]
    assert after.documents["stuck-rank"] != bodies["stuck-rank"]
    first.close()
    second.close()


def test_a_replica_restarted_from_an_older_image_serves_the_newer_text(
    settings: Settings, tmp_path: Path
) -> None:
    """Two images against one database: the newer one's edited file serves, on its replica
    and on a replica of the older image started after it."""
    older_folder = tmp_path / "older"
    shutil.copytree(settings.references_dir, older_folder)
    newer_settings = in_database_mode(settings)
    older_settings = newer_settings.model_copy(update={"references_dir": older_folder})
    open_library(older_settings).close()
    path = settings.references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "A host that died."))
    newer = open_library(newer_settings)
    older = open_library(older_settings)
    assert older.last_report is not None
    assert older.last_report.release == "older"
    assert older.catalog.references["stuck-rank"].causes[2].title == "A host that died"
    assert editable_file(older, "stuck-rank") == editable_file(newer, "stuck-rank")
    assert newer.poll() is None
    older.close()
    newer.close()


def test_a_first_start_parses_each_file_once_and_renders_no_page(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35, item 11: the index takes the references the folder's files gave (their
    rows' documents are their readings) instead of parsing those documents again, and no
    Markdown is rendered until a page or API body asks for it."""
    rendered = counted_renders(monkeypatch)
    library = open_library(settings)
    files = len(reference_files(settings.references_dir))
    assert (library.parsed_files.parsed, library.parsed_rows.parsed) == (files, 0)
    assert library.warmer.wait(30)  # its card checks are worked out, their HTML is not
    assert rendered == []
    body = json.loads(library.catalog.documents["stuck-rank"])
    reference = library.catalog.references["stuck-rank"]
    assert body["context_html"] == render_markdown(reference.context_markdown)
    assert reference.context_markdown in rendered
    library.close()


def test_a_restart_parses_each_document_once(settings: Settings) -> None:
    """A restart on the same database parses no file, and each row's document once (for
    the folder's read; the index takes those references)."""
    open_library(settings).close()
    library = open_library(settings)
    assert (library.parsed_files.parsed, library.parsed_rows.parsed) == (0, 0)
    assert library.catalog.references == {
        r.id: r for r in read_folder(settings.references_dir).references
    }
    library.close()
