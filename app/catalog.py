"""The in-memory snapshot the app serves from: references, aliases and the match index.

Built from the database after every load and swapped whole, so a request sees either the
old snapshot or the new one, never a half-updated index.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from app.document import Reference
from app.matcher import MatchIndex, build_index
from app.models import AliasRow, ReferenceRow, utc_now
from app.problems import Problem
from app.render import reference_path
from app.schemas import ReferenceDetail


@dataclass(frozen=True)
class Catalog:
    """Every indexed reference by id (in title order), aliases, and the last load's problems."""

    references: dict[str, Reference]
    aliases: dict[str, str]
    index: MatchIndex
    documents: dict[str, bytes] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    loaded_at: dt.datetime = field(default_factory=utc_now)


def load_catalog(session: Session, problems: tuple[Problem, ...] = ()) -> Catalog:
    """Read the indexed references from the database into a fresh snapshot."""
    rows = session.exec(select(ReferenceRow).order_by(col(ReferenceRow.title))).all()
    references = {row.id: Reference.model_validate_json(row.document) for row in rows}
    aliases = {row.alias: row.reference_id for row in session.exec(select(AliasRow))}
    index = build_index(list(references.values()))
    documents = {key: _document_json(reference) for key, reference in references.items()}
    return Catalog(references, aliases, index, documents, problems)


def _document_json(reference: Reference) -> bytes:
    """`GET /api/v1/references/{id}`'s body, serialised once per load rather than per request."""
    detail = ReferenceDetail.of(reference, reference_path(reference.id))
    return detail.model_dump_json().encode()
