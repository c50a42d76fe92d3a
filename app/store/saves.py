"""Save one reference file and its index row together, so that a 2xx means both are there.

Order of a save, and what a crash at each point leaves:
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

from app.domain.references.document import Reference, content_hash
from app.errors import (
    Conflict,
    FailrefError,
    InsufficientStorage,
    MissingBase,
    NotFound,
    StaleBase,
    Unavailable,
)
from app.store.db import writing
from app.store.files import discard, put_back, read_text, replace, write_temporary
from app.store.index import bump_index_version, store_reference
from app.store.revisions import record_revision

logger = logging.getLogger(__name__)


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


def save_file(engine: Engine, reference: Reference, change: Change) -> Saved:
    """Write `change` over its file and `reference` into the index; see the module docstring.
    A database that is locked past the busy timeout, full or gone is one of our errors (503,
    507) like a failing disk, so every front end can give the editor their text back."""
    try:
        return _save_file(engine, reference, change)
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
                store_reference(session, reference)
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


def check_base(path: Path, base_hash: str | None, creating: bool) -> None:
    """Refuse a save whose base is not the file on disk now (or a creation over a file)."""
    exists = path.is_file()
    if creating:
        if exists:
            raise StaleBase(f"{path.stem} exists already; edit it instead", read_text(path))
        return
    if not exists:
        if base_hash is None:
            raise NotFound(f"no reference file '{path.stem}'", field="id")
        raise StaleBase("the file was deleted since you started; it was not re-created", None)
    if base_hash is None:
        raise MissingBase("say which version you started from (If-Match or base)", field="base")
    current = content_hash(path.read_bytes())
    if not secrets.compare_digest(current, base_hash):
        raise StaleBase("the file changed since you started; nothing was saved", read_text(path))
