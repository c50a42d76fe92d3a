"""Reading a folder again parses only the files whose bytes changed, and gives what a
fresh read gives."""

from __future__ import annotations

import shutil
from pathlib import Path

from paths import FIXTURES

from app.domain.references.folder import FolderContents, ParsedFiles, read_folder


def copied(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "references"
    folder.mkdir()
    for name in names:
        shutil.copy(FIXTURES / "good" / name, folder / name)
    return folder


def same(read: FolderContents, fresh: FolderContents) -> None:
    assert read.references == fresh.references
    assert read.problems == fresh.problems
    assert read.sources == fresh.sources
    assert read.documents == fresh.documents


def test_a_second_read_parses_nothing_and_reads_the_same(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md", "slow-collective.md")
    (folder / "broken.md").write_text("---\nid: broken\n---\n")
    memo = ParsedFiles()
    first = read_folder(folder, memo)
    assert memo.parsed == 3
    again = read_folder(folder, memo)
    assert memo.parsed == 3
    same(again, read_folder(folder))
    assert {p.path for p in again.problems if p.severity == "error"} == {"references/broken.md"}
    assert again.references[0] is first.references[0]


def test_a_changed_file_is_parsed_again_and_a_removed_one_leaves(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md", "slow-collective.md")
    memo = ParsedFiles()
    read_folder(folder, memo)
    path = folder / "stuck-rank.md"
    path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
    changed = read_folder(folder, memo)
    assert memo.parsed == 3
    same(changed, read_folder(folder))
    (folder / "slow-collective.md").unlink()
    read_folder(folder, memo)
    assert sorted(memo.files) == ["references/stuck-rank.md"]


def test_a_file_is_parsed_again_when_its_old_bytes_come_back(tmp_path: Path) -> None:
    folder = copied(tmp_path, "stuck-rank.md")
    path = folder / "stuck-rank.md"
    original = path.read_bytes()
    memo = ParsedFiles()
    read_folder(folder, memo)
    path.write_bytes(original.replace(b"A dead host.", b"Pulled."))
    read_folder(folder, memo)
    path.write_bytes(original)
    restored = read_folder(folder, memo)
    assert memo.parsed == 3
    same(restored, read_folder(folder))
