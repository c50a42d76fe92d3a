"""What matching answers: ranked references for a message, hits for a whole log."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Match(BaseModel):
    """One reference that explains the text, with why."""

    id: str
    title: str
    summary: str
    score: float = Field(ge=0, le=1)
    confident: bool
    reasons: list[str]
    matched_message: str | None = Field(description="The reference message that matched best.")
    matched_span: tuple[int, int] | None = Field(
        description="Start and end offsets, in the text as given, of the line that matched."
    )


class MatchResult(BaseModel):
    """Ranked references for a pasted message."""

    normalized: str
    inferred_context: dict[str, str]
    matches: list[Match]


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


class ScanResult(BaseModel):
    """What a whole-log scan found."""

    lines: int
    templates: int = Field(description="Distinct normalised lines.")
    fuzzy_templates: int = Field(description="Templates that reached the fuzzy stage.")
    fuzzy_cap: int
    capped: bool = Field(description="True when more templates qualified than the cap.")
    inferred_context: dict[str, str]
    hits: list[ScanHit]
