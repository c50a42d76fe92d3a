"""A reference's history: its revisions newest first, each numbered as the list shows it,
described (its message, and what it changed) and compared with the one before and with the
text now; one revision's text for a restore."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.references.changes import describe_change
from ..errors import NotFound, PayloadTooLarge
from ..store import revisions
from ..store.models import RevisionRow
from .editing import check_id, editable_file, unified_diff
from .library import Library

# What saves without a message stored before revisions were described: no more telling
# than no message, so such a revision is described by what it changed instead.
PLACEHOLDER_MESSAGES = frozenset({"edited", "edited through the API"})


@dataclass(frozen=True)
class HistoryEntry:
    """One revision, its number among the reference's revisions (1 is the oldest), what it
    changed in words, its diff against the one before, and whether it holds the text now."""

    row: RevisionRow
    number: int
    changed: str
    diff: str
    is_current: bool

    @property
    def message(self) -> str:
        """The message it was saved with, or "" when it was saved without one."""
        message = self.row.message.strip()
        return "" if message in PLACEHOLDER_MESSAGES else message


@dataclass(frozen=True)
class RevisionComparison:
    """One revision against the reference's text now (None when the reference is gone):
    the diff that restoring the revision would make."""

    entry: HistoryEntry
    current: str | None
    diff: str


def history(library: Library, reference_id: str) -> list[HistoryEntry]:
    """Every revision of a reference, newest first, each with its diff; NotFound for none."""
    rows = _rows(library, reference_id)
    current = _current_hash(library, reference_id)
    return [_entry(rows, index, current) for index in range(len(rows))]


def compare_with_current(
    library: Library, reference_id: str, revision_id: int
) -> RevisionComparison:
    """A revision and the diff from it to the reference's text now; NotFound when the
    reference has no such revision."""
    rows = _rows(library, reference_id)
    found = editable_file(library, reference_id)
    current, version = found if found else (None, None)
    entry = _entry(rows, _index(rows, reference_id, revision_id), version)
    diff = unified_diff(entry.row.content, current or "", f"revision {entry.number}", "now")
    return RevisionComparison(entry, current, diff)


def revision_text(library: Library, reference_id: str, revision_id: int) -> tuple[int, str]:
    """The number (as the history lists it) and text of one revision, or NotFound."""
    rows = revisions.revisions(library.engine, reference_id)
    index = _index(rows, reference_id, revision_id)
    return len(rows) - index, rows[index].content


def _rows(library: Library, reference_id: str) -> list[RevisionRow]:
    check_id(library, reference_id)
    rows = revisions.revisions(library.engine, reference_id)
    if not rows:
        raise NotFound(f"no revisions of '{reference_id[:100]}'", field="id")
    return rows


def _index(rows: list[RevisionRow], reference_id: str, revision_id: int) -> int:
    for index, row in enumerate(rows):
        if row.id == revision_id:
            return index
    raise NotFound(f"no revision {revision_id} of '{reference_id[:100]}'", field="revision")


def _entry(rows: list[RevisionRow], index: int, current_hash: str | None) -> HistoryEntry:
    row = rows[index]
    previous = rows[index + 1].content if index + 1 < len(rows) else ""
    return HistoryEntry(
        row,
        len(rows) - index,
        describe_change(previous, row.content),
        unified_diff(previous, row.content, "before", "after"),
        row.content_hash == current_hash,
    )


def _current_hash(library: Library, reference_id: str) -> str | None:
    """The version of the text now; None when the reference is gone, or its file is over
    the size limit (the list still shows, with no revision marked as the text now)."""
    try:
        found = editable_file(library, reference_id)
    except PayloadTooLarge:
        return None
    return found[1] if found else None
