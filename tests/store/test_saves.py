"""A save in either store of record: in the database alone (no file touched) or in the
file and the database together; the same base checks in both."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from store_helpers import save_in_database

from failref.config import Settings, StoreOfRecord
from failref.domain.references.document import content_hash
from failref.domain.references.parser import parse_reference
from failref.errors import FailrefError, MissingBase, NotFound, StaleBase
from failref.store.db import make_engine, upgrade_database
from failref.store.index import sync_folder
from failref.store.models import ReferenceRow, RevisionRow
from failref.store.saves import Change, save_text
from failref.store.texts import current_text


@pytest.fixture
def engine(settings: Settings, references_dir: Path) -> Engine:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with Session(engine) as session:
        sync_folder(session, references_dir)
    return engine


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def edited(folder: Path) -> bytes:
    return (folder / "stuck-rank.md").read_bytes().replace(b"A dead host.", b"A host died.")


def test_a_database_save_writes_the_revision_and_the_row_and_no_file(
    engine: Engine, references_dir: Path
) -> None:
    before = folder_bytes(references_dir)
    imported = content_hash(before["stuck-rank.md"])
    data = edited(references_dir)
    saved = save_in_database(engine, references_dir, "stuck-rank", data)
    assert folder_bytes(references_dir) == before
    with Session(engine) as session:
        row = session.get(ReferenceRow, "stuck-rank")
        revision = session.get(RevisionRow, saved.revision_id)
    assert row is not None
    assert revision is not None
    assert (row.content_hash, row.imported_hash) == (content_hash(data), imported)
    assert (revision.content.encode(), revision.author) == (data, "ann")


def test_a_folder_save_records_the_file_as_imported(engine: Engine, references_dir: Path) -> None:
    data = edited(references_dir)
    reference, _ = parse_reference("references/stuck-rank.md", data)
    assert reference is not None
    base = content_hash((references_dir / "stuck-rank.md").read_bytes())
    change = Change(references_dir / "stuck-rank.md", data, base, False, "ann", "edit")
    save_text(engine, reference, change, "folder")
    assert (references_dir / "stuck-rank.md").read_bytes() == data
    with Session(engine) as session:
        row = session.get(ReferenceRow, "stuck-rank")
    assert row is not None
    assert row.imported_hash == row.content_hash == content_hash(data)


@pytest.mark.parametrize("store", ["folder", "database"])
@pytest.mark.parametrize(
    ("reference_id", "base", "creating", "error"),
    [
        pytest.param("stuck-rank", "0" * 64, False, StaleBase, id="stale-base"),
        pytest.param("stuck-rank", None, False, MissingBase, id="no-base"),
        pytest.param("stuck-rank", None, True, StaleBase, id="creating-over-one"),
        pytest.param("new-one", None, False, NotFound, id="no-such-reference"),
        pytest.param("new-one", "0" * 64, False, StaleBase, id="deleted-meanwhile"),
    ],
)
def test_a_save_from_the_wrong_base_is_refused_in_either_store(
    engine: Engine,
    references_dir: Path,
    store: StoreOfRecord,
    reference_id: str,
    base: str | None,
    creating: bool,
    error: type[FailrefError],
) -> None:
    data = edited(references_dir).replace(b"id: stuck-rank", f"id: {reference_id}".encode())
    reference, _ = parse_reference(f"references/{reference_id}.md", data)
    assert reference is not None
    before = folder_bytes(references_dir)
    current = current_text(engine, references_dir, "stuck-rank", store)
    change = Change(references_dir / f"{reference_id}.md", data, base, creating, "ann", "edit")
    with pytest.raises(error) as raised:
        save_text(engine, reference, change, store)
    if isinstance(raised.value, StaleBase) and reference_id == "stuck-rank":
        assert current is not None
        assert raised.value.current_text == current[0]
    assert folder_bytes(references_dir) == before
    assert current_text(engine, references_dir, "stuck-rank", store) == current
