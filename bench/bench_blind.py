"""Accuracy on the blind sets (`tests/data/blind/`): real lines and whole logs collected by
people who never read `references/`, from threads no page or labelled line cites, each
with the context its reporter wrote. Prints each figure beside its target (issues 37, 38),
with the context as written and without it.

    .venv/bin/python bench/bench_blind.py            # lines and logs
    .venv/bin/python bench/bench_blind.py --lines    # lines only
    .venv/bin/python bench/bench_blind.py --misses   # also list what each miss answered

Run it before and after every matcher change and report both; never tune to one of its
lines (that is what makes it blind). A line counts as answered as the labelled set counts
it (`authoring.selfcheck.answers`: the first match is the page, or a symptom whose first
candidate for the paste is). An uncovered line whose collector named the page
that would cover it (`future`) counts as that page's once the page exists. A context the
matcher refuses (a 422 before issue 37) counts as a wrong answer.

An uncovered line answered with confidence counts against its target whatever answered;
the share of them a symptom page answered (candidates to rank, not one cause) is shown
apart. A case whose source thread a page or a labelled line has cited since it was frozen
measures memory, not generalisation: it is left out of the figures and listed.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from failref.domain.matching.authoring.selfcheck import answers, names
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.context import RunContext
from failref.domain.references.folder import read_folder

ROOT = Path(__file__).resolve().parent.parent
BLIND = ROOT / "tests" / "data" / "blind"
LIMIT = 5
URL = re.compile(r"https?://[^\s)\"'<>`\]]+")


def thread(url: str) -> str:
    """A URL as a thread's address: no fragment, no trailing punctuation or slash."""
    return url.split("#", 1)[0].rstrip(".,;:/").lower()


def cited_threads(references: Path) -> set[str]:
    """Every thread a reference or a labelled line cites."""
    files = [*references.glob("*.md"), *(ROOT / "tests" / "data" / "labelled").glob("*.yaml")]
    return {thread(url) for path in files for url in URL.findall(path.read_text(encoding="utf-8"))}


@dataclass
class Tally:
    """Counts for one group of cases under one way of sending the context."""

    cases: int = 0
    top1: int = 0
    top3: int = 0
    confident: int = 0
    confident_symptom: int = 0  # confident, and a symptom page: candidates, not one cause
    confident_right: int = 0
    refused: int = 0
    misses: list[str] = field(default_factory=list)

    def share(self, count: int) -> str:
        return f"{count / self.cases:.2f}" if self.cases else "-"


def context_of(case: dict[str, Any]) -> RunContext | str | None:
    """The reporter's context as the API would take it; a string when it is refused."""
    given = case.get("context")
    if not given:
        return None
    try:
        return RunContext.model_validate(given)
    except ValidationError as error:
        return f"refused: {error.errors()[0]['loc']}"


def expected(case: dict[str, Any], ids: set[str]) -> str:
    """What a case expects of these references: its page; an uncovered line whose `future`
    page (named by its collector from the content issues' list) now exists, that page."""
    expect: str = case["expect"]
    future = case.get("future")
    if expect == "uncovered" and future in ids:
        return str(future)
    return expect


def uncited(cases: list[dict[str, Any]], cited: set[str]) -> list[dict[str, Any]]:
    """The cases whose source thread nothing cites; the others are named and left out."""
    left_out = [case for case in cases if thread(str(case.get("source", ""))) in cited]
    if left_out:
        names = ", ".join(str(case.get("id") or case.get("file")) for case in left_out)
        print(f"\n{len(left_out)} left out, their thread cited since they were frozen: {names}")
    return [case for case in cases if case not in left_out]


def lines(index: MatchIndex, misses: bool, cited: set[str], files: str = "*.yaml") -> None:
    known = {reference.id for reference in index.references}
    cases = uncited(
        [
            {**case, "expect": expected(case, known)}
            for path in sorted((BLIND / "lines").glob(files))
            for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
        ],
        cited,
    )
    for label, with_context in (("with context as written", True), ("without context", False)):
        groups: dict[str, Tally] = {"covered": Tally(), "uncovered": Tally(), "healthy": Tally()}
        for case in cases:
            expect = case["expect"]
            group = groups[expect if expect in ("uncovered", "healthy") else "covered"]
            group.cases += 1
            context = context_of(case) if with_context else None
            if isinstance(context, str):
                group.refused += 1
                group.misses.append(f"{case['id']}: {context}")
                continue
            result = match_text(index, case["text"], context, LIMIT)
            found = result.matches
            ids = [match.id for match in found]
            right = {expect, *case.get("also", [])}
            confident = bool(found) and found[0].confident
            group.confident += confident
            group.confident_symptom += confident and found[0].kind == "symptom"
            if expect in ("uncovered", "healthy"):
                if confident:
                    group.misses.append(f"{case['id']}: confident {found[0].kind} {ids[0]}")
                continue
            first = any(answers(result, name) for name in right)
            group.top1 += first
            group.top3 += first or any(names(m, name) for m in found[:3] for name in right)
            group.confident_right += confident and first
            if not first:
                group.misses.append(f"{case['id']}: {expect} -> {ids[:3]}")
        covered, uncovered, healthy = groups["covered"], groups["uncovered"], groups["healthy"]
        print(f"\nBlind lines, {label} ({len(cases)} cases)")
        print(f"{'measurement':52} {'value':>7} {'target':>8}")
        rows = [
            (f"covered ({covered.cases}): top-1", covered.share(covered.top1), ">= 0.85"),
            ("covered: top-3", covered.share(covered.top3), ">= 0.95"),
            (
                f"covered: confident answers right ({covered.confident_right}/{covered.confident})",
                f"{covered.confident_right / covered.confident:.2f}" if covered.confident else "-",
                ">= 0.97",
            ),
            ("covered: confident", covered.share(covered.confident), "shown"),
            (
                f"uncovered ({uncovered.cases}): confident",
                uncovered.share(uncovered.confident),
                "<= 0.03",
            ),
            (
                "uncovered: of which a symptom's candidates",
                uncovered.share(uncovered.confident_symptom),
                "shown",
            ),
            (f"healthy ({healthy.cases}): confident", healthy.share(healthy.confident), "0"),
            ("contexts refused", str(sum(g.refused for g in groups.values())), "0"),
        ]
        for name, value, target in rows:
            print(f"{name:52} {value:>7} {target:>8}")
        if misses:
            for group_name, group in groups.items():
                for miss in group.misses:
                    print(f"  miss ({group_name}): {miss}")


def logs(index: MatchIndex, misses: bool, cited: set[str]) -> None:
    manifest = uncited(
        yaml.safe_load((BLIND / "logs.yaml").read_text(encoding="utf-8"))["logs"], cited
    )
    roots_covered = sum(entry.get("root_expect") not in (None, "uncovered") for entry in manifest)
    print(f"\n(roots a page covers: {roots_covered}; the rest are counted the same)")
    for label, with_context in (("with context as written", True), ("without context", False)):
        failing = healthy = named = alarms = confident_hits = refused = 0
        notes: list[str] = []
        for entry in manifest:
            text = (BLIND / "logs" / entry["file"]).read_text(encoding="utf-8")
            context = context_of(entry) if with_context else None
            if isinstance(context, str):
                refused += 1
                context = None if entry["verdict"] == "healthy" else context
                if isinstance(context, str):
                    failing += 1
                    notes.append(f"{entry['file']}: {context}")
                    continue
            scanned = scan_log(index, text, context)
            diagnosis = scanned.diagnosis
            if entry["verdict"] == "healthy":
                healthy += 1
                rooted = [root.id for root in diagnosis.roots]
                loud = [hit.id for hit in scanned.hits if hit.confident]
                alarms += bool(rooted)
                confident_hits += bool(loud)
                if rooted or loud:
                    notes.append(f"{entry['file']}: healthy, roots {rooted}, confident {loud}")
                continue
            failing += 1
            root_lines = _lines_holding(text, entry["root"])
            first = diagnosis.roots[0] if diagnosis.roots else None
            if first is not None and root_lines & set(first.line_numbers):
                named += 1
            else:
                shown = f"{first.id} line {first.line}" if first else diagnosis.verdict
                notes.append(f"{entry['file']}: root at {sorted(root_lines)[:3]}, got {shown}")
        print(f"\nBlind logs, {label} ({failing} failing, {healthy} healthy)")
        print(f"{'measurement':52} {'value':>7} {'target':>8}")
        share = f"{named / failing:.2f}" if failing else "-"
        print(f"{f'failing: root named ({named}/{failing})':52} {share:>7} {'>= 0.80':>8}")
        print(f"{'healthy: with a root':52} {alarms:>7} {'0':>8}")
        print(f"{'healthy: with a confident hit':52} {confident_hits:>7} {'0':>8}")
        print(f"{'contexts refused':52} {refused:>7} {'0':>8}")
        if misses:
            for note in notes:
                print(f"  miss: {note}")


def _lines_holding(text: str, root: str) -> set[int]:
    """The 1-based numbers of the lines holding the root's text (its first line, when the
    root spans several)."""
    needle = root.strip().splitlines()[0].strip()
    return {number for number, line in enumerate(text.splitlines(), 1) if needle in line}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", action="store_true", help="lines only")
    parser.add_argument("--logs", action="store_true", help="logs only")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument(
        "--files", default="*.yaml", help="the line files to read (a glob in lines/, say r2-*)"
    )
    parser.add_argument(
        "--references", type=Path, default=ROOT / "references", help="the folder to match against"
    )
    options = parser.parse_args(argv)
    index = build_index(read_folder(options.references).references)
    cited = cited_threads(options.references)
    if not options.logs:
        lines(index, options.misses, cited, options.files)
    if not options.lines and (BLIND / "logs.yaml").exists():
        logs(index, options.misses, cited)


if __name__ == "__main__":
    main(sys.argv[1:])
