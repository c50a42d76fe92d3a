"""One entry point for every front end, with an explicit policy for remembering gaps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session, select

from failref.config import Settings
from failref.domain.matching.reading.context import RunContext
from failref.errors import InvalidInput, LogTooLarge
from failref.services.analysis import (
    LOG_LINE_THRESHOLD,
    MAX_GAPS_PER_SCAN,
    analyse_paste,
    match_message,
    scan_text,
)
from failref.services.library import Library, open_library
from failref.store.models import GapRow

KNOWN = "W1129 12:00:01.123 torch._dynamo hit config.recompile_limit (8)"
UNKNOWN = "something nobody has written a reference for yet"


@pytest.fixture
def library(settings: Settings) -> Iterator[Library]:
    opened = open_library(settings)
    yield opened
    opened.close()


def gaps(library: Library) -> list[str]:
    """The stored gaps, once the queue has written them."""
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        return [row.example for row in session.exec(select(GapRow))]


@pytest.mark.parametrize("remember", [True, False])
def test_an_unanswered_message_is_a_gap_only_when_remembered(
    library: Library, remember: bool
) -> None:
    result = match_message(library, UNKNOWN, remember=remember)
    assert not any(match.confident for match in result.matches)
    assert gaps(library) == ([UNKNOWN] if remember else [])


def test_an_answered_message_is_never_a_gap(library: Library) -> None:
    result = match_message(library, KNOWN, remember=True)
    assert (result.matches[0].id, result.matches[0].confident) == ("stuck-rank", True)
    assert gaps(library) == []


def test_a_limit_out_of_range_names_the_field(library: Library) -> None:
    with pytest.raises(InvalidInput) as raised:
        match_message(library, KNOWN, limit=0, remember=False)
    assert raised.value.field == "limit"


def test_a_short_paste_is_matched_and_remembered(library: Library) -> None:
    outcome = analyse_paste(library, UNKNOWN, RunContext(), remember=True)
    assert (outcome.kind, outcome.scan, outcome.confident) == ("match", None, False)
    assert gaps(library) == [UNKNOWN]


def test_a_long_paste_is_scanned_and_never_remembered(library: Library) -> None:
    log = "\n".join([f"step {n} loss 2.0" for n in range(LOG_LINE_THRESHOLD)] + [KNOWN])
    outcome = analyse_paste(library, log, RunContext(), remember=True)
    assert outcome.kind == "scan"
    assert outcome.scan is not None
    assert [hit.id for hit in outcome.scan.hits] == ["stuck-rank"]
    assert (outcome.cards, gaps(library)) == ((), [])


def test_a_log_with_unrecognised_errors_names_the_closest_references_to_its_tail(
    library: Library,
) -> None:
    steps = [f"step {n} loss 2.0 recompile" for n in range(LOG_LINE_THRESHOLD + 5)]
    log = "\n".join([*steps, "a recompile failed for an unknown reason"])
    outcome = analyse_paste(library, log, RunContext(), remember=True)
    assert outcome.scan is not None
    assert (outcome.scan.hits, outcome.scan.diagnosis.verdict) == ([], "unrecognised")
    assert outcome.cards
    assert all(card.highlight is None for card in outcome.cards)


def test_a_first_error_no_reference_covers_is_the_root_with_leads(library: Library) -> None:
    steps = [f"step {n} loss 2.0 recompile" for n in range(LOG_LINE_THRESHOLD + 5)]
    log = "\n".join([*steps, "RuntimeError: recompile failed for an unknown reason"])
    outcome = analyse_paste(library, log, RunContext(), remember=True)
    assert outcome.scan is not None
    assert outcome.scan.diagnosis.verdict == "uncovered-failure"
    (root,) = outcome.scan.diagnosis.roots
    assert (root.id, root.line) == (None, LOG_LINE_THRESHOLD + 6)
    assert root.text == "RuntimeError: recompile failed for an unknown reason"


def test_a_quiet_log_names_no_reference(library: Library) -> None:
    log = "\n".join(f"step {n} loss 2.0 recompile" for n in range(LOG_LINE_THRESHOLD + 5))
    outcome = analyse_paste(library, log, RunContext(), remember=True)
    assert outcome.scan is not None
    assert (outcome.scan.diagnosis.verdict, outcome.cards) == ("quiet", ())


def test_an_empty_paste_names_the_log_field(library: Library) -> None:
    with pytest.raises(InvalidInput) as raised:
        analyse_paste(library, "  \n ", RunContext(), remember=True)
    assert raised.value.field == "log"


def test_a_scan_keeps_to_the_configured_line_limit(settings: Settings) -> None:
    limited = open_library(settings.model_copy(update={"max_log_lines": 3}))
    try:
        with pytest.raises(LogTooLarge, match="4 lines is over the 3-line limit"):
            scan_text(limited, "a\nb\nc\nd\n", remember=False)
    finally:
        limited.close()


@pytest.mark.parametrize("remember", [True, False])
def test_a_scan_offers_its_unrecognised_lines_as_gaps_only_when_remembered(
    library: Library, remember: bool
) -> None:
    log = "step 1\nRuntimeError: a failure no reference knows about\nstep 2\n"
    result = scan_text(library, log, remember=remember)
    assert [line.line for line in result.diagnosis.unrecognised] == [2]
    expected = ["RuntimeError: a failure no reference knows about"] if remember else []
    assert gaps(library) == expected


def test_a_scan_offers_at_most_a_few_lines(library: Library) -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    assert len(words) > MAX_GAPS_PER_SCAN
    log = "".join(f"RuntimeError: unknown failure {word}\n" for word in words)
    scan_text(library, log, remember=True)
    assert len(gaps(library)) == MAX_GAPS_PER_SCAN
