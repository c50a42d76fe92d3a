"""Public shapes of the JSON API (and the MCP tools), built from the same domain objects."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from app.document import Reference


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
    """References that passed the filters, in title order."""

    count: int
    references: list[ReferenceSummary]


class ReferenceDetail(Reference):
    """The whole structured reference: messages, context, causes, checks, sources."""

    url: str = Field(description="Path of the reference's page.")

    @classmethod
    def of(cls, reference: Reference, url: str) -> ReferenceDetail:
        return cls(**dict(reference), url=url)


class Health(BaseModel):
    """Liveness or readiness."""

    status: str = Field(examples=["ok"])
    references: int | None = Field(default=None, description="References in the index.")
    problems: int | None = Field(default=None, description="Problems found at the last load.")
