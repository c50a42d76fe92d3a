"""Retiring references: an editor takes one out of service (web or API), saying why and
what replaces it, if anything; its id then sends readers to the replacement (301) or
answers 410 with the reason, and its history stays readable. Saving a text under the id
again (a restore from its history) brings it back."""

from __future__ import annotations

from typing import NoReturn

from ..domain.catalog import get_reference
from ..errors import Gone, InvalidInput, NotFound
from ..store.files import reference_file
from ..store.models import RetiredRow
from ..store.retire import Retirement, retire, retired
from .library import Library

MAX_REASON_CHARS = 500


def retire_reference(
    library: Library,
    reference_id: str,
    base_hash: str,
    author: str,
    reason: str,
    replaced_by: str | None,
) -> RetiredRow:
    """Retire a served reference at the version `base_hash` (412 when it moved since), with
    a reason (required) and, optionally, another served reference that replaces it."""
    reference = get_reference(library.catalog, reference_id)
    reason = " ".join(reason.split())
    if not reason:
        raise InvalidInput("say why the reference is retired", field="reason")
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidInput(f"at most {MAX_REASON_CHARS} characters", field="reason")
    successor = (replaced_by or "").strip() or None
    if successor is not None:
        if successor == reference.id:
            raise InvalidInput("a reference cannot replace itself", field="replaced_by")
        if successor not in library.catalog.references:
            raise InvalidInput(f"no reference '{successor[:100]}'", field="replaced_by")
    settings = library.settings
    path = reference_file(settings.references_dir, reference.id)
    retirement = Retirement(reference.id, reference.title, base_hash, author, reason, successor)
    row = retire(library.engine, retirement, path, settings.store_of_record)
    library.refresh()
    return row


def retirement(library: Library, reference_id: str) -> RetiredRow | None:
    """How `reference_id` was retired, None when it was not (or came back since)."""
    if reference_id in library.catalog.references:
        return None
    return retired(library.engine, reference_id)


def gone(row: RetiredRow) -> Gone:
    """The 410 a retired reference answers, in words a reader or a script can act on."""
    successor = f"; replaced by '{row.replaced_by}'" if row.replaced_by else ""
    when = row.retired_at.date().isoformat()
    return Gone(f"'{row.reference_id}' was retired on {when}: {row.reason}{successor}", field="id")


def raise_if_retired(library: Library, reference_id: str, error: NotFound) -> NoReturn:
    """Turn a NotFound for a retired reference into its 410; otherwise re-raise `error`."""
    row = retirement(library, reference_id)
    if row is not None:
        raise gone(row) from error
    raise error
