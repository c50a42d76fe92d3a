"""What the bounded search asks of scoring, as a protocol: the `Scorer` gives every member
with the same parameters, and a `Scored` is the raw score a paste's bar reads."""

from __future__ import annotations

import inspect

import pytest

from failref.domain.matching.scoring.scorer import Scored, Scorer
from failref.domain.matching.search.bounds import RawScore, ScoreBounds

MEMBERS = sorted(name for name in vars(ScoreBounds) if not name.startswith("_"))


def test_the_protocol_names_what_the_search_reads() -> None:
    assert MEMBERS == ["base", "ceiling", "gap", "gaps", "lift", "offset"]


@pytest.mark.parametrize("name", MEMBERS)
def test_the_scorer_gives_every_bound_the_search_asks(name: str) -> None:
    asked = vars(ScoreBounds)[name]
    if isinstance(asked, property):
        assert "self.lift =" in inspect.getsource(Scorer.__init__)
        return
    given = getattr(Scorer, name)
    assert list(inspect.signature(given).parameters) == list(inspect.signature(asked).parameters)


def test_a_scored_reference_is_a_raw_score() -> None:
    assert isinstance(vars(RawScore)["raw"], property)
    assert Scored(0.5, None).raw == 0.5
    assert "raw" in Scored.__dataclass_fields__
