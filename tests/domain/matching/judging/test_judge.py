"""From a score to what the answer says: the gates that hold a close match back from
confidence whatever its score."""

from __future__ import annotations

from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.messages.match import match_text

DUMP = made_reference(id="dump", messages=[made_message("Timeout (0:<n>:<n>)!")])
OTHER = made_reference(
    id="other", messages=[made_message("Watchdog caught collective operation timeout: <word>")]
)


def test_a_one_word_message_answers_a_line_saying_only_that_word() -> None:
    first = match_text(build_index([DUMP, OTHER]), "Timeout (0:30:00)!").matches[0]
    assert (first.id, first.confident) == ("dump", True)


def test_a_one_word_message_never_answers_a_line_that_says_more() -> None:
    first = match_text(build_index([DUMP, OTHER]), "NCCL timeout").matches[0]
    assert first.id == "dump"
    assert not first.confident
    assert "shares only one telling word with its message" in first.held_back[0]
