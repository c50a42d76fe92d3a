"""Read a folder of reference files: parse each, then check what spans files (ids, aliases,
links). Nothing here writes; the store brings the index in line with what this reads."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .codes import code_name, code_owners
from .document import Reference, content_hash
from .graph import link_problems
from .parser import parse_reference
from .problems import Problem

# A reference is a few pages of text; anything larger is a mistake (or a hostile upload).
MAX_FILE_BYTES = 256 * 1024
SKIPPED_NAMES = frozenset({"readme.md"})


@dataclass(frozen=True)
class FolderContents:
    """The references of a folder that passed validation, the raw bytes of each, and
    problems; `remembered`: the ids whose files were not parsed again (see `ParsedFiles`)."""

    references: list[Reference]
    problems: list[Problem]
    sources: dict[str, bytes] = field(default_factory=dict)
    remembered: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What parsing one file's bytes gave: its reference's id (None when it has errors)
    and its problems."""

    content_hash: str
    reference_id: str | None
    problems: tuple[Problem, ...]


class ParsedFiles:
    """The files the last read of a folder parsed, by the path problems name them by: the
    next read parses only the files whose bytes changed since (a `git pull` of one file at
    10,000 references parses that one). It keeps no reference: an unchanged file's is
    taken from those the caller holds (`known`), so none is held twice."""

    def __init__(self) -> None:
        self.files: dict[str, ParsedFile] = {}
        self.parsed = 0  # files parsed, since this was made

    def read(
        self, shown: str, data: bytes, known: Mapping[str, Reference]
    ) -> tuple[Reference | None, tuple[Problem, ...], bool]:
        """The reference and problems of `data`, the file at `shown`, and whether they were
        parsed now: not when the bytes are those it last saw and `known` holds their
        reference, read from those very bytes."""
        found_hash = content_hash(data)
        last = self.files.get(shown)
        if last is not None and last.content_hash == found_hash:
            if last.reference_id is None:
                return None, last.problems, False
            reference = known.get(last.reference_id)
            if reference is not None and _read_from(reference, shown, found_hash):
                return reference, last.problems, False
        parsed, problems = parse_reference(shown, data)
        self.parsed += 1
        self.files[shown] = ParsedFile(found_hash, parsed.id if parsed else None, tuple(problems))
        return parsed, tuple(problems), True


def _read_from(reference: Reference, shown: str, found_hash: str) -> bool:
    """True when `reference` was read from these very bytes of the file at `shown`."""
    return reference.content_hash == found_hash and reference.path == shown


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


def read_folder(
    folder: Path, memo: ParsedFiles | None = None, known: Mapping[str, Reference] | None = None
) -> FolderContents:
    """Parse every reference file of `folder`, then check what spans files (ids, links).

    With `memo`, a file whose bytes are those it last saw is not parsed again when `known`
    (references by id) holds what they gave; `memo` then holds this read's files alone."""
    memo = memo or ParsedFiles()
    present: set[str] = set()
    parsed: list[Reference] = []
    problems: list[Problem] = []
    sources: dict[str, bytes] = {}
    remembered: set[str] = set()
    if not folder.is_dir():
        missing = Problem(str(folder), 0, "folder", "references folder does not exist")
        return FolderContents([], [missing])
    for path in reference_files(folder):
        data, problem = _read_file(path, folder)
        if problem is not None:
            problems.append(problem)
            continue
        shown = display_path(path, folder)
        present.add(shown)
        reference, found, fresh = memo.read(shown, data, known or {})
        problems.extend(found)
        if reference is not None:
            parsed.append(reference)
            sources[reference.id] = data
            if not fresh:
                remembered.add(reference.id)
    memo.files = {shown: file for shown, file in memo.files.items() if shown in present}
    kept, cross = check_across_files(parsed)
    problems.extend(cross)
    return FolderContents(
        kept,
        sorted(problems),
        {r.id: sources[r.id] for r in kept},
        frozenset(remembered.intersection(r.id for r in kept)),
    )


def _read_file(path: Path, folder: Path) -> tuple[bytes, Problem | None]:
    shown = display_path(path, folder)
    try:
        if path.is_symlink() and not path.resolve().is_relative_to(folder.resolve()):
            return b"", Problem(shown, 0, "file", "symbolic link pointing outside the folder")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            message = f"{size} bytes is over the {MAX_FILE_BYTES} limit"
            return b"", Problem(shown, 0, "file", message)
        return path.read_bytes(), None
    except OSError as error:  # gone since it was listed, unreadable, a symlink loop
        return b"", Problem(shown, 0, "file", f"could not be read ({error.strerror})")


def check_across_files(references: Sequence[Reference]) -> tuple[list[Reference], list[Problem]]:
    """Drop references whose id or alias another file already claims; warn on dead links;
    check how symptoms and causes name each other."""
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
    problems.extend(link_problems(kept))
    # A code leads to one reference: a second claim loads, but `failref check` fails on it.
    _, clashes = code_owners(kept)
    problems.extend(
        Problem(reference.path, 1, "codes", f"{code_name(code)} is owned by '{owner}'", "warning")
        for reference, code, owner in clashes
    )
    return kept, problems


def folder_signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Names, sizes and modification times of the reference files: cheap to take, and
    different after any edit, `git pull`, addition or deletion."""
    signature = []
    for path in reference_files(folder):
        with contextlib.suppress(FileNotFoundError):
            stat = path.stat()
            signature.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(signature)
