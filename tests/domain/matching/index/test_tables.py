"""The tables across references: an update files new pieces and takes gone ones off, and
a key nobody holds any more leaves."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from failref.domain.matching.index.pieces import pieces_of
from failref.domain.matching.index.tables import ReferencePieces, Tables
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return read_folder(REFERENCES).references


def pieces(*lines: str, keywords: str = "", paths: str = "") -> ReferencePieces:
    return ReferencePieces(
        keys=lines,
        messages=tuple(range(len(lines))),
        kinds=("failure",) * len(lines),
        levels=(None,) * len(lines),
        token_sets=tuple(frozenset(line.split()) for line in lines),
        keywords=frozenset(keywords.split()),
        code_paths=frozenset(paths.split()),
    )


def test_an_update_files_each_reference_under_its_keys() -> None:
    tables = Tables().updated({}, {"a": pieces("nccl timeout", "nccl abort", keywords="rank")})
    tables = tables.updated({}, {"b": pieces("cuda timeout", paths="torch/cuda/")})
    assert tables.token_holders == {
        "nccl": {"a"},
        "timeout": {"a", "b"},
        "abort": {"a"},
        "cuda": {"b"},
    }
    assert tables.line_counts == {"nccl": 2, "timeout": 2, "abort": 1, "cuda": 1}
    assert tables.keyword_holders == {"rank": {"a"}}
    assert tables.code_path_holders == {"torch/cuda/": {"b"}}


def test_what_a_removed_or_changed_reference_held_alone_leaves() -> None:
    old = pieces("nccl timeout", keywords="rank", paths="torch/distributed/")
    tables = Tables().updated({}, {"a": old, "b": pieces("cuda timeout")})
    changed = tables.updated({"a": old}, {"a": pieces("nccl abort", keywords="rank")})
    assert changed.token_holders == {"nccl": {"a"}, "abort": {"a"}, "timeout": {"b"}, "cuda": {"b"}}
    assert changed.line_counts == {"nccl": 1, "abort": 1, "timeout": 1, "cuda": 1}
    assert changed.code_path_holders == {}
    assert changed.keyword_holders is tables.keyword_holders  # unchanged, so not copied
    emptied = changed.updated({"a": pieces("nccl abort", keywords="rank")}, {})
    assert emptied == Tables().updated({}, {"b": pieces("cuda timeout")})
    assert tables.token_holders["timeout"] == {"a", "b"}  # the tables handed out stay as they were


def test_tables_filed_at_once_are_the_ones_filed_reference_by_reference(
    references: list[Reference],
) -> None:
    """The from-empty path (`Tables.of`) files the shipped references as updates that add
    them one at a time, and as updates that take them off again, do."""
    found = dict(zip((r.id for r in references), pieces_of(references), strict=True))
    one_by_one = Tables()
    for ref_id, held in found.items():
        one_by_one = one_by_one.updated({}, {ref_id: held})
    at_once = Tables().updated({}, found)
    assert at_once == one_by_one == Tables.of(found)
    assert at_once.keyword_holders
    assert at_once.code_path_holders
    half = dict(list(found.items())[: len(found) // 2])
    rest = {ref_id: held for ref_id, held in found.items() if ref_id not in half}
    assert at_once.updated(half, {}) == Tables.of(rest)
