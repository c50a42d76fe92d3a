"""Save one reference where the store of record keeps it, so that a 2xx means it is there:
its file and index row together (folder mode), or its revision and index row in one
transaction (database mode: no file is written; replicas share the database).

Order of a save in database mode: open a write transaction (one writer at a time), compare
the database's current text with the base the editor started from (409/412 if it moved),
record the revision and the index row, commit. A crash before the commit leaves nothing.

Order of a save in folder mode, and what a crash at each point leaves:
1. (the caller validated the text: nothing is touched yet);
2. open a write transaction (`BEGIN IMMEDIATE`: one writer at a time, across processes);
3. write the text to a temporary file beside the target and fsync it (a crash leaves
   the old file and a temporary file, which start-up removes under the same lock, so it
   never removes the temporary file of another process's save in progress);
4. compare the file on disk with the base the editor started from (409/412 if it moved);
5. rename the temporary file over the target and fsync the folder (atomic: the file is
   old or new, never torn), record the revision and the index row, commit;
   a crash between rename and commit leaves the new file, which the next load records
   as a revision authored "files": nothing acknowledged is lost, nothing is torn; an
   error there (rather than a crash) puts the old file back before the error answer.
Only after the commit does the caller get its answer.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from ..config import StoreOfRecord
from ..domain.references.document import Reference
from ..errors import (
    Conflict,
    FailrefError,
    InsufficientStorage,
    MissingBase,
    NotFound,
    StaleBase,
    Unavailable,
)
from .db import writing
from .files import discard, put_back, replace, text_and_hash, write_temporary
from .index import bump_index_version, store_reference
from .revisions import record_revision
from .texts import database_text

logger = logging.getLogger(__name__)

MOVED_ON = "the reference changed since you started; nothing was saved"
DELETED = "the reference was deleted since you started; it was not re-created"


@dataclass(frozen=True)
class Saved:
    """An acknowledged save."""

    reference: Reference
    revision_id: int
    content_hash: str


@dataclass(frozen=True)
class Change:
    """What a save writes, and what it must find on disk first."""

    path: Path
    data: bytes
    base_hash: str | None
    creating: bool
    author: str
    message: str


def save_text(engine: Engine, reference: Reference, change: Change, store: StoreOfRecord) -> Saved:
    """Save `change` and `reference` where `store` keeps texts; see the module docstring.
    A database that is locked past the busy timeout, full or gone is one of our errors (503,
    507) like a failing disk, so every front end can give the editor their text back."""
    try:
        if store == "folder":
            return _save_file(engine, reference, change)
        return _save_row(engine, reference, change)
    except OperationalError as error:
        raise database_error(error) from None


def database_error(error: OperationalError) -> FailrefError:
    """What a failed database step of a save tells the editor."""
    logger.error("a save failed in the database: %s", error.orig)
    if "full" in str(error.orig).lower():
        return InsufficientStorage("the database disk is full; nothing was saved")
    return Unavailable("the database is busy or unavailable; nothing was saved, try again")


def _save_file(engine: Engine, reference: Reference, change: Change) -> Saved:
    path = change.path
    with writing(engine) as session:
        temporary = write_temporary(path, change.data)
        try:
            check_base(path, change.base_hash, change.creating)
            previous = path.read_bytes() if path.is_file() else None
            replace(temporary, path)
            try:
                revision = record_revision(
                    session,
                    reference.id,
                    change.data,
                    author=change.author,
                    message=change.message,
                )
                store_reference(session, reference, imported=True)
                bump_index_version(session)
                session.commit()
            except IntegrityError:
                # Another save claimed the same id or alias between validation and the lock.
                put_back(path, previous)
                raise Conflict("another reference took this id or alias meanwhile") from None
            except Exception:
                put_back(path, previous)  # no 2xx, so the file must not have changed
                raise
            session.refresh(revision)
        finally:
            discard(temporary)
    assert revision.id is not None
    return Saved(reference, revision.id, reference.content_hash)


def _save_row(engine: Engine, reference: Reference, change: Change) -> Saved:
    with writing(engine) as session:
        check_current(
            database_text(session, reference.id), reference.id, change.base_hash, change.creating
        )
        try:
            revision = record_revision(
                session, reference.id, change.data, author=change.author, message=change.message
            )
            store_reference(session, reference, imported=False)
            bump_index_version(session)
            session.commit()
        except IntegrityError:
            raise Conflict("another reference took this id or alias meanwhile") from None
        session.refresh(revision)
    assert revision.id is not None
    return Saved(reference, revision.id, reference.content_hash)


def check_base(path: Path, base_hash: str | None, creating: bool) -> None:
    """Refuse a save whose base is not the file on disk now (or a creation over a file)."""
    check_current(text_and_hash(path), path.stem, base_hash, creating)


def check_current(
    current: tuple[str, str] | None, reference_id: str, base_hash: str | None, creating: bool
) -> None:
    """Refuse a save whose base is not the `current` text and hash (or a creation over an
    existing reference), whichever store holds it."""
    if creating:
        if current is not None:
            raise StaleBase(f"{reference_id} exists already; edit it instead", current[0])
        return
    if current is None:
        if base_hash is None:
            raise NotFound(f"no reference '{reference_id}'", field="id")
        raise StaleBase(DELETED, None)
    if base_hash is None:
        raise MissingBase("say which version you started from (If-Match or base)", field="base")
    if not secrets.compare_digest(current[1], base_hash):
        raise StaleBase(MOVED_ON, current[0])
