"""Reading a folder again parses only the files whose bytes changed, takes the others'
references from those the caller holds, and gives what a fresh read gives."""

from __future__ import annotations

import shutil
from pathlib import Path

from paths import FIXTURES

from failref.domain.references.document import Reference
from failref.domain.references.folder import FolderContents, ParsedFiles, read_folder


def copied(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "references"
    folder.mkdir()
    for name in names:
        shutil.copy(FIXTURES / "good" / name, folder / name)
    return folder


def by_id(contents: FolderContents) -> dict[str, Reference]:
    return {reference.id: reference for reference in contents.references}


def same(read: FolderContents, fresh: FolderContents) -> None:
    assert read.references == fresh.references
    assert read.problems == fresh.problems
    assert read.sources == fresh.sources


def test_a_second_read_parses_nothing_and_reads_the_same(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md", "slow-collective.md")
    (folder / "broken.md").write_text("---\nid: broken\n---\n")
    memo = ParsedFiles()
    first = read_folder(folder, memo)
    assert memo.parsed == 3
    assert first.remembered == frozenset()
    again = read_folder(folder, memo, by_id(first))
    assert memo.parsed == 3
    same(again, read_folder(folder))
    assert again.remembered == {"stuck-rank", "slow-collective"}
    assert {p.path for p in again.problems if p.severity == "error"} == {"references/broken.md"}
    assert again.references[0] is first.references[0]


def test_an_unchanged_file_is_parsed_when_its_reference_is_not_held(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md", "slow-collective.md")
    memo = ParsedFiles()
    first = by_id(read_folder(folder, memo))
    held = {"stuck-rank": first["stuck-rank"]}
    # The other's reference is not held, or was read from other bytes (a web edit).
    edited = first["stuck-rank"].model_copy(update={"content_hash": "0" * 64})
    read_folder(folder, memo, held)
    assert memo.parsed == 3
    read_folder(folder, memo, {"stuck-rank": edited, "slow-collective": first["slow-collective"]})
    assert memo.parsed == 4


def test_a_changed_file_is_parsed_again_and_a_removed_one_leaves(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md", "slow-collective.md")
    memo = ParsedFiles()
    known = by_id(read_folder(folder, memo))
    path = folder / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
    changed = read_folder(folder, memo, known)
    assert memo.parsed == 3
    assert changed.remembered == {"slow-collective"}
    same(changed, read_folder(folder))
    (folder / "slow-collective.md").unlink()
    read_folder(folder, memo, by_id(changed))
    assert sorted(memo.files) == ["references/stuck-rank.md"]


def test_a_file_is_parsed_again_when_its_old_bytes_come_back(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md")
    path = folder / "stuck-rank.md"
    original = path.read_bytes()
    memo = ParsedFiles()
    known = by_id(read_folder(folder, memo))
    path.write_bytes(original.replace(b"A dead host.", b"Pulled."))
    known = by_id(read_folder(folder, memo, known))
    path.write_bytes(original)
    restored = read_folder(folder, memo, known)
    assert memo.parsed == 3
    same(restored, read_folder(folder))
