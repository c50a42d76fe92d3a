"""Current texts in either store of record, and the export that writes the database's
texts into a folder byte for byte (after which a load changes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, func, select
from store_helpers import edit_file, edit_in_database

from failref.config import Settings
from failref.domain.references.document import content_hash
from failref.errors import InvalidInput
from failref.store.db import make_engine, upgrade_database
from failref.store.index import index_version, read_index, sync_folder
from failref.store.models import RevisionRow
from failref.store.texts import current_text, database_text, export_texts


@pytest.fixture
def engine(settings: Settings, references_dir: Path) -> Engine:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with Session(engine) as session:
        sync_folder(session, references_dir)
    return engine


def revision_count(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(RevisionRow)).one()


def test_the_current_text_is_the_file_or_the_database_text(
    engine: Engine, references_dir: Path
) -> None:
    web = edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    on_disk = (references_dir / "stuck-rank.md").read_bytes()
    folder = current_text(engine, references_dir, "stuck-rank", "folder")
    database = current_text(engine, references_dir, "stuck-rank", "database")
    assert folder == (on_disk.decode(), content_hash(on_disk))
    assert database == (web.decode(), content_hash(web))
    assert current_text(engine, references_dir, "nothing-here", "database") is None


def test_a_text_reverted_to_an_older_one_is_the_current_text(
    engine: Engine, references_dir: Path
) -> None:
    original = (references_dir / "stuck-rank.md").read_text()
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    edit_in_database(engine, references_dir, "stuck-rank", "A host died.", "A dead host.")
    with Session(engine) as session:
        assert database_text(session, "stuck-rank") == (original, content_hash(original.encode()))


def test_export_writes_every_current_text_byte_for_byte(
    engine: Engine, references_dir: Path, tmp_path: Path
) -> None:
    # Windows line ends and non-ASCII text come back exactly as they were loaded.
    crlf = (references_dir / "slow-collective.md").read_bytes().replace(b"\n", b"\r\n")
    (references_dir / "slow-collective.md").write_bytes(crlf.replace(b"link", "línk".encode()))
    with Session(engine) as session:
        assert sync_folder(session, references_dir).updated == ["slow-collective"]
    web = edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    out = tmp_path / "out"
    with Session(engine) as session:
        report = export_texts(session, out)
    assert (report.written, report.unchanged) == (["slow-collective", "stuck-rank"], 0)
    assert sorted(path.name for path in out.iterdir()) == ["slow-collective.md", "stuck-rank.md"]
    assert (out / "stuck-rank.md").read_bytes() == web
    assert (out / "slow-collective.md").read_bytes() == (
        references_dir / "slow-collective.md"
    ).read_bytes()


def test_export_leaves_files_alone_that_hold_their_text(
    engine: Engine, references_dir: Path
) -> None:
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    readme = (references_dir / "README.md").read_bytes()
    untouched = (references_dir / "slow-collective.md").stat().st_mtime_ns
    with Session(engine) as session:
        report = export_texts(session, references_dir)
    assert (report.written, report.unchanged) == (["stuck-rank"], 1)
    assert (references_dir / "slow-collective.md").stat().st_mtime_ns == untouched
    assert (references_dir / "README.md").read_bytes() == readme
    assert not list(references_dir.glob(".*"))  # no temporary file left


def test_an_export_through_a_symlink_out_of_the_folder_writes_nothing_and_names_it(
    engine: Engine, references_dir: Path, tmp_path: Path
) -> None:
    """Issue 35, item 12: the export stopped at the symlink after writing the files before
    it, with an error that named no file."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "stuck-rank.md").symlink_to(tmp_path / "elsewhere" / "nothing.md")
    with Session(engine) as session, pytest.raises(InvalidInput) as raised:
        export_texts(session, out)
    assert str(raised.value).startswith(f"{out}/stuck-rank.md: resolves outside {out}")
    assert sorted(path.name for path in out.iterdir()) == ["stuck-rank.md"]  # the link only


def test_export_then_load_is_a_no_op(engine: Engine, references_dir: Path) -> None:
    edit_in_database(engine, references_dir, "stuck-rank", "A dead host.", "A host died.")
    edit_file(references_dir, "slow-collective", "A degraded link", "A degraded NVLink")
    with Session(engine) as session:
        sync_folder(session, references_dir)
        export_texts(session, references_dir)
        served = read_index(session)
        version = index_version(session)
    revisions = revision_count(engine)
    with Session(engine) as session:
        report = sync_folder(session, references_dir)
        assert (report.added, report.updated, report.removed, report.conflicts) == ([], [], [], [])
        assert index_version(session) == version
        assert read_index(session) == served
    assert revision_count(engine) == revisions
