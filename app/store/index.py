"""The database index of the references: brought in line with a folder, read back whole,
and the change counter every worker process watches."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, delete, select

from ..domain.references.document import Reference
from ..domain.references.folder import ParsedFiles, read_folder
from ..domain.references.problems import Problem
from ..domain.references.reading import reading_of
from .changes import announce_change
from .models import AliasRow, ConflictRow, IndexStateRow, ReferenceRow, RetiredRow, utc_now
from .readings import StoredReferences, parsed_document, seed, stored_document
from .releases import ReleaseCheck, Verdict, claim_release, release_stamp
from .revisions import record_revision

logger = logging.getLogger(__name__)

FILES_AUTHOR = "files"
# Rows whose documents one query reads by id, well under SQLite's limit on parameters.
READ_BATCH_IDS = 500


@dataclass(frozen=True)
class SyncReport:
    """What a sync changed in the index, and the references it left alone because the folder
    and the database both changed them since the last import (`conflicts`)."""

    added: list[str]
    updated: list[str]
    removed: list[str]
    unchanged: int
    problems: list[Problem]
    conflicts: list[str] = field(default_factory=list)
    release: Verdict | None = None  # None: not checked (folder mode, see `releases.py`)
    # What the folder's files gave, by id: `read_index` takes them, not their rows' documents.
    served: Mapping[str, Reference] = field(default_factory=dict, repr=False, compare=False)

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]


# What a sync does with one file, given its index row (see `fate_of`).
Fate = Literal["import", "same", "database", "conflict"]


def fate_of(row: ReferenceRow | None, file_hash: str) -> Fate:
    """Import the file when it is new or only the folder changed it since the last import;
    keep the database's text when only the database changed (a web edit); a conflict when
    both did. A file equal to the database's text is the same, whoever wrote it."""
    if row is None:
        return "import"
    if row.content_hash == file_hash:
        return "same"
    if row.imported_hash == file_hash:
        return "database"
    if row.imported_hash == row.content_hash:
        return "import"
    return "conflict"


@dataclass
class _Outcome:
    """What a sync has decided so far."""

    kept: set[str]  # ids whose index row does not take the folder's version: aliases stay
    served: list[Reference] = field(default_factory=list)  # the folder's version serves
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    conflicts: list[ConflictRow] = field(default_factory=list)
    unchanged: int = 0
    reparsed: bool = False


def sync_folder(
    session: Session,
    folder: Path,
    memo: ParsedFiles | None = None,
    known: Mapping[str, Reference] | None = None,
    release: ReleaseCheck | None = None,
    skip_retired: bool = False,
) -> SyncReport:
    """Load what changed in `folder` into the index, in one transaction; broken files are
    reported and the last good version of such a file keeps serving, as does the database's
    text of a reference the database changed since its last import (see `fate_of`). With
    `memo` and the references served now (`known`), an unchanged file is not parsed again
    and its row is taken as it is (see `read_folder`). With `release` (database mode), a
    folder that is an older release than the newest one loaded changes nothing at all
    (see `releases.py`). With `skip_retired` (database mode), a file holding the very text
    a reference was retired with is not imported again; in folder mode the folder is the
    store of record, so a file that comes back brings its reference back."""
    memo = memo if memo is not None else ParsedFiles()
    # A row's document is read only where a file was parsed again (`_sync_file`) or its
    # reference is taken from the row (`StoredReferences`): at 10,000 references the
    # documents are ~400 MB, all read on every reload before.
    document = cast("QueryableAttribute[str]", ReferenceRow.document)  # a mapped column
    query = select(ReferenceRow).options(defer(document))
    rows = {row.id: row for row in session.exec(query)}
    if not memo.files:  # a process's first read: what the rows say of their files
        seed(memo, rows.values())
    contents = read_folder(folder, memo, known or StoredReferences(session, rows))
    if not folder.is_dir():
        return SyncReport([], [], [], 0, contents.problems)
    verdict = None
    if release is not None:
        verdict = claim_release(session, release_stamp(contents, release.label), release)
        if verdict == "older":
            return SyncReport([], [], [], 0, [], release=verdict)
    outcome = _Outcome(kept=_ids_of_broken_files(contents.problems, folder))
    retired = retired_hashes(session) if skip_retired else {}
    for reference in contents.references:
        if reference.id not in rows and retired.get(reference.id) == reference.content_hash:
            continue  # the text retired since: a file an export has not removed yet
        data = contents.sources[reference.id]
        fresh = reference.id not in contents.remembered
        _sync_file(session, outcome, reference, rows.get(reference.id), data, fresh)
    present = {reference.id for reference in contents.references} | outcome.kept
    removed = _sync_gone(outcome, [row for key, row in rows.items() if key not in present])
    remove_references(session, removed)
    unretire(session, outcome.added)
    alias_problems = _replace_aliases(session, outcome.served, keep=outcome.kept)
    _replace_conflicts(session, outcome.conflicts)
    if outcome.added or outcome.updated or removed or outcome.reparsed:
        bump_index_version(session)
    session.commit()
    problems = sorted([*contents.problems, *alias_problems])
    for problem in problems:
        logger.warning("%s", problem)
    conflicts = sorted(conflict.reference_id for conflict in outcome.conflicts)
    for reference_id in conflicts:
        logger.warning("%s changed in the folder and in the database", reference_id)
    return SyncReport(
        outcome.added,
        outcome.updated,
        removed,
        outcome.unchanged,
        problems,
        conflicts,
        verdict,
        {reference.id: reference for reference in outcome.served},
    )


def _sync_file(
    session: Session,
    outcome: _Outcome,
    reference: Reference,
    row: ReferenceRow | None,
    data: bytes,
    fresh: bool,
) -> None:
    """Bring one good file's index row in line, as its `fate_of` says; `fresh`: the file
    was parsed now (else its reference is the one served, or the one its row holds)."""
    fate = fate_of(row, reference.content_hash)
    if row is not None and fate in ("database", "conflict"):
        outcome.kept.add(reference.id)
        outcome.unchanged += 1
        if fate == "conflict":
            folder_text = data.decode("utf-8")
            outcome.conflicts.append(_conflict(row, reference.content_hash, folder_text))
        return
    outcome.served.append(reference)
    if row is not None and fate == "same":
        outcome.unchanged += 1
        # Same text, read by a newer parser (the index takes the new reading), or an
        # export wrote the database's text into the folder: no revision, nobody changed it;
        # or a row that does not say yet which parser read it.
        document = stored_document(reference) if fresh else None
        newer_reading = document is not None and row.document != document
        unmarked = document is not None and row.reading != reading_of(document)
        outcome.reparsed = outcome.reparsed or newer_reading
        if newer_reading or unmarked or row.imported_hash != reference.content_hash:
            store_reference(session, reference, row, imported=True, synced=True)
        return
    store_reference(session, reference, row, imported=True, synced=True)
    message = "loaded from file"
    record_revision(session, reference.id, data, author=FILES_AUTHOR, message=message)
    (outcome.updated if row else outcome.added).append(reference.id)


def _sync_gone(outcome: _Outcome, gone: list[ReferenceRow]) -> list[str]:
    """The ids of rows whose file was deleted that leave the index: those the database did
    not change since their import. One it changed is a conflict; one it created (no folder
    has held it yet) simply stays."""
    removed = [row.id for row in gone if row.imported_hash == row.content_hash]
    outcome.kept.update(row.id for row in gone if row.imported_hash != row.content_hash)
    outcome.conflicts.extend(
        _conflict(row, None, None)
        for row in gone
        if row.imported_hash not in (None, row.content_hash)
    )
    return removed


def _conflict(row: ReferenceRow, folder_hash: str | None, folder_text: str | None) -> ConflictRow:
    return ConflictRow(
        reference_id=row.id,
        folder_hash=folder_hash,
        folder_text=folder_text,
        database_hash=row.content_hash,
    )


def _replace_conflicts(session: Session, conflicts: list[ConflictRow]) -> None:
    """Each sync finds every conflict anew: one resolved since (the folder took the
    database's text, or the database the folder's) is gone."""
    session.exec(delete(ConflictRow))
    session.flush()
    session.add_all(conflicts)


def _ids_of_broken_files(problems: Iterable[Problem], folder: Path) -> set[str]:
    """Ids of files that exist but failed to parse; their indexed version stays."""
    prefix = f"{folder.name}/"
    return {
        problem.path.removeprefix(prefix).removesuffix(".md")
        for problem in problems
        if problem.severity == "error"
    }


def store_reference(
    session: Session,
    reference: Reference,
    row: ReferenceRow | None = None,
    *,
    imported: bool,
    synced: bool = False,
) -> None:
    """Write `reference` into its index row (insert or update), and its aliases unless a
    whole-folder sync wrote it (`synced`: it rewrites them all afterwards, and marks the
    row as this parser's reading of the file, see `readings.py`). `imported`: its text is
    the folder's file now (a load, or a save that wrote the file), so a later load
    compares with it."""
    row = row or session.get(ReferenceRow, reference.id)
    kept_import = row.imported_hash if row is not None else None
    document = stored_document(reference)
    fresh = ReferenceRow(
        id=reference.id,
        title=reference.title,
        category=reference.category,
        path=reference.path,
        content_hash=reference.content_hash,
        imported_hash=reference.content_hash if imported else kept_import,
        document=document,
        loaded_at=utc_now(),
        reading=reading_of(document) if synced else None,
    )
    if row is not None:
        row.sqlmodel_update(fresh.model_dump(exclude={"id"}))
    session.add(row or fresh)
    if synced:
        return
    unretire(session, [reference.id])
    session.exec(delete(AliasRow).where(col(AliasRow.reference_id) == reference.id))
    session.flush()
    session.add_all(AliasRow(alias=alias, reference_id=reference.id) for alias in reference.aliases)


def remove_references(session: Session, removed: list[str]) -> None:
    """Take references out of the index, with their aliases and any conflict."""
    if removed:
        session.exec(delete(ConflictRow).where(col(ConflictRow.reference_id).in_(removed)))
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


def retired_hashes(session: Session) -> dict[str, str]:
    """The text hash each retired reference had when it was retired, by id."""
    query = select(RetiredRow.reference_id, RetiredRow.content_hash)
    return dict(session.exec(query).all())


def unretire(session: Session, reference_ids: list[str]) -> None:
    """A text saved or imported under a retired id brings the reference back."""
    if reference_ids:
        query = delete(RetiredRow).where(col(RetiredRow.reference_id).in_(reference_ids))
        session.exec(query)


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


class ParsedRows:
    """The references the last read parsed, by id, with the version of the row each came
    from (its content hash and when it was stored): the next read parses only the rows
    stored since, and gives the very objects of the others."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[tuple[str, dt.datetime], Reference]] = {}
        self.parsed = 0  # documents parsed, since these rows were made


def read_index(
    session: Session,
    parsed: ParsedRows | None = None,
    served: Mapping[str, Reference] | None = None,
) -> tuple[list[Reference], dict[str, str]]:
    """Every indexed reference (in title order) and every alias with the id it names;
    with `parsed`, only rows stored since its last read are parsed, and a row whose reading
    is a reference's in `served` (what a sync just read, `readings.py`) takes that one."""
    parsed = parsed or ParsedRows()
    versions = session.exec(
        select(
            ReferenceRow.id, ReferenceRow.content_hash, ReferenceRow.loaded_at, ReferenceRow.reading
        ).order_by(col(ReferenceRow.title), col(ReferenceRow.id))
    ).all()
    stale = [
        (ref_id, (content_hash, loaded_at), reading)
        for ref_id, content_hash, loaded_at, reading in versions
        if ref_id not in parsed.rows or parsed.rows[ref_id][0] != (content_hash, loaded_at)
    ]
    known = {
        ref_id: (version, reference)
        for ref_id, version, reading in stale
        if (reference := (served or {}).get(ref_id)) is not None
        and reading == reading_of(stored_document(reference))
    }
    unread = [ref_id for ref_id, _, _ in stale if ref_id not in known]
    fresh = known | _parsed_documents(session, unread, whole=len(unread) == len(versions))
    parsed.parsed += len(fresh) - len(known)
    stale_ids = {ref_id for ref_id, _, _ in stale}
    rows = {
        ref_id: fresh.get(ref_id) or parsed.rows[ref_id]
        for ref_id, _, _, _ in versions
        if ref_id in fresh or ref_id not in stale_ids  # a row gone since the first query leaves
    }
    parsed.rows = rows
    aliases = {row.alias: row.reference_id for row in session.exec(select(AliasRow))}
    return [reference for _, reference in rows.values()], aliases


def _parsed_documents(
    session: Session, ids: Sequence[str], whole: bool
) -> dict[str, tuple[tuple[str, dt.datetime], Reference]]:
    """The rows of `ids` (every row when `whole`) parsed, with the version each was read at."""
    columns = (ReferenceRow.id, ReferenceRow.content_hash, ReferenceRow.loaded_at)
    query = select(*columns, ReferenceRow.document)
    batches = (
        [query]
        if whole
        else [
            query.where(col(ReferenceRow.id).in_(ids[start : start + READ_BATCH_IDS]))
            for start in range(0, len(ids), READ_BATCH_IDS)
        ]
    )
    return {
        ref_id: ((content_hash, loaded_at), parsed_document(document))
        for batch in batches
        for ref_id, content_hash, loaded_at, document in session.exec(batch)
    }


def list_conflicts(session: Session) -> list[ConflictRow]:
    """The references the last sync found changed in both the folder and the database."""
    return list(session.exec(select(ConflictRow).order_by(col(ConflictRow.reference_id))))
