"""What matching answers: ranked references for a message, hits for a whole log."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from ..references.document import MessageKind, ReferenceKind
from ..references.markdown import rendered_html
from ..references.values import Verdict

# How closely the pasted line matched the reference's message, in words.
MessageMatch = Literal["close", "partial", "loose"]


class ValueVerdict(BaseModel):
    """A diagnostic line read with its values: what they were and what the rule says."""

    state: Verdict = Field(description="failing, healthy, or unknown when a value is missing.")
    values: dict[str, str] = Field(description="The values read from the text, by name.")
    rule: list[str] = Field(description="The reference's rule: failing when any of these holds.")


class CandidateMatch(BaseModel):
    """One candidate cause of a symptom, ranked for this paste."""

    id: str | None = Field(description="The cause reference, when it has a page.")
    title: str
    score: float = Field(ge=0, le=1, description="How strongly this paste points to it.")
    reasons: list[str]
    number: int = Field(
        ge=1, description="Its place in the symptom's own list (the page's `#candidate-N`)."
    )


class CheckHint(BaseModel):
    """An evidence check of a reference, with the causes it confirms or rules out."""

    # Frozen: one reference's hints are worked out once per index and shared by answers.
    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The check, as Markdown.")
    commands: list[str]
    confirms: list[str] = Field(description="Titles of the causes (candidates) it confirms.")
    rules_out: list[str] = Field(description="Titles of the causes (candidates) it rules out.")
    number: int = Field(ge=1, description="Its place in the reference's evidence checks.")
    confirms_numbers: list[int] = Field(
        description="The causes it confirms, by number in the reference's list (`#cause-N`)."
    )
    rules_out_numbers: list[int] = Field(
        description="The causes it rules out, by number in the reference's list."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def html(self) -> str:
        """The check, rendered (on first read, as the reference's own, see `Check.html`)."""
        return rendered_html(self.text)


class LookUp(BaseModel):
    """A page a term typed alone leads to: the page owning the code it is, or one whose
    text names it."""

    id: str
    title: str
    why: str = Field(description="Where the page names the term, or the code it owns.")
    owner: bool = Field(default=False, description="The term is a code this page owns.")


class Lead(BaseModel):
    """The best page for a text nothing matched with confidence: possible, not proven."""

    id: str
    title: str
    score: float | None = Field(
        description="Its match score; None for a term's look-up, or for the page of normal "
        "output a paste of warnings leads to."
    )
    why: list[str] = Field(description="Why it is a lead and why it is not confident.")


class Match(BaseModel):
    """One reference that explains the text, with why."""

    id: str
    title: str
    summary: str
    kind: ReferenceKind = Field(
        default="cause", description="cause, or symptom (printed for many causes)."
    )
    score: float = Field(ge=0, le=1)
    confident: bool
    reasons: list[str]
    matched_message: str | None = Field(description="The reference message that matched best.")
    matched_span: tuple[int, int] | None = Field(
        description="Start and end offsets, in the text as given, of the line that matched."
    )
    message_kind: MessageKind | None = Field(
        default=None, description="What the matched message is: failure or diagnostic."
    )
    message_match: MessageMatch | None = Field(
        default=None, description="How closely a line matched the message, in words."
    )
    verdict: ValueVerdict | None = Field(default=None, description="For a diagnostic line.")
    held_back: list[str] = Field(
        default_factory=list,
        description="Why it is not confident whatever its score (context, level, wording).",
    )
    context_disagrees: bool = False
    candidates: list[CandidateMatch] = Field(
        default_factory=list, description="For a symptom: its causes, ranked for this paste."
    )
    checks: list[CheckHint] = Field(
        default_factory=list, description="For a symptom: checks that tell the top two apart."
    )
    next_checks: list[CheckHint] = Field(
        default_factory=list,
        description="What to run next: for a cause, its most telling checks; for a symptom, "
        "the check that tells its top two candidates apart, when one does.",
    )


class HealthyLine(BaseModel):
    """A pasted line recognised as normal output, and the reference that describes it."""

    text: str = Field(description="The line as pasted (cut to a few hundred characters).")
    id: str
    title: str
    message: str = Field(description="The reference's healthy or diagnostic message.")
    verdict: ValueVerdict | None = None


class MatchResult(BaseModel):
    """Ranked references for a pasted message."""

    normalized: str
    inferred_context: dict[str, str]
    context_read: dict[str, str] = Field(default_factory=dict)
    context_ignored: list[str] = Field(default_factory=list)
    matches: list[Match]
    healthy_lines: list[HealthyLine] = Field(default_factory=list)
    lookups: list[LookUp] = Field(default_factory=list)
    lead: Lead | None = None


class ScanHit(BaseModel):
    """One reference found in a log, with where."""

    id: str
    title: str
    score: float = Field(ge=0, le=1)
    confident: bool
    count: int = Field(description="Lines that matched this reference.")
    first_line: int
    last_line: int
    line_numbers: list[int] = Field(description="1-based, the first `line_cap` of them.")
    example: str = Field(description="One matching line as it appears in the log.")
    matched_message: str
    reasons: list[str]
    kind: ReferenceKind = "cause"
    message_kind: MessageKind | None = None
    verdict: ValueVerdict | None = None
    context_disagrees: bool = False
    candidates: list[CandidateMatch] = Field(default_factory=list)
    checks: list[CheckHint] = Field(default_factory=list)
    next_checks: list[CheckHint] = Field(
        default_factory=list,
        description="What to run next: for a cause, its most telling checks; for a symptom, "
        "the check that tells its top two candidates apart, when one does.",
    )
    ranks: list[int] = Field(default_factory=list, description="Ranks whose lines matched.")
    hosts: list[str] = Field(default_factory=list, description="Hosts whose lines matched.")


class LogLine(BaseModel):
    """One line of the pasted log, by its 1-based number."""

    number: int
    text: str = Field(description="As pasted, cut to a few hundred characters.")


class Consequence(BaseModel):
    """Later symptom lines a root explains."""

    id: str | None = Field(description="Its page; None for wrapper lines no page covers.")
    title: str
    first_line: int
    last_line: int
    count: int
    ranks: list[int]
    hosts: list[str]
    why: str = Field(description="Why the root explains these lines.")


class Root(BaseModel):
    """A failure the log's other failures do not explain: where to start reading."""

    id: str | None = Field(description="Its page; None: no reference covers this error yet.")
    kind: ReferenceKind | None
    title: str
    text: str | None = Field(
        default=None, description="For a root no page covers: its line as the log prints it."
    )
    line: int = Field(description="Its first line, 1-based.")
    line_numbers: list[int] = Field(description="1-based, capped.")
    count: int
    ranks: list[int] = Field(description="Ranks whose lines showed it.")
    hosts: list[str] = Field(description="Hosts whose lines showed it.")
    silent_ranks: list[int] = Field(
        description="Ranks the log holds that did not print it (only when the log has every "
        "rank); for a collective timeout, where the hang usually is."
    )
    score: float = Field(ge=0, le=1)
    reasons: list[str] = Field(description="Why it is a root, in words.")
    candidates: list[CandidateMatch] = Field(
        description="For a symptom: its causes, ranked by the evidence in the log."
    )
    checks: list[CheckHint] = Field(description="For a symptom: checks for the top two.")
    next_checks: list[CheckHint] = Field(
        default_factory=list,
        description="What to run next: for a cause, its most telling checks; for a symptom, "
        "the check that tells its top two candidates apart, when one does.",
    )
    consequences: list[Consequence]
    context: list[LogLine] = Field(description="Its first line with the lines around it.")
    leads: list[Lead] = Field(
        default_factory=list, description="For a root no page covers: the closest pages."
    )


class UnrecognisedLine(BaseModel):
    """An error-looking line that matched no reference."""

    line: int = Field(description="Its first occurrence, 1-based.")
    text: str
    count: int = Field(description="Lines of the log with the same normalised form.")
    line_numbers: list[int] = Field(description="1-based, capped.")


# What a log says as a whole, in one word: a failure with a root; only leads (lines that
# resemble a reference without confidence); errors no reference covers; nothing wrong.
LogVerdict = Literal["failure", "uncovered-failure", "warnings", "leads", "unrecognised", "quiet"]


class Diagnosis(BaseModel):
    """The story of a log: its roots, likeliest first, and what failref could not read."""

    verdict: LogVerdict = Field(
        description="failure: it has a root a page covers; uncovered-failure: its first "
        "root is an error no page covers yet; warnings: nothing failed, but warning lines "
        "match references (a warning rarely ends a run); leads: lines resemble references, "
        "none with confidence; unrecognised: error-looking lines that no reference covers; "
        "quiet: no line matches a reference or looks like an error."
    )
    roots: list[Root]
    unrecognised: list[UnrecognisedLine] = Field(description="The first of them, by line.")
    unrecognised_lines: int = Field(description="All error-looking lines that matched nothing.")
    ranks: list[int] = Field(description="Every rank the log's line labels name.")
    hosts: list[str] = Field(description="Every host the log's line labels name.")
    all_ranks: bool = Field(description="True when the ranks run from 0 with no gap.")
    notes: list[str] = Field(description="What of the log was skipped or read in part.")


class ScanResult(BaseModel):
    """What a whole-log scan found."""

    lines: int
    templates: int = Field(description="Distinct normalised lines.")
    fuzzy_templates: int = Field(description="Templates that reached the fuzzy stage.")
    fuzzy_cap: int
    capped: bool = Field(description="True when more templates qualified than the cap.")
    inferred_context: dict[str, str]
    context_read: dict[str, str] = Field(default_factory=dict)
    context_ignored: list[str] = Field(default_factory=list)
    hits: list[ScanHit]
    healthy_lines: int = Field(default=0, description="Lines recognised as normal output.")
    diagnosis: Diagnosis
