"""Editing references: validate a text, save it as an editor (the draft kept on a conflict,
dropped on success; from the editor page, a change saved meanwhile that does not overlap
the editor's is merged in), read the file being edited."""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass, replace

from ..domain.matching.authoring.selfcheck import index_with_edit, message_problems
from ..domain.references.changes import describe_change
from ..domain.references.document import Reference
from ..domain.references.folder import MAX_FILE_BYTES, display_path
from ..domain.references.merge import conflict_markers, merge_texts, plain_newlines, split_lines
from ..domain.references.parser import parse_reference
from ..domain.references.problems import InvalidReference, Problem
from ..errors import FailrefError, NotFound, PayloadTooLarge, StaleBase
from ..store import revisions
from ..store.files import reference_file
from ..store.models import DraftRow
from ..store.saves import DELETED, MOVED_ON, Change, Saved, save_text
from ..store.texts import current_text
from .library import Library

logger = logging.getLogger(__name__)

# Neither store is named: the text saved now is the file in folder mode, a row otherwise.
CONFLICT_LABELS = ("saved now", "your version")
MARKER_LEFT = "a conflict marker is left in: keep the lines you want, then delete the markers"
# A save landing between a merge and the merged save is rare; after a few the editor decides.
MERGE_ATTEMPTS = 3


@dataclass(frozen=True)
class Edit:
    """A text an editor wants saved, and the version of the file it started from."""

    reference_id: str
    text: str
    base_hash: str | None
    creating: bool
    message: str

    def plain(self) -> Edit:
        """This edit with LF line endings: a browser's CRLF is no change to the file."""
        return replace(self, text=plain_newlines(self.text))


@dataclass(frozen=True)
class EditorSave:
    """An acknowledged save of an editor's text, and whether it merged a change saved since
    the editor's base."""

    saved: Saved
    merged: bool = False


def file_bytes(text: str) -> bytes:
    """What a text is saved as: UTF-8 with plain newlines."""
    return plain_newlines(text).encode("utf-8")


def validate_text(library: Library, reference_id: str, text: str) -> Reference:
    """Parse `text` as the file of `reference_id`; InvalidReference lists every problem."""
    data = file_bytes(text)
    if len(data) > MAX_FILE_BYTES:
        raise PayloadTooLarge(f"text: {len(data)} bytes is over the {MAX_FILE_BYTES} limit")
    folder = library.settings.references_dir
    path = reference_file(folder, reference_id)
    reference, problems = parse_reference(display_path(path, folder), data)
    errors = [problem for problem in problems if problem.severity == "error"]
    errors.extend(
        Problem(display_path(path, folder), line, "conflict", MARKER_LEFT)
        for line in conflict_markers(text)
    )
    errors.extend(_claims_taken(library, reference))
    if errors or reference is None:
        raise InvalidReference(errors)
    return reference


def _claims_taken(library: Library, reference: Reference | None) -> list[Problem]:
    if reference is None:
        return []
    catalog = library.catalog
    taken = []
    for name in (reference.id, *reference.aliases):
        owner = catalog.aliases.get(name) or (name if name in catalog.references else None)
        if owner is not None and owner != reference.id:
            message = f"'{name}' is already the id or an alias of {owner}"
            taken.append(Problem(reference.path, 1, "front matter", message))
    return taken


def checked_text(library: Library, reference_id: str, text: str) -> Reference:
    """`validate_text`, then what `failref check` says of the reference's messages once
    saved (each ranks its own reference first, confidently for a failure, and matches no
    other reference confidently unless a symptom lists it): a save never breaks the docs
    team's CI. The README's template saved untouched fails here (its watchdog line is
    another page's)."""
    reference = validate_text(library, reference_id, text)
    catalog = library.catalog
    edited = index_with_edit(list(catalog.references.values()), reference, library.index_cache)
    problems = message_problems(edited, [reference])
    if problems:
        raise InvalidReference(problems)
    return reference


def save_reference(library: Library, edit: Edit, author: str) -> Saved:
    """Check and save `edit` (see app.store.saves for the order), then serve it."""
    edit = edit.plain()
    return _store(library, checked_text(library, edit.reference_id, edit.text), edit, author)


def _store(library: Library, reference: Reference, edit: Edit, author: str) -> Saved:
    path = reference_file(library.settings.references_dir, edit.reference_id)
    change = Change(
        path, file_bytes(edit.text), edit.base_hash, edit.creating, author, edit.message
    )
    saved = save_text(library.engine, reference, change, library.settings.store_of_record)
    library.refresh()
    return saved


def save_as_editor(
    library: Library, editor_id: int, author: str, edit: Edit, *, merge: bool = False
) -> EditorSave:
    """Save `edit` for an editor. A text that does not validate is refused as it is (the
    front end shows it with its problems). Once it is valid, any failure to store it keeps
    the text as a draft (when the database takes it) before the error goes on to the front
    end, which shows the text again; a conflict's StaleBase carries the diff from the file
    on disk to it. With `merge`, a base that moved on is no conflict when the change saved
    meanwhile and the editor's touch different lines: the two are merged, checked like any
    save and saved, saying so in the message. A save drops the editor's drafts. Line endings
    are made plain first, so the draft, the diff and the file all hold what the editor meant."""
    edit = edit.plain()
    reference = checked_text(library, edit.reference_id, edit.text)
    try:
        outcome = _save_or_merge(library, reference, edit, author, merge)
    except FailrefError as error:
        if isinstance(error, StaleBase):
            error.diff = unified_diff(error.current_text or "", edit.text, *CONFLICT_LABELS)
        _keep_draft(library, editor_id, edit)
        raise
    revisions.discard_drafts(library.engine, editor_id, edit.reference_id)
    return outcome


def _save_or_merge(
    library: Library, reference: Reference, edit: Edit, author: str, merge: bool
) -> EditorSave:
    try:
        return EditorSave(_store(library, reference, edit, author))
    except StaleBase:
        base = (
            revisions.revision_text_by_hash(library.engine, edit.reference_id, edit.base_hash)
            if merge and edit.base_hash and not edit.creating
            else None
        )
        if base is None:
            raise
        return _save_merged(library, edit, base, author)


def _save_merged(library: Library, edit: Edit, base: str, author: str) -> EditorSave:
    """Merge `edit`, made from `base`, with the text saved now and save the merge against
    it; StaleBase when a stretch overlaps, the merge fails the checks of a save, the
    reference is gone or it keeps moving on."""
    theirs = None
    for _ in range(MERGE_ATTEMPTS):
        found = editable_file(library, edit.reference_id)
        if found is None:
            raise StaleBase(DELETED, None)
        theirs, version = found
        merged = merge_texts(base, theirs, edit.text)
        if merged.conflicts:
            raise StaleBase(MOVED_ON, theirs)
        try:
            reference = checked_text(library, edit.reference_id, merged.text)
        except InvalidReference as invalid:
            first = invalid.found[0]
            message = (
                "the reference changed since you started and your change merges with it, but "
                f"the merged text fails the checks of a save ({first}); nothing was saved"
            )
            raise StaleBase(message, theirs) from None
        meanwhile = describe_change(base, theirs)
        mine = edit.message or describe_change(base, edit.text)
        merged_edit = replace(
            edit,
            text=merged.text,
            base_hash=version,
            message=f"{mine}; merged with a change saved meanwhile ({meanwhile})",
        )
        try:
            return EditorSave(_store(library, reference, merged_edit, author), merged=True)
        except StaleBase:
            continue  # saved again meanwhile: merge with that
    raise StaleBase(MOVED_ON, theirs)


def _keep_draft(library: Library, editor_id: int, edit: Edit) -> None:
    """Keep the text of a failed save; a database that is itself the failure cannot take
    it, and then the page showing the text again is all there is."""
    if not revisions.keep_draft(library.engine, editor_id, edit.reference_id, edit.text):
        logger.warning("the draft of a failed save of %s was not kept", edit.reference_id)


def editable_file(library: Library, reference_id: str) -> tuple[str, str] | None:
    """The text and version (content hash) of a reference now, where the store of record
    keeps it (its file, or the database); None when missing."""
    settings = library.settings
    return current_text(
        library.engine, settings.references_dir, reference_id, settings.store_of_record
    )


def existing_file(library: Library, reference_id: str) -> tuple[str, str]:
    """`editable_file`, or NotFound."""
    found = editable_file(library, reference_id)
    if found is None:
        raise NotFound(f"no reference '{reference_id[:100]}'", field="id")
    return found


def check_id(library: Library, reference_id: str) -> None:
    """Refuse an id that is no slug or resolves outside the folder, before anything else."""
    reference_file(library.settings.references_dir, reference_id)


def latest_draft(library: Library, editor_id: int, reference_id: str) -> DraftRow | None:
    """The newest text of this editor for this reference that a conflict kept."""
    return revisions.latest_draft(library.engine, editor_id, reference_id)


def unified_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """A unified diff of two texts, for conflicts and history; line endings are no change."""
    lines = list(
        difflib.unified_diff(split_lines(old), split_lines(new), old_name, new_name, lineterm="")
    )
    return "\n".join(lines) + "\n" if lines else ""
