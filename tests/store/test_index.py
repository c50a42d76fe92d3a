"""Folder → database: one transaction, only what changed, broken files never take others
down, and a reference changed in both the folder and the database is a conflict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, func, select
from store_helpers import edit_file, edit_in_database, save_in_database

from failref.domain.catalog import Catalog
from failref.domain.references.document import content_hash
from failref.services.library import build_catalog
from failref.store.index import (
    ParsedRows,
    SyncReport,
    fate_of,
    index_version,
    list_conflicts,
    read_index,
    sync_folder,
)
from failref.store.models import AliasRow, ConflictRow, ReferenceRow, RevisionRow
from failref.store.releases import ReleaseCheck
from failref.store.texts import export_texts


def load_catalog(session: Session) -> Catalog:
    """The snapshot the library would build from what the index holds now."""
    return build_catalog(*read_index(session), ())


def count(session: Session, table: type) -> int:
    return session.exec(select(func.count()).select_from(table)).one()


def test_first_sync_adds_every_good_file_with_a_revision(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        assert sorted(report.added) == ["slow-collective", "stuck-rank"]
        assert count(session, ReferenceRow) == 2
        assert count(session, RevisionRow) == 2
        revision = session.exec(
            select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank")
        ).one()
        assert revision.author == "files"
        assert revision.content == (references_dir / "stuck-rank.md").read_text()
        assert session.get(AliasRow, "old-slow-collective") is not None


def test_round_trip_through_the_database_preserves_the_reference(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
        catalog = load_catalog(session)
    stored = catalog.references["slow-collective"]
    assert stored.content_hash == content_hash((references_dir / "slow-collective.md").read_bytes())
    assert stored.causes[0].title == "A degraded link"
    assert catalog.aliases == {"old-slow-collective": "slow-collective"}


def test_second_sync_of_an_unchanged_folder_writes_nothing(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
        report = sync_folder(session, references_dir)
        assert (report.added, report.updated, report.removed, report.unchanged) == ([], [], [], 2)
        assert count(session, RevisionRow) == 2


def test_a_row_read_by_an_older_parser_is_read_again_without_a_revision(
    engine: Engine, references_dir: Path
) -> None:
    """The same bytes, stored by another parser version (its document differs): the sync
    takes this parser's reading, bumps the index and records no revision."""
    with Session(engine) as session:
        sync_folder(session, references_dir)
        row = session.get(ReferenceRow, "stuck-rank")
        assert row is not None
        row.document = row.document.replace("A dead host", "An older reading")
        session.add(row)
        session.commit()
        version = index_version(session)
        session.expunge_all()
        report = sync_folder(session, references_dir)
        assert (report.updated, report.unchanged) == ([], 2)
        assert index_version(session) == version + 1
        assert count(session, RevisionRow) == 2
        catalog = load_catalog(session)
    assert catalog.references["stuck-rank"].causes[2].title == "A dead host"


def test_changed_file_is_updated_and_recorded_as_a_revision(
    engine: Engine, references_dir: Path
) -> None:
    path = references_dir / "stuck-rank.md"
    with Session(engine) as session:
        sync_folder(session, references_dir)
        path.write_text(path.read_text().replace("A dead host.", "A host that died."))
        report = sync_folder(session, references_dir)
        assert report.updated == ["stuck-rank"]
        assert report.unchanged == 1
        assert count(session, RevisionRow) == 3
        catalog = load_catalog(session)
    assert catalog.references["stuck-rank"].causes[2].title == "A host that died"


def test_broken_edit_keeps_the_last_good_version_serving(
    engine: Engine, references_dir: Path
) -> None:
    path = references_dir / "stuck-rank.md"
    with Session(engine) as session:
        sync_folder(session, references_dir)
        path.write_text(path.read_text().replace("## Sources", "## Sauces"))
        report = sync_folder(session, references_dir)
        assert [str(p) for p in report.errors] == [
            "references/stuck-rank.md:1: sections: missing section 'Sources'",
            "references/stuck-rank.md:34: sections: unexpected section 'Sauces'",
        ]
        assert report.removed == []
        catalog = load_catalog(session)
    assert set(catalog.references) == {"slow-collective", "stuck-rank"}


def test_deleted_file_leaves_the_index(engine: Engine, references_dir: Path) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
        (references_dir / "slow-collective.md").unlink()
        report = sync_folder(session, references_dir)
        assert report.removed == ["slow-collective"]
        assert count(session, AliasRow) == 0
        assert set(load_catalog(session).references) == {"stuck-rank"}


def test_a_failed_sync_rolls_back_whole(
    engine: Engine, references_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    path = references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "A host that died."))
    (references_dir / "slow-collective.md").unlink()

    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError("disk went away")

    monkeypatch.setattr("failref.store.index._replace_aliases", fail)
    with Session(engine) as session, pytest.raises(OSError, match="disk went away"):
        sync_folder(session, references_dir)
    with Session(engine) as session:
        catalog = load_catalog(session)
        assert set(catalog.references) == {"slow-collective", "stuck-rank"}
        assert catalog.references["stuck-rank"].causes[2].title == "A dead host"
        assert count(session, RevisionRow) == 2


def test_missing_folder_is_a_problem_not_a_crash(engine: Engine, tmp_path: Path) -> None:
    with Session(engine) as session:
        report = sync_folder(session, tmp_path / "nowhere")
    assert [p.message for p in report.problems] == ["references folder does not exist"]


def test_alias_still_held_by_a_broken_files_last_version_is_reported_not_fatal(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    broken = references_dir / "slow-collective.md"
    broken.write_text(broken.read_text().replace("## Sources", "## Sauces"))
    claimer = references_dir / "stuck-rank.md"
    claimer.write_text(
        claimer.read_text().replace(
            "updated: 2026-10-01", "updated: 2026-10-01\naliases: [old-slow-collective]"
        )
    )
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        catalog = load_catalog(session)
    warnings = [str(p) for p in report.problems if p.severity == "warning"]
    assert (
        "references/stuck-rank.md:1: front matter: alias 'old-slow-collective' is still held by slow-collective; not applied"
        in warnings
    )
    assert catalog.aliases == {"old-slow-collective": "slow-collective"}
    assert set(catalog.references) == {"slow-collective", "stuck-rank"}


# The folder and the database both as sources of a reference's text ---------------------


def row_with(content_hash: str, imported_hash: str | None) -> ReferenceRow:
    return ReferenceRow(
        id="r",
        title="r",
        category="training",
        path="references/r.md",
        content_hash=content_hash,
        imported_hash=imported_hash,
        document="{}",
    )


@pytest.mark.parametrize(
    ("row", "file_hash", "fate"),
    [
        pytest.param(None, "f", "import", id="new-file"),
        pytest.param(row_with("a", "a"), "a", "same", id="unchanged"),
        pytest.param(row_with("a", "a"), "f", "import", id="folder-changed"),
        pytest.param(row_with("d", "a"), "a", "database", id="database-changed"),
        pytest.param(row_with("d", "a"), "f", "conflict", id="both-changed"),
        pytest.param(row_with("d", "a"), "d", "same", id="both-hold-one-text"),
        pytest.param(row_with("d", None), "f", "conflict", id="created-on-both-sides"),
    ],
)
def test_fate_of_a_file_follows_what_changed_since_its_last_import(
    row: ReferenceRow | None, file_hash: str, fate: str
) -> None:
    assert fate_of(row, file_hash) == fate


def test_a_web_edit_keeps_serving_while_its_file_stays_as_imported(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host that died.")
    edit_file(references_dir, "slow-collective", "A degraded link", "A degraded NVLink")
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        catalog = load_catalog(session)
        assert (report.updated, report.conflicts) == (["slow-collective"], [])
        assert count(session, ConflictRow) == 0
    assert catalog.references["stuck-rank"].causes[2].title == "A host that died"
    assert catalog.references["slow-collective"].causes[0].title == "A degraded NVLink"


def test_a_reference_changed_in_both_is_a_conflict_and_the_database_serves(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host that died.")
    in_folder = edit_file(references_dir, "stuck-rank", "A dead host.", "A host that hung.")
    with Session(engine) as session:
        revisions_before = count(session, RevisionRow)
        report = sync_folder(session, references_dir)
        conflict = session.get(ConflictRow, "stuck-rank")
        assert report.conflicts == ["stuck-rank"]
        assert (report.added, report.updated, report.removed) == ([], [], [])
        assert count(session, RevisionRow) == revisions_before
        catalog = load_catalog(session)
    assert conflict is not None
    assert conflict.folder_text == in_folder.decode()
    assert conflict.folder_hash == content_hash(in_folder)
    assert conflict.database_hash == catalog.references["stuck-rank"].content_hash
    assert catalog.references["stuck-rank"].causes[2].title == "A host that died"


def test_a_conflict_clears_once_the_folder_holds_the_database_text(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    web = edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    edit_file(references_dir, "stuck-rank", "A dead host.", "A host that hung.")
    with Session(engine) as session:
        assert sync_folder(session, references_dir).conflicts == ["stuck-rank"]
    (references_dir / "stuck-rank.md").write_bytes(web)
    with Session(engine) as session:
        revisions_before = count(session, RevisionRow)
        report = sync_folder(session, references_dir)
        assert (report.updated, report.conflicts) == ([], [])
        assert count(session, ConflictRow) == 0
        assert count(session, RevisionRow) == revisions_before
    # The folder's text is now the imported one: the next change to the file is taken.
    edit_file(references_dir, "stuck-rank", "A host died.", "A host that hung.")
    with Session(engine) as session:
        assert sync_folder(session, references_dir).updated == ["stuck-rank"]


def test_a_file_deleted_after_a_web_edit_is_a_conflict_and_stays(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    (references_dir / "stuck-rank.md").unlink()
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        conflict = session.get(ConflictRow, "stuck-rank")
        catalog = load_catalog(session)
    assert (report.removed, report.conflicts) == ([], ["stuck-rank"])
    assert conflict is not None
    assert (conflict.folder_hash, conflict.folder_text) == (None, None)
    assert "stuck-rank" in catalog.references


def test_a_reference_created_in_the_database_stays_without_a_file(
    engine: Engine, references_dir: Path
) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    text = (references_dir / "stuck-rank.md").read_text()
    created = text.replace("id: stuck-rank", "id: new-one").replace(
        "title: One rank is stuck while the others wait", "title: A new one"
    )
    save_in_database(engine, references_dir, "new-one", created.encode(), creating=True)
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        catalog = load_catalog(session)
    assert (report.removed, report.conflicts) == ([], [])
    assert catalog.references["new-one"].title == "A new one"
    assert not (references_dir / "new-one.md").exists()


def test_the_aliases_of_a_web_edit_stay_after_a_load(engine: Engine, references_dir: Path) -> None:
    with Session(engine) as session:
        sync_folder(session, references_dir)
    edit_in_database(
        engine, references_dir, "slow-collective", "A degraded link", "A degraded NVLink"
    )
    with Session(engine) as session:
        sync_folder(session, references_dir)
        catalog = load_catalog(session)
    assert catalog.aliases == {"old-slow-collective": "slow-collective"}


def test_a_read_after_a_save_parses_only_the_saved_row(
    engine: Engine, references_dir: Path
) -> None:
    parsed = ParsedRows()
    with Session(engine) as session:
        sync_folder(session, references_dir)
        first, _ = read_index(session, parsed)
        again, _ = read_index(session, parsed)
    assert parsed.parsed == 2
    assert all(a is b for a, b in zip(first, again, strict=True))
    edit_in_database(engine, references_dir, "stuck-rank", "title: ", "title: Zz ")
    with Session(engine) as session:
        after, _ = read_index(session, parsed)
        assert after == read_index(session)[0]
    assert parsed.parsed == 3
    assert [r.id for r in after] == ["slow-collective", "stuck-rank"]
    assert after[0] is first[[r.id for r in first].index("slow-collective")]
    assert after[1].title.startswith("Zz ")


def image_folders(references_dir: Path, *names: str) -> list[Path]:
    """Copies of the fixture folder, one per image built from it (each then edited)."""
    folders = [references_dir.parent / name for name in names]
    for folder in folders:
        shutil.copytree(references_dir, folder)
    return folders


def revisions_of(session: Session, reference_id: str) -> list[str]:
    """The texts of every revision of `reference_id`, oldest first."""
    query = select(RevisionRow.content).where(RevisionRow.reference_id == reference_id)
    return list(session.exec(query.order_by(col(RevisionRow.id))))


def load_image(engine: Engine, folder: Path, release: ReleaseCheck | None = None) -> SyncReport:
    """A replica's start-up load in database mode, in one transaction."""
    with Session(engine) as session:
        return sync_folder(session, folder, release=release or ReleaseCheck())


def test_an_older_image_restarting_leaves_the_newer_revision_current(
    engine: Engine, references_dir: Path
) -> None:
    """A rolling deploy: the newer image imports its edited file; a replica of the older
    image restarting after it imports nothing, and the newer image restarting neither."""
    older, newer = image_folders(references_dir, "older", "newer")
    in_git = edit_file(newer, "stuck-rank", "A dead host.", "A host that died.")
    first = load_image(engine, older)
    assert (first.release, sorted(first.added)) == ("new", ["slow-collective", "stuck-rank"])
    rolled = load_image(engine, newer)
    assert (rolled.release, rolled.updated) == ("new", ["stuck-rank"])
    with Session(engine) as session:
        version, history = index_version(session), revisions_of(session, "stuck-rank")
    assert history[-1] == in_git.decode()
    for folder, verdict in ((older, "older"), (newer, "newest"), (older, "older")):
        report = load_image(engine, folder)
        assert report.release == verdict
        assert (report.added, report.updated, report.removed, report.conflicts) == ([],) * 4
        with Session(engine) as session:
            assert revisions_of(session, "stuck-rank") == history
            assert index_version(session) == version
            assert load_catalog(session).references["stuck-rank"].causes[2].title == (
                "A host that died"
            )


def test_an_older_image_never_overwrites_a_web_save_released_since(
    engine: Engine, references_dir: Path
) -> None:
    """An editor's save, exported to git and built into the newer image, stays current when
    a replica of the older image restarts."""
    older, newer = image_folders(references_dir, "older", "newer")
    load_image(engine, older)
    web = edit_in_database(engine, older, "stuck-rank", "A dead host.", "A host died.")
    with Session(engine) as session:
        export_texts(session, newer)
    assert load_image(engine, newer).release == "new"
    report = load_image(engine, older)
    with Session(engine) as session:
        assert revisions_of(session, "stuck-rank")[-1] == web.decode()
        catalog = load_catalog(session)
    assert (report.release, report.updated) == ("older", [])
    assert catalog.references["stuck-rank"].causes[2].title == "A host died"


def test_an_older_image_leaves_the_conflicts_of_the_newest_alone(
    engine: Engine, references_dir: Path
) -> None:
    """A file edited in git and an editor's save, both newer than the older image: the
    newer image records the conflict, the older one restarting keeps it and the save."""
    older, newer = image_folders(references_dir, "older", "newer")
    load_image(engine, older)
    web = edit_in_database(engine, older, "stuck-rank", "A dead host.", "A host died.")
    edit_file(newer, "stuck-rank", "A dead host.", "A host that hung.")
    assert load_image(engine, newer).conflicts == ["stuck-rank"]
    load_image(engine, older)
    with Session(engine) as session:
        assert [row.reference_id for row in list_conflicts(session)] == ["stuck-rank"]
        assert revisions_of(session, "stuck-rank")[-1] == web.decode()


def test_rolling_back_on_purpose_takes_the_older_files_as_a_revision(
    engine: Engine, references_dir: Path
) -> None:
    older, newer = image_folders(references_dir, "older", "newer")
    load_image(engine, older)
    edit_file(newer, "stuck-rank", "A dead host.", "A host that died.")
    load_image(engine, newer)
    report = load_image(engine, older, ReleaseCheck(roll_back=True))
    assert (report.release, report.updated) == ("rolled back", ["stuck-rank"])
    assert load_image(engine, newer).release == "older"
    with Session(engine) as session:
        history = revisions_of(session, "stuck-rank")
        assert load_catalog(session).references["stuck-rank"].causes[2].title == "A dead host"
    assert history[-1] == history[0] == (older / "stuck-rank.md").read_text()
    assert len(history) == 3


@pytest.mark.parametrize(
    ("revert_label", "reverted"),
    [
        pytest.param("r3", True, id="another-build-name-is-a-new-release"),
        pytest.param("r1", False, id="the-same-build-name-is-the-older-release"),
    ],
)
def test_a_revert_in_git_is_a_new_release_when_its_build_is_named_anew(
    engine: Engine, references_dir: Path, revert_label: str, reverted: bool
) -> None:
    """A revert makes the folder what an older image held, byte for byte: only the build's
    name (FAILREF_RELEASE) tells the two apart. Either way the reverted release's replica
    restarting does not bring its text back."""
    first, second, revert = image_folders(references_dir, "r1", "r2", "r3")
    load_image(engine, first, ReleaseCheck("r1"))
    edit_file(second, "stuck-rank", "A dead host.", "A host that died.")
    load_image(engine, second, ReleaseCheck("r2"))
    report = load_image(engine, revert, ReleaseCheck(revert_label))
    assert (report.updated == ["stuck-rank"]) is reverted
    assert load_image(engine, second, ReleaseCheck("r2")).release == (
        "older" if reverted else "newest"
    )
    with Session(engine) as session:
        title = load_catalog(session).references["stuck-rank"].causes[2].title
    assert title == ("A dead host" if reverted else "A host that died")
