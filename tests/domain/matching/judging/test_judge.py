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


def test_a_warning_one_line_cannot_judge_leads_without_confidence() -> None:
    risk = "Using a slow tokenizer. This might cause a significant slowdown."
    judged = made_message(risk, "warning").model_copy(
        update={"judged_across": "compare throughput with an offline run"}
    )
    warned = build_index([made_reference(id="cpu", messages=[judged])])
    first = match_text(warned, risk).matches[0]
    assert (first.id, first.confident) == ("cpu", False)
    assert any("compare throughput with an offline run" in reason for reason in first.reasons)
    plain = build_index([made_reference(id="cpu", messages=[made_message(risk, "warning")])])
    assert match_text(plain, risk).matches[0].confident
