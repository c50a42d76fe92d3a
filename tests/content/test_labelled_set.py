"""The matcher against the labelled set: real lines, each with the reference it belongs to
(tests/data/labelled/<id>.yaml), to no reference (unrelated.yaml: failures nothing covers)
or to healthy output (healthy.yaml), over the shipped references.

A line answers right when the top match is its reference, or a symptom whose first
candidate for the line is. Lines marked `held_out` come from threads their reference does
not cite, so the figures measure how the matcher generalises; every reference has at
least MIN_HELD_OUT of them. The aggregate floors guard the whole set; each line is also a
test of its own, and the lines the matcher gets wrong today are listed in
tests/data/known_misses.yaml and run as strict xfails, so a fix shows up as a test to
promote. A labelled line is a line some software prints (not a user's own debug print);
a normal progress, start-up or metrics line belongs in healthy.yaml, not under the
failure whose thread it was found in."""

from __future__ import annotations

import pytest
import yaml
from paths import DATA, LABELLED, REFERENCES

from failref.domain.matching.authoring.labelled import LabelledLine, read_labelled
from failref.domain.matching.authoring.selfcheck import answers, names
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.results import Match
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder

TOP1_FLOOR = 0.90
TOP3_FLOOR = 0.97
CONFIDENT_PRECISION_FLOOR = 0.95  # what `confident` promises, in the pages' own words
CONFIDENT_WRONG_CEILING = 0.02
UNRELATED_FLOOR = 0.95
MIN_HELD_OUT = 3
MIN_HEALTHY_LINES = 30
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
    result = match_text(index, line.text)
    assert answers(result, line.expected), f"got {_shown(result.matches)}"


@pytest.mark.parametrize("line", [line_param(line) for line in LINES if line.healthy])
def test_a_healthy_line_raises_no_alarm(index: MatchIndex, line: LabelledLine) -> None:
    loud = [match for match in match_text(index, line.text).matches if match.confident]
    assert loud == [], f"confident failure on a healthy line: {_shown(loud)}"


def test_every_reference_has_held_out_lines(references: list[Reference]) -> None:
    held_out = {
        ref.id: sum(1 for line in LINES if line.held_out and line.expected == ref.id)
        for ref in references
    }
    short = {ref: count for ref, count in held_out.items() if count < MIN_HELD_OUT}
    assert short == {}, f"references with fewer than {MIN_HELD_OUT} held-out lines: {short}"


def test_a_held_out_line_comes_from_a_thread_its_reference_does_not_cite(
    references: list[Reference],
) -> None:
    cited = {r.id: _cited(r) for r in references}
    wrong = [
        f"{line.file}: {line.source}"
        for line in LINES
        if line.held_out and line.expected and _thread(line.source) in cited[line.expected]
    ]
    assert wrong == []


def test_the_healthy_set_is_large_enough() -> None:
    assert sum(1 for line in LINES if line.healthy) >= MIN_HEALTHY_LINES


def test_labelled_set_accuracy(index: MatchIndex) -> None:
    top1 = top3 = total = negatives = quiet = confident = confident_right = 0
    held = held_top1 = 0
    misses: list[str] = []
    loud: list[str] = []
    for line in LINES:
        result = match_text(index, line.text)
        matches = result.matches
        if line.expected is None:
            negatives += 1
            if not any(m.confident for m in matches):
                quiet += 1
            else:
                loud.append(f"  {matches[0].id} {matches[0].score:.2f}  {line.text[:90]!r}")
            continue
        total += 1
        first = answers(result, line.expected)
        top1 += first
        top3 += first or any(names(m, line.expected) for m in matches[:3])
        if matches and matches[0].confident:
            confident += 1
            confident_right += first
        if line.held_out:
            held += 1
            held_top1 += first
        if not first:
            misses.append(f"  {line.file}: got {_shown(matches)}  {line.text[:90]!r}")
    precision = confident_right / max(confident, 1)
    wrong = (confident - confident_right) / max(total, 1)
    figures = (
        f"top-1 {top1}/{total} = {top1 / max(total, 1):.3f} (floor {TOP1_FLOOR}), "
        f"top-3 {top3 / max(total, 1):.3f} (floor {TOP3_FLOOR}), held-out top-1 "
        f"{held_top1}/{held} = {held_top1 / max(held, 1):.3f}, confident {confident}: right "
        f"{precision:.3f} (floor {CONFIDENT_PRECISION_FLOOR}), confidently wrong {wrong:.3f} "
        f"(ceiling {CONFIDENT_WRONG_CEILING}), unrelated and healthy without a confident "
        f"match {quiet}/{negatives} = {quiet / max(negatives, 1):.3f} (floor {UNRELATED_FLOOR})"
    )
    print(figures)
    report = "\n".join([figures, "top-1 misses:", *misses, "confident on negatives:", *loud])
    assert total >= 150, report
    assert negatives >= 45, report
    assert top1 / total >= TOP1_FLOOR, report
    assert top3 / total >= TOP3_FLOOR, report
    assert precision >= CONFIDENT_PRECISION_FLOOR, report
    assert wrong <= CONFIDENT_WRONG_CEILING, report
    assert quiet / negatives >= UNRELATED_FLOOR, report
    assert not any(line.healthy and line.text in report for line in LINES), report


def _shown(matches: list[Match]) -> list[str]:
    return [m.id for m in matches[:3]]


def _thread(url: str) -> str:
    """A thread as cited: the URL without its fragment, query or trailing slash."""
    return url.split("#", 1)[0].split("?", 1)[0].rstrip("/").lower()


def _cited(reference: Reference) -> set[str]:
    urls = [m.seen_in_url or "" for m in reference.messages]
    urls += [source.url for source in reference.sources]
    for text in [m.seen_in_markdown for m in reference.messages]:
        urls += [part.split(")", 1)[0] for part in text.split("](")[1:]]
    return {_thread(url) for url in urls if url}


def test_the_first_answer_does_not_depend_on_how_many_are_asked_for(index: MatchIndex) -> None:
    differ = []
    for line in LINES:
        one, five = match_text(index, line.text, limit=1), match_text(index, line.text, limit=5)
        first = [m.id for m in one.matches], [m.id for m in five.matches[:1]]
        if first[0] != first[1]:
            differ.append(f"{line.file}: {line.text[:50]} {first}")
    assert differ == []
