"""Each reference's API body (`GET /api/v1/references/{id}`), serialised on its first read
and kept while the catalog serves the very same reference.

Serialised up front, the bodies cost every load ~40 KB a reference (40 MB at 1,000) and
their serialising time, in every process: the CLI, which never serves one, too."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..domain.references.document import Reference
from ..urls import reference_path
from .schemas import ReferenceDetail


def document_json(reference: Reference) -> bytes:
    """The API body of one reference."""
    return ReferenceDetail.of(reference, reference_path(reference.id)).model_dump_json().encode()


class Documents(Mapping[str, bytes]):
    """The API body of each reference, by id, worked out when first read. Two threads
    reading a body at once may both serialise it: both get equal bytes, one is kept."""

    def __init__(
        self, references: Mapping[str, Reference], previous: Documents | None = None
    ) -> None:
        self._references = references
        self._bodies: dict[str, bytes] = {}
        if previous is not None:
            self._bodies = {
                ref_id: body
                for ref_id, body in previous._bodies.items()
                if references.get(ref_id) is previous._references.get(ref_id)
            }

    def __getitem__(self, ref_id: str) -> bytes:
        body = self._bodies.get(ref_id)
        if body is None:
            body = self._bodies[ref_id] = document_json(self._references[ref_id])
        return body

    def __iter__(self) -> Iterator[str]:
        return iter(self._references)

    def __len__(self) -> int:
        return len(self._references)
