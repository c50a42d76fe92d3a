"""A process starting on a database that already holds the folder parses only the files
whose bytes or parser changed since, and serves what a parse would give."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import REFERENCES
from sqlalchemy import Engine
from sqlmodel import Session, select

import failref.domain.references.reading as reading
from failref.config import Settings
from failref.domain.references.document import Reference
from failref.domain.references.folder import ParsedFiles, read_folder
from failref.services.editing import Edit, save_reference
from failref.services.library import open_library
from failref.store.files import current_file
from failref.store.index import read_index, sync_folder
from failref.store.models import ReferenceRow
from failref.store.readings import parsed_document, stored_document


def start(engine: Engine, folder: Path) -> ParsedFiles:
    """What a new process does first: a sync with an empty memo; the files it parsed."""
    memo = ParsedFiles()
    with Session(engine) as session:
        sync_folder(session, folder, memo)
    return memo


def served(engine: Engine) -> dict[str, Reference]:
    with Session(engine) as session:
        references, _ = read_index(session)
    return {reference.id: reference for reference in references}


def test_a_second_start_parses_nothing_and_serves_the_same(
    engine: Engine, references_dir: Path
) -> None:
    assert start(engine, references_dir).parsed == 2
    first = served(engine)
    memo = ParsedFiles()
    with Session(engine) as session:
        report = sync_folder(session, references_dir, memo)
    assert memo.parsed == 0
    assert (report.added, report.updated, report.unchanged) == ([], [], 2)
    assert served(engine) == first
    assert {r.id: r for r in read_folder(references_dir).references} == first


def test_a_file_changed_while_nothing_ran_is_parsed(engine: Engine, references_dir: Path) -> None:
    start(engine, references_dir)
    path = references_dir / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
    assert start(engine, references_dir).parsed == 1
    assert served(engine)["stuck-rank"].causes[2].title == "Pulled from git"


def test_a_document_written_without_its_reading_is_parsed_again(
    engine: Engine, references_dir: Path
) -> None:
    """Code that does not keep `reading` (an older replica) changed a row's document."""
    start(engine, references_dir)
    with Session(engine) as session:
        row = session.get(ReferenceRow, "stuck-rank")
        assert row is not None
        row.document = row.document.replace("A dead host", "An older reading")
        session.add(row)
        session.commit()
    assert start(engine, references_dir).parsed == 1
    assert served(engine)["stuck-rank"].causes[2].title == "A dead host"


def test_another_parser_reads_every_file_again(
    engine: Engine, references_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(engine, references_dir)
    monkeypatch.setattr(reading, "parser_version", lambda: "a newer parser")
    assert start(engine, references_dir).parsed == 2
    assert start(engine, references_dir).parsed == 0


def test_a_saved_reference_is_parsed_at_the_next_start(settings: Settings) -> None:
    """A save writes its row without a reading: the next start parses that file alone."""
    library = open_library(settings)
    text, base = current_file(settings.references_dir, "stuck-rank") or ("", "")
    edit = Edit("stuck-rank", text.replace("A dead host.", "A host died."), base, False, "edit")
    save_reference(library, edit, "ann")
    library.close()
    again = open_library(settings)
    assert again.parsed_files.parsed == 1
    assert again.catalog.references["stuck-rank"].causes[2].title == "A host died"
    again.close()


def test_a_row_keeps_no_rendered_html(engine: Engine, references_dir: Path) -> None:
    """What Markdown renders to is worked out on first read, not stored (issue 35, item 11)."""
    start(engine, references_dir)
    with Session(engine) as session:
        documents = [row.document for row in session.exec(select(ReferenceRow))]
    assert documents
    assert not any("_html" in document or '"html"' in document for document in documents)


def test_a_document_stored_with_its_html_reads_the_same() -> None:
    """A row an earlier version wrote holds the HTML too; it reads as the reference. And
    a stored reading reads as the reference it was written from, so the index may take a
    reference a sync just parsed instead of its row's document."""
    for reference in read_folder(REFERENCES).references:
        older = reference.model_dump_json()  # with the computed HTML, as stored before
        assert '"context_html"' in older
        assert parsed_document(older) == reference
        assert parsed_document(stored_document(reference)) == reference
