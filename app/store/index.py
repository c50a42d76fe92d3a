"""The database index of the references: brought in line with a folder, read back whole,
and the change counter every worker process watches."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session, col, delete, select

from app.domain.references.document import Reference
from app.domain.references.folder import read_folder
from app.domain.references.problems import Problem
from app.store.changes import announce_change
from app.store.models import AliasRow, IndexStateRow, ReferenceRow, utc_now
from app.store.revisions import record_revision

logger = logging.getLogger(__name__)

FILES_AUTHOR = "files"


@dataclass(frozen=True)
class SyncReport:
    """What a sync changed in the index."""

    added: list[str]
    updated: list[str]
    removed: list[str]
    unchanged: int
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]


def sync_folder(session: Session, folder: Path) -> SyncReport:
    """Load what changed in `folder` into the index, in one transaction; broken files are
    reported and the last good version of such a file keeps serving."""
    contents = read_folder(folder)
    if not folder.is_dir():
        return SyncReport([], [], [], 0, contents.problems)
    rows = {row.id: row for row in session.exec(select(ReferenceRow))}
    broken = _ids_of_broken_files(contents.problems, folder)
    added: list[str] = []
    updated: list[str] = []
    unchanged = 0
    reparsed = False
    for reference in contents.references:
        row = rows.get(reference.id)
        if row is not None and row.content_hash == reference.content_hash:
            unchanged += 1
            if row.document != reference.model_dump_json():
                # Same file, read by a newer parser: the index takes the new reading, and
                # no revision is recorded since nobody changed the text.
                store_reference(session, reference, row, aliases=False)
                reparsed = True
            continue
        store_reference(session, reference, row, aliases=False)
        data = contents.sources[reference.id]
        record_revision(
            session, reference.id, data, author=FILES_AUTHOR, message="loaded from file"
        )
        (updated if row else added).append(reference.id)
    present = {reference.id for reference in contents.references} | broken
    removed = [reference_id for reference_id in rows if reference_id not in present]
    _remove(session, removed)
    alias_problems = _replace_aliases(session, contents.references, keep=broken)
    if added or updated or removed or reparsed:
        bump_index_version(session)
    session.commit()
    problems = sorted([*contents.problems, *alias_problems])
    for problem in problems:
        logger.warning("%s", problem)
    return SyncReport(added, updated, removed, unchanged, problems)


def _ids_of_broken_files(problems: Iterable[Problem], folder: Path) -> set[str]:
    """Ids of files that exist but failed to parse; their indexed version stays."""
    prefix = f"{folder.name}/"
    return {
        problem.path.removeprefix(prefix).removesuffix(".md")
        for problem in problems
        if problem.severity == "error"
    }


def store_reference(
    session: Session, reference: Reference, row: ReferenceRow | None = None, *, aliases: bool = True
) -> None:
    """Write `reference` into its index row (insert or update), and its aliases unless a
    whole-folder sync rewrites them all afterwards."""
    row = row or session.get(ReferenceRow, reference.id)
    fresh = ReferenceRow(
        id=reference.id,
        title=reference.title,
        category=reference.category,
        path=reference.path,
        content_hash=reference.content_hash,
        document=reference.model_dump_json(),
        loaded_at=utc_now(),
    )
    if row is not None:
        row.sqlmodel_update(fresh.model_dump(exclude={"id"}))
    session.add(row or fresh)
    if not aliases:
        return
    session.exec(delete(AliasRow).where(col(AliasRow.reference_id) == reference.id))
    session.flush()
    session.add_all(AliasRow(alias=alias, reference_id=reference.id) for alias in reference.aliases)


def _remove(session: Session, removed: list[str]) -> None:
    if removed:
        session.exec(delete(AliasRow).where(col(AliasRow.reference_id).in_(removed)))
        session.exec(delete(ReferenceRow).where(col(ReferenceRow.id).in_(removed)))


def _replace_aliases(
    session: Session, references: Sequence[Reference], keep: set[str]
) -> list[Problem]:
    """Rewrite every alias; one still held by a broken file's last good version (or equal
    to a kept id) is reported and left out rather than failing the whole load."""
    session.exec(delete(AliasRow).where(col(AliasRow.reference_id).not_in(keep)))
    session.flush()
    held = {row.alias: row.reference_id for row in session.exec(select(AliasRow))}
    held.update({reference_id: reference_id for reference_id in keep})
    problems = []
    for reference in references:
        for alias in reference.aliases:
            holder = held.get(alias)
            if holder is not None and holder != reference.id:
                message = f"alias '{alias}' is still held by {holder}; not applied"
                problems.append(Problem(reference.path, 1, "front matter", message, "warning"))
                continue
            session.add(AliasRow(alias=alias, reference_id=reference.id))
    return problems


def index_version(session: Session) -> int:
    """How many times the index has changed, as every worker process can read it."""
    state = session.get(IndexStateRow, 1)
    return state.version if state else 0


def bump_index_version(session: Session) -> None:
    """Count one more change to the index, and announce it to the other replicas (on
    PostgreSQL, delivered when the caller commits)."""
    state = session.get(IndexStateRow, 1) or IndexStateRow(id=1, version=0)
    state.version += 1
    session.add(state)
    announce_change(session, state.version)


def read_index(session: Session) -> tuple[list[Reference], dict[str, str]]:
    """Every indexed reference (in title order) and every alias with the id it names."""
    rows = session.exec(select(ReferenceRow).order_by(col(ReferenceRow.title))).all()
    references = [Reference.model_validate_json(row.document) for row in rows]
    aliases = {row.alias: row.reference_id for row in session.exec(select(AliasRow))}
    return references, aliases
