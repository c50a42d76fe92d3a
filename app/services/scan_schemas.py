"""The public shapes of a whole-log scan: its hits, and its diagnosis (roots, likeliest
first, with the lines they explain), each reference and candidate with its page."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..domain.matching.reading.context import RunContext
from ..domain.matching.results import (
    CheckHint,
    Consequence,
    Diagnosis,
    Lead,
    Root,
    ScanResult,
    ValueVerdict,
)
from ..domain.references.document import MessageKind, ReferenceKind
from .input_errors import LogText
from .schemas import (
    EXAMPLE_LINE,
    KEEP_DESCRIPTION,
    RESULT_URL_DESCRIPTION,
    CandidatePublic,
    UrlFor,
    confidence_note,
    shared_fields,
)

# The OpenAPI document's example of a whole log: progress lines, then the failure.
EXAMPLE_LOG = "\n".join(
    [
        "step 1200 | loss 2.113 | tokens/s 101234",
        "step 1201 | loss 2.108 | tokens/s 101190",
        EXAMPLE_LINE,
    ]
)


class ConsequencePublic(Consequence):
    """Later symptom lines a root explains."""

    url: str | None = Field(description="Its page; None for wrapper lines no page covers.")

    @classmethod
    def of(cls, consequence: Consequence, url_for: UrlFor) -> ConsequencePublic:
        url = None if consequence.id is None else url_for(consequence.id)
        return cls(**consequence.model_dump(), url=url)


class LeadPublic(Lead):
    """A page close to a root no page covers."""

    url: str


class RootPublic(Root):
    """A failure nothing else in the log explains: where to start reading."""

    url: str | None = Field(description="Its page; None when no reference covers it yet.")
    leads: list[LeadPublic]  # type: ignore[assignment]
    candidates: list[CandidatePublic]  # type: ignore[assignment]
    consequences: list[ConsequencePublic]  # type: ignore[assignment]

    @classmethod
    def of(cls, root: Root, url_for: UrlFor) -> RootPublic:
        return cls(
            **root.model_dump(exclude={"candidates", "consequences", "leads"}),
            url=None if root.id is None else url_for(root.id),
            leads=[LeadPublic(**lead.model_dump(), url=url_for(lead.id)) for lead in root.leads],
            candidates=[CandidatePublic.of(c, url_for) for c in root.candidates],
            consequences=[ConsequencePublic.of(c, url_for) for c in root.consequences],
        )


class DiagnosisPublic(Diagnosis):
    """What went wrong first and what followed: roots, likeliest first, then the
    error-looking lines failref did not recognise."""

    roots: list[RootPublic]  # type: ignore[assignment]

    @classmethod
    def of(cls, diagnosis: Diagnosis, url_for: UrlFor) -> DiagnosisPublic:
        return cls(
            **shared_fields(diagnosis, cls, exclude={"roots"}),
            roots=[RootPublic.of(root, url_for) for root in diagnosis.roots],
        )


class ScanRequest(BaseModel):
    """A whole log and what is known of the run."""

    model_config = ConfigDict(extra="forbid")

    log: LogText = Field(
        description="The log, up to the configured number of lines; not empty.",
        examples=[EXAMPLE_LOG],
    )
    context: RunContext | None = Field(default=None, description="What you know of the run.")
    keep: bool = Field(default=False, strict=True, description=KEEP_DESCRIPTION)


class ScanHitPublic(BaseModel):
    """A reference the log shows, with where."""

    id: str
    title: str
    score: float = Field(ge=0, le=1)
    confident: bool
    count: int = Field(description="Lines that matched.")
    first_line: int
    last_line: int
    line_numbers: list[int] = Field(description="1-based line numbers, capped.")
    example: str = Field(description="One matching line as it appears in the log.")
    kind: ReferenceKind
    message_kind: MessageKind | None
    verdict: ValueVerdict | None
    context_disagrees: bool
    reasons: list[str]
    candidates: list[CandidatePublic]
    checks: list[CheckHint]
    next_checks: list[CheckHint] = Field(
        description="For a cause, its most telling checks; for a symptom, what splits its top two."
    )
    ranks: list[int] = Field(description="Ranks whose lines matched (from their labels).")
    hosts: list[str] = Field(description="Hosts whose lines matched (from their labels).")
    url: str


class ScanResponse(BaseModel):
    """What a whole-log scan found, best reference first."""

    lines: int
    templates: int = Field(description="Distinct lines once numbers, paths, ... are masked.")
    fuzzy_templates: int = Field(description="Templates compared with the references.")
    capped: bool = Field(description="True when more templates qualified than were compared.")
    inferred_context: dict[str, str] = Field(description="Context found in the log itself.")
    context_read: dict[str, str] = Field(
        description="What was read from each context field you sent (canonical names)."
    )
    context_ignored: list[str] = Field(
        description="What of your context could not be read; it counts for nothing."
    )
    healthy_lines: int = Field(description="Lines recognised as normal output.")
    hits: list[ScanHitPublic]
    diagnosis: DiagnosisPublic
    confidence_note: str
    result_url: str | None = Field(default=None, description=RESULT_URL_DESCRIPTION)

    @classmethod
    def of(cls, result: ScanResult, url_for: UrlFor) -> ScanResponse:
        hits = [
            ScanHitPublic(
                **shared_fields(hit, ScanHitPublic, exclude={"candidates"}),
                candidates=[CandidatePublic.of(c, url_for) for c in hit.candidates],
                url=url_for(hit.id),
            )
            for hit in result.hits
        ]
        own = {"hits", "diagnosis", "confidence_note", "result_url"}
        shared = shared_fields(result, cls, exclude=own)
        diagnosis = DiagnosisPublic.of(result.diagnosis, url_for)
        return cls(**shared, hits=hits, diagnosis=diagnosis, confidence_note=confidence_note())
