"""Public shapes every front end answers in (the JSON API, the MCP tools, `--json` in the
CLI), built from the domain's results minus internal detail."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..config import DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT
from ..domain.catalog import ReferencePage
from ..domain.matching.judging.judge import CONFIDENT_THRESHOLD
from ..domain.matching.reading.context import RunContext
from ..domain.matching.results import (
    CandidateMatch,
    CheckHint,
    HealthyLine,
    Lead,
    LookUp,
    MatchResult,
    MessageMatch,
    ValueVerdict,
)
from ..domain.references.document import MessageKind, Reference, ReferenceKind
from ..errors import code_for
from .input_errors import FieldProblem, LogText

# Where a reference's page lives; the API asks the router, the MCP tools and CLI
# `app.urls.reference_path`.
UrlFor = Callable[[str], str]
# Where a list of references lives, given its query; the API asks the router, the MCP
# tools `app.urls.reference_list_path`.
ListUrl = Callable[[Mapping[str, str | None]], str]


class ReferenceSummary(BaseModel):
    """A reference as listed: enough to choose which one to open."""

    id: str
    title: str
    summary: str
    category: str
    tags: list[str]
    frameworks: list[str]
    phases: list[str]
    hardware: list[str]
    updated: dt.date
    url: str = Field(description="Path of the reference's page; the JSON twin is under /api/v1.")

    @classmethod
    def of(cls, reference: Reference, url: str) -> ReferenceSummary:
        return cls(
            id=reference.id,
            title=reference.title,
            summary=reference.summary,
            category=reference.category,
            tags=list(reference.tags),
            frameworks=list(reference.frameworks),
            phases=list(reference.phases),
            hardware=list(reference.hardware),
            updated=reference.updated,
            url=url,
        )


class ReferenceList(BaseModel):
    """One page of the references that passed the filters, in title order."""

    count: int = Field(description="References on this page.")
    total: int = Field(description="References that passed the filters, on every page.")
    offset: int = Field(description="Where this page starts in the whole list (0 first).")
    limit: int = Field(description="The most references a page holds.")
    next_offset: int | None = Field(
        description="The `offset` of the next page; null on the last page."
    )
    next: str | None = Field(
        description="Path of the next page, same filters and limit; null on the last page."
    )
    references: list[ReferenceSummary]

    @classmethod
    def of(cls, page: ReferencePage, url_for: UrlFor, list_url: ListUrl) -> ReferenceList:
        summaries = [ReferenceSummary.of(r, url_for(r.id)) for r in page.references]
        next_url = None
        if page.next_offset is not None:
            paging = {"limit": str(page.limit), "offset": str(page.next_offset)}
            next_url = list_url(asdict(page.filters) | paging)
        return cls(
            count=len(summaries),
            total=page.total,
            offset=page.offset,
            limit=page.limit,
            next_offset=page.next_offset,
            next=next_url,
            references=summaries,
        )


class ReferenceDetail(Reference):
    """The whole structured reference: messages, context, causes, checks, sources."""

    url: str = Field(description="Path of the reference's page.")

    @classmethod
    def of(cls, reference: Reference, url: str) -> ReferenceDetail:
        return cls(**dict(reference), url=url)


class ErrorDetail(BaseModel):
    """What went wrong, in a shape that never changes."""

    code: str = Field(description="Stable machine-readable code, e.g. `not_found`.")
    message: str = Field(description="What went wrong, for a person.")
    field: str | None = Field(default=None, description="The input field at fault, if any.")
    problems: list[str] | None = Field(
        default=None, description="Every problem of an invalid reference file, with its line."
    )
    diff: str | None = Field(
        default=None, description="On a conflict: the text saved now versus the text sent."
    )
    fields: list[FieldProblem] | None = Field(
        default=None,
        description=(
            "On invalid input (422): every field at fault, each with its problem; `field` "
            "names the first and `message` all of them."
        ),
    )


class ErrorBody(BaseModel):
    """Every API error: `{"error": {"code", "message", "field"}}`, with `fields` on invalid
    input."""

    error: ErrorDetail


def error_body(
    status: int,
    message: str,
    field: str | None = None,
    problems: list[str] | None = None,
    diff: str | None = None,
    fields: list[FieldProblem] | None = None,
) -> dict[str, Any]:
    """The JSON error body for `status`: always code, message and field; problems, diff and
    fields only on the errors that carry them."""
    detail = ErrorDetail(
        code=code_for(status),
        message=message,
        field=field,
        problems=problems,
        diff=diff,
        fields=fields,
    )
    optional = (("problems", problems), ("diff", diff), ("fields", fields))
    absent = {name for name, value in optional if value is None}
    return ErrorBody(error=detail).model_dump(exclude={"error": absent})


class Health(BaseModel):
    """Liveness or readiness."""

    status: str = Field(examples=["ok"])
    references: int | None = Field(default=None, description="References in the index.")
    problems: int | None = Field(default=None, description="Problems found at the last load.")
    storage: str | None = Field(
        default=None,
        description=(
            "Set when the gaps of unanswered pastes (and readers' counts) cannot be stored "
            "or read: why, and since when. Answers keep working; only those are lost."
        ),
    )


def shared_fields(
    source: BaseModel, target: type[BaseModel], exclude: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """The fields of `source` that the public model `target` also has (its `url` is added
    by the caller): the public shapes are the domain results minus internal detail."""
    wanted = set(target.model_fields) - {"url"} - set(exclude)
    return {name: getattr(source, name) for name in wanted}


# Matching ---------------------------------------------------------------------------------

EXAMPLE_LINE = (
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1543, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=600000) ran for 600215 milliseconds before timing out."
)


KEEP_DESCRIPTION = (
    "Keep the paste, redacted (secrets, addresses, host and user names replaced), so that "
    "its result has a page to hand to a person: `result_url`. Off by default."
)
RESULT_URL_DESCRIPTION = (
    "With `keep`: the path of the result's page (`/results/{token}`), which works a second "
    "or two later, once the redacted copy is stored, for the site's retention (30 days by "
    "default); null without `keep`, or when this site keeps no pastes."
)


class MatchRequest(BaseModel):
    """A pasted message (a line, or a block such as a traceback) and what is known of the run."""

    model_config = ConfigDict(extra="forbid")

    log: LogText = Field(
        description="The message as it appears in the log; not empty.", examples=[EXAMPLE_LINE]
    )
    context: RunContext | None = Field(default=None, description="What you know of the run.")
    limit: int = Field(
        default=DEFAULT_MATCH_LIMIT,
        ge=1,
        le=MAX_MATCH_LIMIT,
        description="Most references to return.",
    )
    keep: bool = Field(default=False, strict=True, description=KEEP_DESCRIPTION)


class QueryEcho(BaseModel):
    """How the text was read."""

    normalized: str = Field(description="The text after masking numbers, paths, hosts, ...")
    inferred_context: dict[str, str] = Field(description="Context found in the text itself.")
    context_read: dict[str, str] = Field(
        description="What was read from each context field you sent (canonical names)."
    )
    context_ignored: list[str] = Field(
        description="What of your context could not be read; it counts for nothing."
    )


CONFIDENCE_NOTE = (
    "failref is confident when a line matches one of a reference's failure messages closely "
    "(a score of {threshold:.2f} or more, the level at which at least 95% of confident "
    "answers on its labelled set of real log lines were right), the line is not logged "
    "below the level of that failure, and nothing you said about the run contradicts it. "
    "The score is text similarity, not a probability, and no match is proof: run the "
    "reference's evidence checks."
)


def confidence_note() -> str:
    """What `confident` means, in words, for pages and API answers alike."""
    return CONFIDENCE_NOTE.format(threshold=CONFIDENT_THRESHOLD)


class CandidatePublic(CandidateMatch):
    """A candidate cause of a symptom, ranked for this paste."""

    url: str | None = Field(description="The cause's page, when it has one.")

    @classmethod
    def of(cls, candidate: CandidateMatch, url_for: UrlFor) -> CandidatePublic:
        url = url_for(candidate.id) if candidate.id is not None else None
        return cls(**candidate.model_dump(), url=url)


class MatchPublic(BaseModel):
    """A reference that may explain the message. A match never confirms a cause."""

    id: str
    title: str
    summary: str
    kind: ReferenceKind = Field(
        description="cause, or symptom: a message printed for many causes (see candidates)."
    )
    score: float = Field(ge=0, le=1, description="Text similarity; 1 is an exact message.")
    confident: bool = Field(description="See confidence_note.")
    reasons: list[str] = Field(description="Why it matched, in words.")
    matched_message: str | None = Field(description="The reference's message that matched.")
    message_kind: MessageKind | None = Field(
        description="failure, warning, diagnostic or healthy (the block the line matched)."
    )
    message_match: MessageMatch | None = Field(description="close, partial or loose.")
    verdict: ValueVerdict | None = Field(description="For a diagnostic line: its values read.")
    context_disagrees: bool = Field(description="The run's context contradicts it.")
    held_back: list[str] = Field(
        description="Why it is not confident whatever its score: the context, the line's "
        "level, too few words, or a telling span that names another failure."
    )
    candidates: list[CandidatePublic] = Field(
        description="For a symptom: its causes, ranked for this paste."
    )
    checks: list[CheckHint] = Field(description="For a symptom: what tells the top two apart.")
    next_checks: list[CheckHint] = Field(
        description="What to run next: for a cause, its most telling checks (with commands); "
        "for a symptom, the check that tells its top two candidates apart."
    )
    url: str


class LookUpPublic(LookUp):
    """A page a term typed alone leads to."""

    url: str


class LeadPublic(Lead):
    """The best page when nothing matched with confidence: possible, not proven."""

    url: str


class MatchResponse(BaseModel):
    """Ranked references for one message, best first; open each and run its checks."""

    query: QueryEcho
    matches: list[MatchPublic]
    lead: LeadPublic | None = Field(
        description="When no match is confident: the best page to open, with why it is not "
        "confident (a near miss, or the page a term typed alone names)."
    )
    lookups: list[LookUpPublic] = Field(
        description="For a term typed alone (a code, an environment variable, a function): "
        "the pages owning or naming it."
    )
    healthy_lines: list[HealthyLine] = Field(
        description="Pasted lines recognised as normal output; they match no failure."
    )
    confident_threshold: float
    confidence_note: str
    result_url: str | None = Field(default=None, description=RESULT_URL_DESCRIPTION)

    @classmethod
    def of(cls, result: MatchResult, url_for: UrlFor) -> MatchResponse:
        matches = [
            MatchPublic(
                **shared_fields(match, MatchPublic, exclude={"candidates"}),
                candidates=[CandidatePublic.of(c, url_for) for c in match.candidates],
                url=url_for(match.id),
            )
            for match in result.matches
        ]
        query = QueryEcho(
            normalized=result.normalized,
            inferred_context=result.inferred_context,
            context_read=result.context_read,
            context_ignored=result.context_ignored,
        )
        lead = result.lead
        return cls(
            query=query,
            matches=matches,
            lead=None if lead is None else LeadPublic(**lead.model_dump(), url=url_for(lead.id)),
            lookups=[
                LookUpPublic(**found.model_dump(), url=url_for(found.id))
                for found in result.lookups
            ],
            healthy_lines=result.healthy_lines,
            confident_threshold=CONFIDENT_THRESHOLD,
            confidence_note=confidence_note(),
        )
