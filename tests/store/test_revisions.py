"""Revisions by content hash: the base a conflict's three-way view starts from."""

from __future__ import annotations

from sqlalchemy import Engine

from failref.domain.references.document import content_hash
from failref.store.db import writing
from failref.store.revisions import record_revision, revision_text_by_hash


def test_a_revision_is_found_by_its_hash_for_its_reference_only(engine: Engine) -> None:
    with writing(engine) as session:
        record_revision(session, "one", b"first\n", author="ann", message="a")
        record_revision(session, "one", b"second\n", author="ann", message="b")
        session.commit()
    assert revision_text_by_hash(engine, "one", content_hash(b"first\n")) == "first\n"
    assert revision_text_by_hash(engine, "one", content_hash(b"second\n")) == "second\n"
    assert revision_text_by_hash(engine, "two", content_hash(b"first\n")) is None
    assert revision_text_by_hash(engine, "one", "0" * 64) is None
