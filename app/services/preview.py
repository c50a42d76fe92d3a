"""What an editor sees before saving: how the matcher would rank the edited reference for
its own messages and for the labelled lines, and the text a new reference starts from."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.matching.labelled import read_labelled
from app.domain.matching.selfcheck import (
    LineVerdict,
    index_with_edit,
    judge_lines,
    message_problems,
)
from app.domain.references.document import Reference
from app.domain.references.problems import Problem
from app.services.editing import validate_text
from app.services.library import Library
from app.services.readers import gap_template

TEMPLATE_HEADING = "\n## Template\n"
TEMPLATE_OPENING = "````markdown\n"
TEMPLATE_CLOSING = "````"
MESSAGE_OPENING = "```text\n"
MESSAGE_CLOSING = "\n```"


@dataclass(frozen=True)
class Preview:
    """The edited reference, its messages' collisions, and the labelled lines it moves."""

    reference: Reference
    collisions: list[Problem]
    labelled_total: int
    labelled_right: int
    changed: list[tuple[LineVerdict, LineVerdict]]


def preview(library: Library, reference_id: str, text: str) -> Preview:
    """Validate `text` (InvalidReference lists every problem) and judge it against the live
    catalog; nothing is saved."""
    reference = validate_text(library, reference_id, text)
    catalog = library.catalog
    edited_index = index_with_edit(list(catalog.references.values()), reference)
    labelled = read_labelled(library.settings.labelled_dir)
    before = judge_lines(catalog.index, labelled)
    after = judge_lines(edited_index, labelled)
    changed = [
        (old, new)
        for old, new in zip(before, after, strict=True)
        if (old.top, old.confident) != (new.top, new.confident)
    ]
    return Preview(
        reference=reference,
        collisions=message_problems(edited_index, [reference]),
        labelled_total=len(after),
        labelled_right=sum(verdict.right for verdict in after),
        changed=changed,
    )


def new_reference_text(library: Library, gap_id: int | None) -> str:
    """The references README's template, with a gap's template as its message when given."""
    readme = library.settings.references_dir / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    # The README shows smaller examples earlier on; the template is the block under its heading.
    text = text.split(TEMPLATE_HEADING, 1)[-1]
    if TEMPLATE_OPENING not in text:
        return ""
    template = text.split(TEMPLATE_OPENING, 1)[1].split(TEMPLATE_CLOSING, 1)[0]
    message = gap_template(library, gap_id) if gap_id is not None else None
    if message is None:
        return template
    opening = template.find(MESSAGE_OPENING)
    closing = template.find(MESSAGE_CLOSING, opening + 1) if opening >= 0 else -1
    if closing < 0:
        return template
    start = opening + len(MESSAGE_OPENING)
    return template[:start] + message + template[closing:]
