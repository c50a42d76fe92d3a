"""One process's catalog catches up with the folder and with other processes' saves."""

from __future__ import annotations

from app.config import Settings
from app.services.editing import Edit, save_reference
from app.services.library import open_library
from app.store.files import current_file


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
