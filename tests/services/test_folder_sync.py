"""Conflicts between the folder and the database, with both texts, and the export."""

from __future__ import annotations

from pathlib import Path

from store_helpers import edit_file, edit_in_database, in_database_mode

from failref.config import Settings
from failref.services.folder_sync import conflicts, export_references
from failref.services.library import open_library


def test_a_conflict_carries_both_texts_and_the_diff_between_them(settings: Settings) -> None:
    library = open_library(in_database_mode(settings))
    folder = settings.references_dir
    web = edit_in_database(library.engine, folder, "stuck-rank", "A dead host.", "A host died.")
    in_folder = edit_file(folder, "stuck-rank", "A dead host.", "A host that hung.")
    assert conflicts(library) == []
    library.reload()
    [conflict] = conflicts(library)
    assert conflict.reference_id == "stuck-rank"
    assert (conflict.folder_text, conflict.database_text) == (in_folder.decode(), web.decode())
    assert "--- in the folder\n+++ in the database\n" in conflict.diff
    assert "-3. **A host that hung.**" in conflict.diff
    assert "+3. **A host died.**" in conflict.diff
    library.close()


def test_export_writes_what_the_database_serves_without_loading_the_folder(
    settings: Settings, tmp_path: Path
) -> None:
    library = open_library(in_database_mode(settings))
    folder = settings.references_dir
    web = edit_in_database(library.engine, folder, "stuck-rank", "A dead host.", "A host died.")
    library.close()
    # Not loaded by the export: a change in the folder does not reach the exported texts.
    original = (folder / "slow-collective.md").read_bytes()
    edit_file(folder, "slow-collective", "A degraded link", "A degraded NVLink")
    report = export_references(settings, tmp_path / "out")
    assert (report.written, report.unchanged) == (["slow-collective", "stuck-rank"], 0)
    assert (tmp_path / "out" / "stuck-rank.md").read_bytes() == web
    assert (tmp_path / "out" / "slow-collective.md").read_bytes() == original
