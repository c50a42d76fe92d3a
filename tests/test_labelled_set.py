"""The matcher against the labelled set: real lines, each with the reference it belongs to
(tests/data/labelled/<id>.yaml) or to none (unrelated.yaml), over the shipped references."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.document import Reference
from app.loader import read_folder
from app.matcher import MatchIndex, build_index, match_text

ROOT = Path(__file__).resolve().parent.parent
LABELLED = ROOT / "tests" / "data" / "labelled"
TOP1_FLOOR = 0.90
TOP3_FLOOR = 0.97
UNRELATED_FLOOR = 0.90


@dataclass(frozen=True)
class Line:
    text: str
    expected: str | None
    file: str


def shipped_references() -> list[Reference]:
    contents: Any = read_folder(ROOT / "references")
    references = contents.references if hasattr(contents, "references") else contents[0]
    return list(references)


def labelled_lines() -> list[Line]:
    lines = []
    for path in sorted(LABELLED.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        lines.extend(
            Line(str(item["text"]), data["reference"], path.name) for item in data["lines"]
        )
    return lines


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return shipped_references()


@pytest.fixture(scope="module")
def index(references: list[Reference]) -> MatchIndex:
    return build_index(references)


def test_every_labelled_reference_is_shipped(references: list[Reference]) -> None:
    shipped = {reference.id for reference in references}
    missing = sorted({line.expected for line in labelled_lines() if line.expected} - shipped)
    assert missing == [], f"labelled lines for references that do not load: {missing}"


def test_labelled_set_accuracy(index: MatchIndex, references: list[Reference]) -> None:
    shipped = {reference.id for reference in references}
    top1 = top3 = total = unrelated = quiet = 0
    misses: list[str] = []
    loud: list[str] = []
    for line in labelled_lines():
        matches = match_text(index, line.text).matches
        ranked = [m.id for m in matches]
        if line.expected is None:
            unrelated += 1
            if not any(m.confident for m in matches):
                quiet += 1
            else:
                loud.append(f"  {matches[0].id} {matches[0].score:.2f}  {line.text[:90]!r}")
            continue
        if line.expected not in shipped:
            continue  # reported by test_every_labelled_reference_is_shipped
        total += 1
        top1 += ranked[:1] == [line.expected]
        top3 += line.expected in ranked[:3]
        if ranked[:1] != [line.expected]:
            misses.append(f"  {line.file}: got {ranked[:3]}  {line.text[:90]!r}")
    figures = (
        f"top-1 {top1}/{total} = {top1 / max(total, 1):.3f} (floor {TOP1_FLOOR}), "
        f"top-3 {top3}/{total} = {top3 / max(total, 1):.3f} (floor {TOP3_FLOOR}), "
        f"unrelated without a confident match {quiet}/{unrelated} = "
        f"{quiet / max(unrelated, 1):.3f} (floor {UNRELATED_FLOOR})"
    )
    print(figures)
    report = "\n".join([figures, "top-1 misses:", *misses, "confident on unrelated:", *loud])
    assert total >= 60, report
    assert unrelated >= 15, report
    assert top1 / total >= TOP1_FLOOR, report
    assert top3 / total >= TOP3_FLOOR, report
    assert quiet / unrelated >= UNRELATED_FLOOR, report
