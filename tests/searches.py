"""Counting the fuzzy searches (`score_line` and `search_line` calls) matching makes: the work a paste costs,
bounded by the caps, checked without a clock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from failref.domain.matching.logs import scan
from failref.domain.matching.logs.scan import FUZZY_TEMPLATE_CAP
from failref.domain.matching.messages import match
from failref.domain.matching.reading.lines import MAX_QUERY_LINES


@dataclass
class FuzzySearches:
    """Fuzzy searches made for whole logs (`scan`) and for single messages (`match`)."""

    scan: int = 0
    match: int = 0

    def within_caps(self) -> bool:
        return self.scan <= FUZZY_TEMPLATE_CAP and self.match <= MAX_QUERY_LINES


def count_searches(monkeypatch: pytest.MonkeyPatch) -> FuzzySearches:
    """Count every fuzzy search the scan and the single-message ranking make from now on."""
    counted = FuzzySearches()
    for module, name, kind in (
        (scan, "score_line", "scan"),
        (match, "score_line", "match"),
        (match, "search_line", "match"),
    ):
        original = getattr(module, name)

        def counting(*args: Any, _original: Any = original, _kind: str = kind, **kw: Any) -> Any:
            setattr(counted, _kind, getattr(counted, _kind) + 1)
            return _original(*args, **kw)

        monkeypatch.setattr(module, name, counting)
    return counted
