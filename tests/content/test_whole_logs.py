"""Whole logs against the shipped references: real multi-line excerpts from public issues
(tests/data/wholelogs/, each naming its source), each with the line that is its root, or
`none` for a healthy log that must produce no root.

A labelled root is right when it is the scan's first root, at the labelled line, or the
first candidate cause of a first root that is a symptom (a desync report printed under
the timeout it explains, for example). Line numbers count the excerpt's own lines, after
the `# source:`, `# root:` and `# cut:` header lines."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import DATA, REFERENCES

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.reading.teardown import is_wrapper
from failref.domain.references.folder import read_folder

WHOLE_LOGS = DATA / "wholelogs"
HEADERS = ("# source: ", "# root: ", "# cut: ")
MIN_LOGS = 8
MIN_HEALTHY = 3


@dataclass(frozen=True, slots=True)
class WholeLog:
    name: str
    source: str
    root_line: int | None
    root_id: str | None
    text: str


def read_whole_log(path: Path) -> WholeLog:
    lines = path.read_text(encoding="utf-8").splitlines()
    headers = {}
    while lines and lines[0].startswith(HEADERS):
        key, _, value = lines.pop(0)[2:].partition(": ")
        headers[key] = value
    root = headers["root"].split()
    line, root_id = (None, None) if root == ["none"] else (int(root[0]), root[1])
    return WholeLog(path.stem, headers["source"], line, root_id, "\n".join(lines) + "\n")


LOGS = [read_whole_log(path) for path in sorted(WHOLE_LOGS.glob("*.log"))]


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


def test_the_set_is_big_enough_and_sourced() -> None:
    failing = [log for log in LOGS if log.root_id is not None]
    assert len(failing) >= MIN_LOGS
    assert len(LOGS) - len(failing) >= MIN_HEALTHY
    assert all(log.source.startswith("https://github.com/") for log in LOGS)


@pytest.mark.parametrize(
    "log", [pytest.param(log, id=log.name) for log in LOGS if log.root_id is not None]
)
def test_the_labelled_root_comes_first(index: MatchIndex, log: WholeLog) -> None:
    roots = scan_log(index, log.text).diagnosis.roots
    assert roots, f"{log.name}: no root"
    first = roots[0]
    if first.id == log.root_id:
        assert first.line == log.root_line
    else:
        top = first.candidates[0].id if first.candidates else None
        assert (first.kind, top) == ("symptom", log.root_id), f"{log.name}: {first.id} first"


@pytest.mark.parametrize(
    "log", [pytest.param(log, id=log.name) for log in LOGS if log.root_id is None]
)
def test_a_healthy_log_has_no_root_and_reads_as_quiet(index: MatchIndex, log: WholeLog) -> None:
    diagnosis = scan_log(index, log.text).diagnosis
    assert [root.id for root in diagnosis.roots] == []
    assert diagnosis.verdict == "quiet"


@pytest.mark.parametrize(
    "log", [pytest.param(log, id=log.name) for log in LOGS if log.root_id is not None]
)
def test_a_failing_log_reads_as_a_failure(index: MatchIndex, log: WholeLog) -> None:
    assert scan_log(index, log.text).diagnosis.verdict == "failure"


@pytest.mark.parametrize(
    "log", [pytest.param(log, id=log.name) for log in LOGS if log.root_id is not None]
)
def test_wrappers_and_teardown_fold_under_the_first_root(index: MatchIndex, log: WholeLog) -> None:
    """torchrun's summary and SIGTERM forwarding, engine start-up wrappers and dead actors
    are never the first root while the log holds another failure, and every such line is
    among what follows from the first root."""
    diagnosis = scan_log(index, log.text).diagnosis
    first = diagnosis.roots[0]
    wrappers = {r.id for r in index.references if "wrapper" in r.tags}
    assert first.id not in wrappers
    folded = {
        number
        for consequence in first.consequences
        for number in range(consequence.first_line, consequence.last_line + 1)
    }
    lines = log.text.splitlines()
    teardown = [n for n, line in enumerate(lines, 1) if is_wrapper(line) and n > first.line]
    assert [n for n in teardown if n not in folded] == []
