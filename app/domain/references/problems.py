"""A problem found in a reference file, located by file and line, and the error that carries
them to the user."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...errors import InvalidInput

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    """`references/foo.md:12: Sources: link has no URL`.

    An error keeps the file out of the index; a warning (a link to a reference that
    does not exist) is reported by `failref check` but the file still loads.
    """

    path: str
    line: int
    rule: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


class InvalidReference(InvalidInput):
    """A reference file that breaks the format; `found` says where, `problems` as text."""

    def __init__(self, found: list[Problem]) -> None:
        super().__init__(f"{len(found)} problem(s), first: {found[0]}", field="text")
        self.found = found
        self.problems = [str(problem) for problem in found]
