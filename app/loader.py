"""Read a folder of reference files and bring the database index in line with it."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session, col, delete, select

from app.document import Reference
from app.models import AliasRow, IndexStateRow, ReferenceRow, RevisionRow, utc_now
from app.problems import Problem
from app.references import content_hash, parse_reference

logger = logging.getLogger(__name__)

# A reference is a few pages of text; anything larger is a mistake (or a hostile upload).
MAX_FILE_BYTES = 256 * 1024
FILES_AUTHOR = "files"
SKIPPED_NAMES = frozenset({"readme.md"})
# Saves write `.<id>.md.tmp-<random>` beside the target, then rename it over the target.
TEMP_MARKER = ".tmp-"


@dataclass(frozen=True)
class FolderContents:
    """The references of a folder that passed validation, the raw bytes of each, and problems."""

    references: list[Reference]
    problems: list[Problem]
    sources: dict[str, bytes] = field(default_factory=dict)


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


def reference_files(folder: Path) -> list[Path]:
    """The Markdown files of `folder` that are references (not READMEs), in name order."""
    return sorted(
        path
        for path in folder.glob("*.md")
        if path.name.lower() not in SKIPPED_NAMES and path.is_file()
    )


def display_path(path: Path, folder: Path) -> str:
    """How problems name a file: the folder's name and the file's, `references/foo.md`."""
    return f"{folder.name}/{path.name}"


def read_folder(folder: Path) -> FolderContents:
    """Parse every reference file of `folder`, then check what spans files (ids, links)."""
    parsed: list[Reference] = []
    problems: list[Problem] = []
    sources: dict[str, bytes] = {}
    if not folder.is_dir():
        missing = Problem(str(folder), 0, "folder", "references folder does not exist")
        return FolderContents([], [missing])
    for path in reference_files(folder):
        data, problem = _read_file(path, folder)
        if problem is not None:
            problems.append(problem)
            continue
        reference, found = parse_reference(display_path(path, folder), data)
        problems.extend(found)
        if reference is not None:
            parsed.append(reference)
            sources[reference.id] = data
    kept, cross = check_across_files(parsed)
    problems.extend(cross)
    return FolderContents(kept, sorted(problems), {r.id: sources[r.id] for r in kept})


def _read_file(path: Path, folder: Path) -> tuple[bytes, Problem | None]:
    shown = display_path(path, folder)
    if path.is_symlink() and not path.resolve().is_relative_to(folder.resolve()):
        return b"", Problem(shown, 0, "file", "symbolic link pointing outside the folder")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        return b"", Problem(shown, 0, "file", f"{size} bytes is over the {MAX_FILE_BYTES} limit")
    return path.read_bytes(), None


def check_across_files(references: Sequence[Reference]) -> tuple[list[Reference], list[Problem]]:
    """Drop references whose id or alias another file already claims; warn on dead links."""
    claimed: dict[str, str] = {}
    kept: list[Reference] = []
    problems: list[Problem] = []
    for reference in references:
        names = [reference.id, *reference.aliases]
        taken = [name for name in names if name in claimed]
        if taken:
            other = claimed[taken[0]]
            message = f"duplicate id '{taken[0]}', already used by {other}"
            problems.append(Problem(reference.path, 1, "front matter", message))
            continue
        claimed.update(dict.fromkeys(names, reference.path))
        kept.append(reference)
    known = {reference.id for reference in kept}
    for reference in kept:
        problems.extend(
            Problem(reference.path, 1, "links", f"link to unknown reference '{target}'", "warning")
            for target in reference.related
            if target not in known
        )
    return kept, problems


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
    for reference in contents.references:
        row = rows.get(reference.id)
        if row is not None and row.content_hash == reference.content_hash:
            unchanged += 1
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
    if added or updated or removed:
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


def record_revision(
    session: Session, reference_id: str, data: bytes, *, author: str, message: str
) -> RevisionRow:
    """Add a revision of `reference_id` holding `data`, unless it repeats the latest one."""
    latest = session.exec(
        select(RevisionRow)
        .where(RevisionRow.reference_id == reference_id)
        .order_by(col(RevisionRow.id).desc())
        .limit(1)
    ).first()
    content = data.decode("utf-8")
    if latest is not None and latest.content == content:
        return latest
    revision = RevisionRow(
        reference_id=reference_id,
        content_hash=content_hash(data),
        content=content,
        author=author,
        message=message,
    )
    session.add(revision)
    return revision


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
    """Count one more change to the index; the caller commits."""
    state = session.get(IndexStateRow, 1) or IndexStateRow(id=1, version=0)
    state.version += 1
    session.add(state)


def folder_signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Names, sizes and modification times of the reference files: cheap to take, and
    different after any edit, `git pull`, addition or deletion."""
    signature = []
    for path in reference_files(folder):
        with contextlib.suppress(FileNotFoundError):
            stat = path.stat()
            signature.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(signature)


def remove_leftover_temporaries(folder: Path) -> list[Path]:
    """Delete the temporary files of saves that crashed before their rename."""
    leftovers = [path for path in folder.glob(f".*.md{TEMP_MARKER}*") if path.is_file()]
    for path in leftovers:
        logger.warning("removing %s, left by an interrupted save", path.name)
        path.unlink()
    return leftovers
