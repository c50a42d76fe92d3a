"""The index cache: a rebuild after one reference changed works out that reference's pieces
only, and gives the index a full build gives."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from app.domain.matching.index import IndexCache, build_index
from app.domain.references.document import Message, Reference
from app.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return read_folder(REFERENCES).references


def edited(reference: Reference) -> Reference:
    """`reference` with one more message line, as a save would store it."""
    extra = Message(text="Some new message 42", line=1, seen_in_markdown="", seen_in_url=None)
    return reference.model_copy(update={"messages": (*reference.messages, extra)})


def test_a_cached_build_is_a_full_build(references: list[Reference]) -> None:
    assert build_index(references, IndexCache()) == build_index(references)


def test_a_save_of_one_reference_works_out_only_that_one(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    assert cache.built == len(references)
    changed = [*references[:5], edited(references[5]), *references[6:]]
    index = build_index(changed, cache)
    assert cache.built == len(references) + 1
    assert index == build_index(changed)
    assert "some new message <n>" in index.entry_keys


def test_an_unchanged_reload_works_out_nothing(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    build_index(list(reversed(references)), cache)
    assert cache.built == len(references)


def test_a_removed_reference_leaves_the_cache(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    build_index(references[1:], cache)
    build_index(references, cache)
    assert cache.built == len(references) + 1
