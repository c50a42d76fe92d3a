"""`failref check`: every problem of a references folder, the matcher's included, without
touching a database (the docs team runs it in their CI)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain.matching.authoring.selfcheck import message_problems
from ..domain.matching.index.match_index import build_index
from ..domain.references.folder import read_folder
from ..domain.references.problems import Problem


@dataclass(frozen=True)
class CheckReport:
    """The problems of a folder, sorted, and how many references are valid."""

    problems: list[Problem]
    valid: int

    @property
    def files(self) -> int:
        return len({problem.path for problem in self.problems})


def check_folder(folder: Path) -> CheckReport:
    """Parse every file, check what spans files, then rank each message against the rest."""
    contents = read_folder(folder)
    index = build_index(contents.references)
    problems = sorted([*contents.problems, *message_problems(index, contents.references)])
    return CheckReport(problems, len(contents.references))
