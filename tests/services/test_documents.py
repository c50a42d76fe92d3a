"""Each reference's API body: serialised when first read, kept for the same reference."""

from __future__ import annotations

import json

import pytest
from paths import GOOD

from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder
from failref.services import documents as documents_module
from failref.services.documents import Documents, document_json


@pytest.fixture
def references() -> dict[str, Reference]:
    return {reference.id: reference for reference in read_folder(GOOD).references}


@pytest.fixture
def serialised(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids serialised, in order."""
    done: list[str] = []

    def counted(reference: Reference) -> bytes:
        done.append(reference.id)
        return document_json(reference)

    monkeypatch.setattr(documents_module, "document_json", counted)
    return done


def test_a_body_is_serialised_on_its_first_read_only(
    references: dict[str, Reference], serialised: list[str]
) -> None:
    bodies = Documents(references)
    assert serialised == []
    body = bodies["stuck-rank"]
    assert json.loads(body)["id"] == "stuck-rank"
    assert bodies["stuck-rank"] is body
    assert serialised == ["stuck-rank"]
    assert sorted(bodies) == sorted(references)
    assert len(bodies) == len(references)
    with pytest.raises(KeyError):
        bodies["no-such-reference"]


def test_the_next_catalog_keeps_the_bodies_of_the_very_same_references(
    references: dict[str, Reference], serialised: list[str]
) -> None:
    before = Documents(references)
    kept, changed = before["slow-collective"], before["stuck-rank"]
    edited = references["stuck-rank"].model_copy(update={"title": "Another title"})
    after = Documents({**references, "stuck-rank": edited}, before)
    assert after["slow-collective"] is kept
    assert after["stuck-rank"] != changed
    assert json.loads(after["stuck-rank"])["title"] == "Another title"
    assert serialised == ["slow-collective", "stuck-rank", "stuck-rank"]
