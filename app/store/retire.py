"""Retire a reference: take it out of the index (and, in folder mode, delete its file) in
one transaction, keep its revisions, and record who retired it, when, why and what
replaced it. Saving or importing a text under the same id again brings it back
(`index.unretire`).

Order in folder mode, as for a save (`saves.py`): under the write lock, compare the file
with the version the editor retires (412 if it moved), delete the file and fsync the
folder, remove the index row and record the retirement, commit; a failure before the
commit puts the file back. A crash between the delete and the commit leaves no file, which
the next load reads as a reference removed in git: nothing acknowledged is lost."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from ..config import StoreOfRecord
from .db import reading, writing
from .files import put_back, text_and_hash
from .index import bump_index_version, remove_references
from .models import RetiredRow
from .saves import check_current, database_error
from .texts import database_text


@dataclass(frozen=True)
class Retirement:
    """What an editor retires: a reference at the version they saw, and why."""

    reference_id: str
    title: str
    base_hash: str
    author: str
    reason: str
    replaced_by: str | None


def retire(engine: Engine, retirement: Retirement, path: Path, store: StoreOfRecord) -> RetiredRow:
    """Retire a reference where `store` keeps its text (see the module docstring)."""
    try:
        with writing(engine) as session:
            reference_id = retirement.reference_id
            if store == "folder":
                current = text_and_hash(path)
            else:
                current = database_text(session, reference_id)
            check_current(current, reference_id, retirement.base_hash, creating=False)
            assert current is not None  # check_current raised otherwise
            row = RetiredRow(
                reference_id=reference_id,
                title=retirement.title,
                content_hash=current[1],
                author=retirement.author,
                reason=retirement.reason,
                replaced_by=retirement.replaced_by,
            )
            session.merge(row)
            remove_references(session, [reference_id])
            bump_index_version(session)
            previous = _delete_file(path) if store == "folder" else None
            try:
                session.commit()
            except Exception:
                if previous is not None:
                    put_back(path, previous)
                raise
    except OperationalError as error:
        raise database_error(error) from None
    return row


def retired(engine: Engine, reference_id: str) -> RetiredRow | None:
    """The retirement of `reference_id`, None when it is not retired."""
    with reading(engine) as session:
        return session.get(RetiredRow, reference_id)


def _delete_file(path: Path) -> bytes:
    """Delete a reference file and fsync its folder; returns its bytes, to put back."""
    previous = path.read_bytes()
    path.unlink()
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return previous
