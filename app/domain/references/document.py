"""The structured form of one reference file (what the parser produces and the index
stores) and what identifies a file: its id rule and its content hash."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from .markdown import rendered_html
from .values import Rule, Slot

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG_LENGTH = 80  # long enough for any title-like id, short enough for a URL segment
# Names Windows reserves for devices: a checkout holding `con.md` cannot be cloned there.
DEVICE_NAMES = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))}
)
SLUG_RULE = "a slug of [a-z0-9] words joined by '-', not a Windows device name (con, nul, ...)"

Category = Literal["training", "inference", "fine-tuning", "hardware"]
CATEGORIES: tuple[Category, ...] = ("training", "inference", "fine-tuning", "hardware")
PHASES = (
    "training",
    "inference",
    "fine-tuning",
    "startup",
    "checkpointing",
    "compilation",
    "data-loading",
)


# cause: one failure and its causes; symptom: a line many causes print, with candidates;
# healthy: a catalogue of normal lines people paste as suspects (only healthy blocks).
ReferenceKind = Literal["cause", "symptom", "healthy"]
REFERENCE_KINDS: tuple[ReferenceKind, ...] = ("cause", "symptom", "healthy")
MessageKind = Literal["failure", "warning", "diagnostic", "healthy"]
MESSAGE_KINDS: tuple[MessageKind, ...] = ("failure", "warning", "diagnostic", "healthy")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# A reference's HTML is its Markdown rendered on first read (`markdown.rendered_html`), not
# at parsing: a load of 10,000 files rendered ~280,000 fragments no page had asked for
# (30 % of the load), and kept them all. Each `*html` below is a computed field, so it is
# in every API body and `model_dump`, and left out of the stored reading (`store/readings`).


class Message(Frozen):
    """A message as it appears in logs, with placeholders for the parts that vary."""

    text: str = Field(description="The message, one or more lines, placeholders like <n>.")
    line: int = Field(description="Line of the code block in the reference file.")
    seen_in_markdown: str = Field(description="Where the message was seen, as Markdown.")
    seen_in_url: str | None = Field(description="The first link of the 'Seen in' paragraph.")
    kind: MessageKind = Field(
        default="failure",
        description="failure: the failure itself; warning: a degraded mode the run goes on "
        "in (a default kernel config), never a failure of a log; diagnostic: a check's output "
        "or a metrics line, read with its values; healthy: a normal line that looks close.",
    )
    slots: tuple[Slot, ...] = Field(default=(), description="Values the template names.")
    failing_when: tuple[Rule, ...] = Field(
        default=(), description="A diagnostic block's rules: failing when any of these holds."
    )
    healthy_when: tuple[Rule, ...] = Field(
        default=(), description="Healthy when any holds; without them, when no failing one does."
    )
    judged_across: str = Field(
        default="",
        description="For a message that one line cannot judge (a per-rank count that only "
        "shows a failure beside the other ranks', a warning that names a risk the run may "
        "not have): what to compare, in words. Never a confident answer; a diagnostic's "
        "verdict is always unknown.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def seen_in_html(self) -> str:
        """The 'Seen in' paragraph, rendered: where, in which release, and what it showed."""
        return rendered_html(self.seen_in_markdown)


class Cause(Frozen):
    """One possible cause, most likely first."""

    title: str = Field(description="The cause in a few words (the item's bold lead).")
    markdown: str = Field(description="The whole item: the cause and its mechanism.")
    line: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def html(self) -> str:
        """The item, rendered."""
        return rendered_html(self.markdown)


CheckVerdict = Literal["confirms", "rules_out"]


class CheckOutcome(Frozen):
    """One result a check can show, as its text names it: "**confirms** candidates 2 or 3"."""

    verdict: CheckVerdict
    causes: tuple[int, ...] = Field(description="The causes it speaks for, 1-based.")


class Check(Frozen):
    """One evidence check: what to run or look at and which cause it confirms or rules out."""

    markdown: str
    commands: tuple[str, ...] = Field(description="Commands from the item's code blocks.")
    line: int
    confirms: tuple[int, ...] = Field(default=(), description="Causes it confirms, 1-based.")
    rules_out: tuple[int, ...] = Field(default=(), description="Causes it rules out, 1-based.")
    outcomes: tuple[CheckOutcome, ...] = Field(
        default=(),
        description="Each result the check can show, in the order its text names them: "
        "what a reader marks after running it.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def html(self) -> str:
        """The check, rendered."""
        return rendered_html(self.markdown)


class Candidate(Frozen):
    """One candidate cause of a symptom, with what points to it in a paste."""

    title: str
    markdown: str
    line: int
    cause_id: str | None = Field(description="The cause reference it links to, if any.")
    lines: tuple[str, ...] = Field(
        default=(), description="Telling neighbour-line snippets (literal, any case)."
    )
    phases: tuple[str, ...] = ()
    when: tuple[Rule, ...] = Field(
        default=(), description="Conditions over the symptom message's named values."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def html(self) -> str:
        """The candidate, rendered."""
        return rendered_html(self.markdown)


class Source(Frozen):
    """A public source and what it supports."""

    title: str
    url: str
    supports_markdown: str = Field(description="What the source supports, as Markdown.")
    line: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def supports_html(self) -> str:
        """What the source supports, rendered."""
        return rendered_html(self.supports_markdown)


class CalculatorSpec(Frozen):
    """The calculator a reference carries, with the inputs of its worked example."""

    name: str
    inputs: dict[str, Any] = Field(default_factory=dict)


class Reference(Frozen):
    """One reference file, parsed, validated and rendered."""

    id: str
    title: str
    summary: str
    kind: ReferenceKind = "cause"
    category: Category
    tags: tuple[str, ...]
    frameworks: tuple[str, ...]
    engine_specific: bool = Field(
        default=False,
        description="The failure belongs to the engines in `frameworks`; a run on another "
        "engine contradicts it. False: it happens anywhere, `frameworks` says where seen.",
    )
    phases: tuple[str, ...]
    hardware: tuple[str, ...] = ()
    calculator: CalculatorSpec | None = None
    updated: dt.date
    aliases: tuple[str, ...] = ()
    code_paths: tuple[str, ...] = Field(
        default=(), description="Source paths (`torch/_dynamo/`) whose frames point here."
    )
    symptoms: tuple[str, ...] = Field(
        default=(), description="Symptoms this cause produces, beyond those that list it."
    )
    messages: tuple[Message, ...]
    context_markdown: str
    causes: tuple[Cause, ...] = ()
    candidates: tuple[Candidate, ...] = Field(
        default=(), description="A symptom's candidate causes, most common first."
    )
    checks: tuple[Check, ...]
    worked_example_markdown: str = ""
    sources: tuple[Source, ...]
    related: tuple[str, ...] = Field(
        default=(), description="Ids of references this one links to from its body."
    )
    path: str = Field(description="The file, relative to the references folder's parent.")
    content_hash: str = Field(description="SHA-256 of the file's bytes.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def context_html(self) -> str:
        """The Context section, rendered."""
        return rendered_html(self.context_markdown)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def worked_example_html(self) -> str:
        """The Worked example section, rendered ("" without one)."""
        return rendered_html(self.worked_example_markdown)


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes: what changed files are recognised by."""
    return hashlib.sha256(data).hexdigest()


def is_slug(value: str) -> bool:
    """True when `value` obeys the id rule: `[a-z0-9]` words joined by single hyphens, and
    not a name Windows reserves for a device."""
    return (
        len(value) <= MAX_SLUG_LENGTH
        and SLUG.match(value) is not None
        and value not in DEVICE_NAMES
    )
