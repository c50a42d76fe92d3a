"""A reference or message made in a test: every field it must have, and the ones given."""

from __future__ import annotations

from failref.domain.references.document import Message, MessageKind, Reference


def made_reference(**fields: object) -> Reference:
    """A training reference with no messages, checks or sources, but for the fields given."""
    base: dict[str, object] = {
        "id": "r",
        "title": "r",
        "summary": "",
        "category": "training",
        "tags": [],
        "frameworks": [],
        "phases": [],
        "updated": "2026-01-01",
        "messages": [],
        "context_markdown": "",
        "context_html": "",
        "checks": [],
        "sources": [],
        "path": "references/r.md",
        "content_hash": "0" * 64,
    }
    return Reference.model_validate(base | fields)


def made_message(text: str, kind: MessageKind = "failure") -> Message:
    """A message block of `kind` with `text`, seen in a log no link names."""
    return Message(
        text=text, kind=kind, seen_in_markdown="Seen in a log.", seen_in_url=None, line=1
    )
