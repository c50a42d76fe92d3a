"""The matcher against the labelled set: real lines, each with the reference it belongs to
(tests/data/labelled/<id>.yaml) or to none (unrelated.yaml), over the shipped references.

The aggregate floors guard the whole set; each line is also a test of its own, and the
lines the matcher gets wrong today are listed in tests/data/known_misses.yaml and run as
strict xfails, so a fix shows up as a test to promote."""

from __future__ import annotations

import pytest
import yaml
from paths import DATA, LABELLED, REFERENCES

from app.domain.matching.index import MatchIndex, build_index
from app.domain.matching.labelled import LabelledLine, read_labelled
from app.domain.matching.rank import match_text
from app.domain.references.document import Reference
from app.domain.references.folder import read_folder

TOP1_FLOOR = 0.90
TOP3_FLOOR = 0.97
UNRELATED_FLOOR = 0.90
LINES = read_labelled(LABELLED)
KNOWN_MISSES = yaml.safe_load((DATA / "known_misses.yaml").read_text(encoding="utf-8"))[
    "known_misses"
]


def known_miss(line: LabelledLine) -> dict[str, str] | None:
    """The known-misses entry of a line, if it has one."""
    return next((m for m in KNOWN_MISSES if (m["file"], m["text"]) == (line.file, line.text)), None)


def line_param(line: LabelledLine) -> object:
    miss = known_miss(line)
    marks = [pytest.mark.xfail(strict=True, reason=miss["why"])] if miss else []
    return pytest.param(line, marks=marks, id=f"{line.file}:{line.text[:40]}")


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return read_folder(REFERENCES).references


@pytest.fixture(scope="module")
def index(references: list[Reference]) -> MatchIndex:
    return build_index(references)


def test_every_labelled_reference_is_shipped(references: list[Reference]) -> None:
    shipped = {reference.id for reference in references}
    missing = sorted({line.expected for line in LINES if line.expected} - shipped)
    assert missing == [], f"labelled lines for references that do not load: {missing}"


def test_every_known_miss_is_a_labelled_line() -> None:
    labelled = {(line.file, line.text) for line in LINES}
    stale = [m["text"][:60] for m in KNOWN_MISSES if (m["file"], m["text"]) not in labelled]
    assert stale == [], "known misses that are no longer labelled lines"


@pytest.mark.parametrize("line", [line_param(line) for line in LINES if line.expected])
def test_a_labelled_line_ranks_its_reference_first(index: MatchIndex, line: LabelledLine) -> None:
    ranked = [match.id for match in match_text(index, line.text).matches]
    assert ranked[:1] == [line.expected], f"got {ranked[:3]}"


def test_labelled_set_accuracy(index: MatchIndex) -> None:
    top1 = top3 = total = unrelated = quiet = 0
    misses: list[str] = []
    loud: list[str] = []
    for line in LINES:
        matches = match_text(index, line.text).matches
        ranked = [m.id for m in matches]
        if line.expected is None:
            unrelated += 1
            if not any(m.confident for m in matches):
                quiet += 1
            else:
                loud.append(f"  {matches[0].id} {matches[0].score:.2f}  {line.text[:90]!r}")
            continue
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
