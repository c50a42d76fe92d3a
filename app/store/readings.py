"""What the index rows keep of the files they were read from, so that a process starting
on a database that already holds the folder parses only the files whose bytes or parser
changed since: `seed` files each such row in the folder read's memo, and
`StoredReferences` gives the row's reference, parsed from its document, when the folder
read asks for it. A row's document is the reference's JSON without its rendered HTML
(`stored_document`), which a page or API body renders again on first read."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import get_args

from pydantic import BaseModel, ValidationError
from sqlmodel import Session, col, select

from ..domain.references.document import Reference
from ..domain.references.folder import ParsedFile, ParsedFiles
from ..domain.references.reading import reading_of
from .models import ReferenceRow


def rendered_keys() -> tuple[tuple[str | None, str], ...]:
    """The rendered HTML a document written before it was left out holds, as (list, key)
    pairs, the list None for the reference itself: every computed field of a reference and
    of the items of its lists, read off the models so a new one is never missed."""
    keys: list[tuple[str | None, str]] = [(None, name) for name in Reference.model_computed_fields]
    for name, field in Reference.model_fields.items():
        for item in get_args(field.annotation):
            if isinstance(item, type) and issubclass(item, BaseModel):
                keys.extend((name, computed) for computed in item.model_computed_fields)
    return tuple(keys)


RENDERED_KEYS = rendered_keys()


def stored_document(reference: Reference) -> str:
    """What an index row keeps of `reference`: its JSON without the HTML its Markdown
    renders to (computed fields): a load renders no page, and a restart parses less."""
    return reference.model_dump_json(exclude_computed_fields=True)


def parsed_document(document: str) -> Reference:
    """The reference a row's document holds; one stored with its HTML (by an older
    version) is read without it, the HTML being what its Markdown renders to."""
    try:
        return Reference.model_validate_json(document)
    except ValidationError:
        data = json.loads(document)
        for part, key in RENDERED_KEYS:
            for value in [data] if part is None else data.get(part) or []:
                value.pop(key, None)
        return Reference.model_validate(data)


def seed(memo: ParsedFiles, rows: Iterable[ReferenceRow]) -> None:
    """File in `memo` each row that holds the folder's file as read by a parser (its
    `reading` set, its text the one last imported), by the path the file had. A file
    that parses has no problems of its own (every problem the parser finds is an error,
    which keeps the file out of the index); what it is warned of spans files and is
    checked on every read."""
    for row in rows:
        if row.reading is not None and row.imported_hash == row.content_hash:
            memo.files.setdefault(row.path, ParsedFile(row.content_hash, row.id, ()))


class StoredReferences(Mapping[str, Reference]):
    """The references of some index rows, by id, each parsed from its document when first
    asked for; a row whose document is not the reading it names (another parser's, or
    written since by code that does not keep `reading`) has none."""

    def __init__(self, session: Session, rows: Mapping[str, ReferenceRow]) -> None:
        self._session = session
        self._rows = rows
        self._parsed: dict[str, Reference] = {}

    def __getitem__(self, reference_id: str) -> Reference:
        if reference_id not in self._parsed:
            row = self._rows[reference_id]
            if row.reading is None:
                raise KeyError(reference_id)
            # Read apart from the row (its column is deferred), so the row does not keep it.
            query = select(ReferenceRow.document).where(col(ReferenceRow.id) == reference_id)
            document = self._session.exec(query).one()
            if row.reading != reading_of(document):
                raise KeyError(reference_id)
            self._parsed[reference_id] = parsed_document(document)
        return self._parsed[reference_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
