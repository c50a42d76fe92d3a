"""A reference or message made in a test: every field it must have, and the ones given."""

from __future__ import annotations

from pathlib import Path

import pytest

from failref.domain.references import markdown
from failref.domain.references.document import Message, MessageKind, Reference
from failref.domain.references.markdown import (
    RENDERED_CHARS_KEPT,
    RenderedFragments,
    render_markdown,
)


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


# The long list (`long_client`): the two fixture references (training) and numbered ones,
# 70 of training and 60 of inference: three browse pages of 50, two API pages of 100.
LONG_TRAINING = range(70)
LONG_INFERENCE = range(70, 130)

# A reference file of its own: `write_references` fills in its id, number and category.
NUMBERED_REFERENCE = """\
---
id: {id}
title: Numbered reference {number:03d}
summary: One of many references written for a long list.
category: {category}
tags: [numbered]
frameworks: [pytorch]
phases: [training]
updated: 2026-10-01
---

## Message

```text
numbered failure {number} of the long list happened
```

Seen in [a test log](https://example.com/numbered/log).

## Context

Written by a test.

## Causes

1. **A cause.** It happens.

## Evidence checks

- Run `true`; its exit status **confirms** cause 1.

## Sources

- [A source](https://example.com/numbered) — where it was seen.
"""


def write_references(folder: Path, numbers: range, category: str = "training") -> list[str]:
    """A reference file in `folder` for each number, titled in the numbers' order; their ids."""
    ids = [f"numbered-{number:03d}" for number in numbers]
    for ref_id, number in zip(ids, numbers, strict=True):
        text = NUMBERED_REFERENCE.format(id=ref_id, number=number, category=category)
        (folder / f"{ref_id}.md").write_text(text, encoding="utf-8")
    return ids


def counted_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every Markdown text rendered from now on, in order, through an empty cache."""
    rendered: list[str] = []

    def counted(text: str) -> str:
        rendered.append(text)
        return render_markdown(text)

    monkeypatch.setattr(markdown, "render_markdown", counted)
    monkeypatch.setattr(markdown, "RENDERED", RenderedFragments(RENDERED_CHARS_KEPT))
    return rendered
