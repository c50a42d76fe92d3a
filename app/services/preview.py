"""What an editor sees before saving: how the matcher would rank the edited reference for
its own messages and for the labelled lines, and the text a new reference starts from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..domain.catalog import Catalog
from ..domain.matching.authoring.labelled import read_labelled
from ..domain.matching.authoring.selfcheck import (
    LineVerdict,
    index_with_edit,
    judge_lines,
    message_problems,
)
from ..domain.references.document import Reference
from ..domain.references.frontmatter import split_front_matter
from ..domain.references.markdown import render_markdown
from ..domain.references.merge import plain_newlines
from ..domain.references.problems import Problem
from ..errors import FrontMatterError
from .editing import validate_text
from .library import Library
from .readers import gap_template

TEMPLATE_HEADING = "\n## Template\n"
TEMPLATE_OPENING = "````markdown\n"
TEMPLATE_CLOSING = "````"
MESSAGE_OPENING = "```text\n"
MESSAGE_CLOSING = "\n```"
FRONT_MATTER_FENCE = "---\n"
SECTION_PREFIX = "## "
MESSAGE_HEADING = "## Message"
# Front matter a reference started from a gap leaves out: not every reference has one.
OPTIONAL_KEYS = frozenset({"calculator"})


SHOWN_LINE_CHARS = 160  # a labelled line is shown this far; the file names the rest
Direction = Literal["now-right", "now-wrong", "moved"]


@dataclass(frozen=True)
class VerdictChange:
    """A labelled line the edit places differently than the saved version does, with every
    reference named by its title."""

    text: str
    file: str
    expected: str
    before: str
    after: str
    direction: Direction


@dataclass(frozen=True)
class Preview:
    """The edited reference, its messages' collisions, and the labelled lines it moves."""

    reference: Reference
    collisions: list[Problem]
    labelled_total: int
    labelled_right: int
    changes: list[VerdictChange]

    @property
    def now_right(self) -> int:
        return sum(change.direction == "now-right" for change in self.changes)

    @property
    def now_wrong(self) -> int:
        return sum(change.direction == "now-wrong" for change in self.changes)


def preview(library: Library, reference_id: str, text: str) -> Preview:
    """Validate `text` (InvalidReference lists every problem) and judge it against the live
    catalog; nothing is saved."""
    reference = validate_text(library, reference_id, plain_newlines(text))
    catalog = library.catalog
    edited_index = index_with_edit(
        list(catalog.references.values()), reference, library.index_cache
    )
    labelled = read_labelled(library.settings.labelled_dir)
    before = judge_lines(catalog.index, labelled)
    after = judge_lines(edited_index, labelled)
    changes = [
        _change(catalog, reference, old, new)
        for old, new in zip(before, after, strict=True)
        if (old.top, old.confident, old.right) != (new.top, new.confident, new.right)
    ]
    return Preview(
        reference=reference,
        collisions=message_problems(edited_index, [reference]),
        labelled_total=len(after),
        labelled_right=sum(verdict.right for verdict in after),
        changes=changes,
    )


def _change(
    catalog: Catalog, edited: Reference, before: LineVerdict, after: LineVerdict
) -> VerdictChange:
    direction: Direction = "moved"
    if before.right != after.right:
        direction = "now-right" if after.right else "now-wrong"
    return VerdictChange(
        text=after.line.text[:SHOWN_LINE_CHARS],
        file=after.line.file,
        expected=_name(catalog, edited, after.line.expected) if after.line.expected else "none",
        before=_placed(catalog, edited, before),
        after=_placed(catalog, edited, after),
        direction=direction,
    )


def _placed(catalog: Catalog, edited: Reference, verdict: LineVerdict) -> str:
    if verdict.top is None:
        return "nothing"
    name = _name(catalog, edited, verdict.top)
    return name if verdict.confident else f"{name} (weak)"


def _name(catalog: Catalog, edited: Reference, reference_id: str) -> str:
    """A reference's title and id (the edited one by its new title)."""
    found = edited if reference_id == edited.id else catalog.references.get(reference_id)
    return f"{found.title} ({reference_id})" if found is not None else reference_id


def new_reference_text(library: Library, gap_id: int | None) -> str:
    """The references README's template; from a gap, that template's outline holding the
    gap's line as its message and nothing else: every example value, the calculator, the
    placeholder source and prose are left out, so nothing unrelated is saved by mistake."""
    readme = library.settings.references_dir / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    # The README shows smaller examples earlier on; the template is the block under its heading.
    text = text.split(TEMPLATE_HEADING, 1)[-1]
    if TEMPLATE_OPENING not in text:
        return ""
    template = text.split(TEMPLATE_OPENING, 1)[1].split(TEMPLATE_CLOSING, 1)[0]
    message = gap_template(library, gap_id) if gap_id is not None else None
    return template if message is None else outline(template, message)


def outline(template: str, message: str) -> str:
    """The front matter keys and section headings of `template`, values and bodies empty,
    with `message` as the one message block; keys that only some references have (an
    optional block such as `calculator:`) go."""
    head, _, body = template.removeprefix(FRONT_MATTER_FENCE).partition(FRONT_MATTER_FENCE)
    keys = []
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if not colon or line[:1].isspace() or not key.isidentifier() or key in OPTIONAL_KEYS:
            continue
        keys.append(f"{key}: []" if value.strip().startswith("[") else f"{key}:")
    sections = []
    for line in body.splitlines():
        if line.startswith(SECTION_PREFIX):
            block = (
                f"{MESSAGE_OPENING}{message}{MESSAGE_CLOSING}\n" if line == MESSAGE_HEADING else ""
            )
            sections.append(f"{line}\n\n{block}")
    return (
        FRONT_MATTER_FENCE
        + "\n".join(keys)
        + "\n"
        + FRONT_MATTER_FENCE
        + "\n"
        + "\n".join(sections)
    )


@dataclass(frozen=True)
class RoughPage:
    """How a text that does not validate yet reads: its title, if the front matter gives
    one, and its body rendered as Markdown (the whole text when the front matter does
    not parse)."""

    title: str
    body_html: str


def rough_page(text: str) -> RoughPage:
    """The text as a reader would see it, whatever its problems: the preview of an edit
    that cannot be ranked yet."""
    plain = plain_newlines(text)
    try:
        split = split_front_matter(plain)
    except FrontMatterError:
        return RoughPage("", render_markdown(plain))
    title = split.values.get("title")
    return RoughPage(title if isinstance(title, str) else "", render_markdown(split.body))
