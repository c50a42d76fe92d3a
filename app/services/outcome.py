"""What a paste gave, as the pages show it: ranked cards for a message, or a whole log's
scan (made by app.services.analysis)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..domain.matching.messages.highlight import Highlight
from ..domain.matching.results import HealthyLine, Lead, LookUp, Match, ScanResult


@dataclass(frozen=True, slots=True)
class MatchCard:
    """One ranked reference for a pasted message, with where it matched the text."""

    match: Match
    highlight: Highlight | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a paste gave: ranked cards for a message, or a scan of a whole log (with the
    closest references to its last lines when it holds errors nothing matched)."""

    kind: Literal["match", "scan"]
    cards: tuple[MatchCard, ...]
    scan: ScanResult | None
    inferred: dict[str, str]
    healthy: tuple[HealthyLine, ...] = ()
    lead: Lead | None = None  # the best page when nothing is confident
    lookups: tuple[LookUp, ...] = ()  # the pages a term typed alone leads to
    read: dict[str, str] = field(default_factory=dict)  # what was read of the user's context
    ignored: tuple[str, ...] = ()  # what of it could not be read

    @property
    def confident(self) -> bool:
        if self.scan is not None:
            return any(hit.confident for hit in self.scan.hits)
        return any(card.match.confident for card in self.cards)
