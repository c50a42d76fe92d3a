"""The labelled set: real log lines, each with the reference it belongs to (or none), read
from a folder of `<reference id>.yaml` files (`reference:` and `lines: [{text, source,
held_out}]`). `unrelated.yaml` says `reference: null`: failures no reference covers;
`healthy.yaml` adds `kind: healthy`: normal output that must raise no alarm. `held_out:
true` marks a line from a thread the reference's message blocks and sources do not cite,
so it measures how the matcher generalises rather than what it was written from. The one
reader, for the tests, the benchmarks and the editor's preview."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class LabelledLine:
    """A real log line, the reference it belongs to (None: it belongs to none), where it
    was seen, and the file of the set that holds it."""

    text: str
    expected: str | None
    source: str
    file: str
    held_out: bool = False
    healthy: bool = False


def read_labelled(folder: Path) -> list[LabelledLine]:
    """Every line of `folder/*.yaml`, file by file in name order; none when it is missing."""
    lines: list[LabelledLine] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        expected = data.get("reference")
        healthy = data.get("kind") == "healthy"
        lines.extend(
            LabelledLine(
                str(item["text"]),
                expected,
                str(item.get("source", "")),
                path.name,
                held_out=bool(item.get("held_out", False)),
                healthy=healthy,
            )
            for item in data.get("lines", [])
        )
    return lines
