"""Save a reference file: validate, refuse stale bases, write atomically, record a revision.

Order of a save, and what a crash at each point leaves:
1. validate the text (nothing is touched yet);
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
Only after the commit does the caller get its 2xx.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, delete, select

from app.db import writing
from app.document import Reference
from app.errors import (
    Conflict,
    FailrefError,
    InsufficientStorage,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    Unavailable,
)
from app.library import Library
from app.loader import (
    MAX_FILE_BYTES,
    TEMP_MARKER,
    bump_index_version,
    display_path,
    record_revision,
    store_reference,
)
from app.models import DraftRow, RevisionRow
from app.problems import Problem
from app.references import content_hash, is_slug, parse_reference

logger = logging.getLogger(__name__)


class InvalidReference(InvalidInput):
    """The submitted file breaks the format; `problems` says where."""

    def __init__(self, found: list[Problem]) -> None:
        super().__init__(f"{len(found)} problem(s), first: {found[0]}", field="text")
        self.found = found
        self.problems = [str(problem) for problem in found]


class StaleBase(Conflict):
    """The file changed since the editor's base revision; nothing was written."""

    def __init__(self, message: str, current_text: str | None) -> None:
        super().__init__(message, field="base")
        self.current_text = current_text


class MissingBase(Conflict):
    """A save of an existing file that does not say which version it started from."""


@dataclass(frozen=True)
class Saved:
    """An acknowledged save."""

    reference: Reference
    revision_id: int
    content_hash: str


def reference_file(folder: Path, reference_id: str) -> Path:
    """The file of `reference_id`, checked by the slug rule first and by resolving after."""
    if not is_slug(reference_id):
        raise InvalidInput("id: must be a slug of [a-z0-9] words joined by '-'", field="id")
    path = (folder / f"{reference_id}.md").resolve()
    if path.parent != folder.resolve():
        raise InvalidInput("id: resolves outside the references folder", field="id")
    return path


def current_file(folder: Path, reference_id: str) -> tuple[str, str] | None:
    """The text and content hash of the file on disk, or None when it does not exist."""
    path = reference_file(folder, reference_id)
    if not path.is_file():
        return None
    data = path.read_bytes()
    return data.decode("utf-8", errors="replace"), content_hash(data)


def validate_text(library: Library, reference_id: str, text: str) -> Reference:
    """Parse `text` as the file of `reference_id`; InvalidReference lists every problem."""
    data = text.replace("\r\n", "\n").encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        raise PayloadTooLarge(f"text: {len(data)} bytes is over the {MAX_FILE_BYTES} limit")
    folder = library.settings.references_dir
    path = reference_file(folder, reference_id)
    reference, problems = parse_reference(display_path(path, folder), data)
    errors = [problem for problem in problems if problem.severity == "error"]
    errors.extend(_claims_taken(library, reference))
    if errors or reference is None:
        raise InvalidReference(errors)
    return reference


def _claims_taken(library: Library, reference: Reference | None) -> list[Problem]:
    if reference is None:
        return []
    catalog = library.catalog
    taken = []
    for name in (reference.id, *reference.aliases):
        owner = catalog.aliases.get(name) or (name if name in catalog.references else None)
        if owner is not None and owner != reference.id:
            message = f"'{name}' is already the id or an alias of {owner}"
            taken.append(Problem(reference.path, 1, "front matter", message))
    return taken


def save_reference(
    library: Library,
    reference_id: str,
    text: str,
    *,
    base_hash: str | None,
    creating: bool,
    author: str,
    message: str,
) -> Saved:
    """Validate and save `text` as `reference_id`; see the module docstring for the order."""
    reference = validate_text(library, reference_id, text)
    data = text.replace("\r\n", "\n").encode("utf-8")
    folder = library.settings.references_dir
    path = reference_file(folder, reference_id)
    with writing(library.engine) as session:
        temporary = _write_temporary(path, data)
        try:
            _check_base(path, base_hash, creating)
            previous = path.read_bytes() if path.is_file() else None
            _replace(temporary, path)
            try:
                revision = record_revision(
                    session, reference_id, data, author=author, message=message
                )
                store_reference(session, reference)
                bump_index_version(session)
                session.commit()
            except IntegrityError:
                # Another save claimed the same id or alias between validation and the lock.
                _put_back(path, previous)
                raise Conflict("another reference took this id or alias meanwhile") from None
            except Exception:
                _put_back(path, previous)  # no 2xx, so the file must not have changed
                raise
            session.refresh(revision)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
    library.refresh()
    assert revision.id is not None
    return Saved(reference, revision.id, reference.content_hash)


def _put_back(path: Path, previous: bytes | None) -> None:
    """Undo the rename of a save whose database step failed: the old file, or none."""
    try:
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            _replace(_write_temporary(path, previous), path)
    except (OSError, FailrefError):
        # The next load records whatever file is there; nothing acknowledged is lost.
        logger.exception("could not put %s back after a failed save", path.name)


def _check_base(path: Path, base_hash: str | None, creating: bool) -> None:
    exists = path.is_file()
    if creating:
        if exists:
            raise StaleBase(f"{path.stem} exists already; edit it instead", _read(path))
        return
    if not exists:
        if base_hash is None:
            raise NotFound(f"no reference file '{path.stem}'", field="id")
        raise StaleBase("the file was deleted since you started; it was not re-created", None)
    if base_hash is None:
        raise MissingBase("say which version you started from (If-Match or base)", field="base")
    current = content_hash(path.read_bytes())
    if not secrets.compare_digest(current, base_hash):
        raise StaleBase("the file changed since you started; nothing was saved", _read(path))


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _write_temporary(path: Path, data: bytes) -> Path:
    temporary = path.with_name(f".{path.name}{TEMP_MARKER}{secrets.token_hex(6)}")
    try:
        with temporary.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise _storage_error(error) from None
    return temporary


def _replace(temporary: Path, path: Path) -> None:
    try:
        os.replace(temporary, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as error:
        raise _storage_error(error) from None


def _storage_error(error: OSError) -> FailrefError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return InsufficientStorage("the disk is full; nothing was saved, your text is kept below")
    return Unavailable(f"the file could not be written ({error.strerror}); nothing was saved")


def revisions(library: Library, reference_id: str) -> list[RevisionRow]:
    """Every revision of `reference_id`, newest first."""
    with Session(library.engine) as session:
        query = select(RevisionRow).where(RevisionRow.reference_id == reference_id)
        rows = session.exec(query.order_by(RevisionRow.id.desc())).all()  # type: ignore[union-attr]
        return list(rows)


def unified_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """A unified diff of two texts, for conflicts and history."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), old_name, new_name
    )
    return "".join(lines)


def keep_draft(library: Library, editor_id: int, reference_id: str, text: str) -> None:
    """Store text that could not be saved, so a conflict never loses an editor's work."""
    with writing(library.engine) as session:
        session.add(DraftRow(editor_id=editor_id, reference_id=reference_id, text=text))
        session.commit()


def latest_draft(library: Library, editor_id: int, reference_id: str) -> DraftRow | None:
    """The newest unsaved text of this editor for this reference."""
    with Session(library.engine) as session:
        query = (
            select(DraftRow)
            .where(DraftRow.editor_id == editor_id, DraftRow.reference_id == reference_id)
            .order_by(col(DraftRow.id).desc())
        )
        return session.exec(query.limit(1)).first()


def discard_drafts(library: Library, editor_id: int, reference_id: str) -> None:
    """Forget an editor's kept text for a reference once they saved it."""
    with writing(library.engine) as session:
        session.exec(
            delete(DraftRow).where(
                col(DraftRow.editor_id) == editor_id, col(DraftRow.reference_id) == reference_id
            )
        )
        session.commit()
