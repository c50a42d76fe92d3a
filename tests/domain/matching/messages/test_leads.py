"""When nothing matches with confidence, what the paste leads to is said, never folded away:
a code typed alone answers with its page, confidently; a near miss is a lead with why it
is not confident; a term no message holds leads to the page naming it."""

from __future__ import annotations

import pytest
from paths import DIAGNOSIS
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.context import RunContext
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(DIAGNOSIS).references)


def test_a_confident_answer_has_no_lead(index: MatchIndex) -> None:
    result = match_text(
        index, "ValueError: No available memory for the cache blocks. Try increasing more."
    )
    assert result.matches[0].confident
    assert (result.lead, result.lookups) == (None, [])


def test_a_near_miss_is_a_lead_with_why_it_is_not_confident(index: MatchIndex) -> None:
    text = "ValueError: No available memory for the cache blocks."
    result = match_text(index, text, RunContext(phase="pre-training"))
    assert not any(match.confident for match in result.matches)
    assert result.lead is not None
    assert result.lead.id == "fx-serving"
    assert any(why.startswith("context disagrees") for why in result.lead.why)


def test_a_term_no_message_holds_leads_to_the_page_naming_it(index: MatchIndex) -> None:
    serving = next(r for r in read_folder(DIAGNOSIS).references if r.id == "fx-serving")
    named = serving.model_copy(update={"context_markdown": "Set TRY_ENFORCE_EAGER=1 first."})
    result = match_text(build_index([named]), "TRY_ENFORCE_EAGER")
    assert result.lead is not None
    assert result.lead.id == "fx-serving"
    assert result.lead.score is None
    assert result.lead.why[0] == "“TRY_ENFORCE_EAGER” is named in its context or worked example"


def test_a_code_typed_alone_answers_with_its_page_confidently() -> None:
    message = made_message("NVRM: Xid (PCI:<hex>): 79, pid=<n>, GPU has fallen off the bus.")
    owner = made_reference(id="fallen", title="Fallen off the bus", messages=[message])
    result = match_text(build_index([owner]), "Xid 79")
    assert result.matches[0].id == "fallen"
    assert result.matches[0].confident
    assert result.matches[0].reasons[0] == "you typed Xid 79, a code this page owns"


def test_a_code_no_message_prints_still_answers_with_the_page_owning_it() -> None:
    owner = made_reference(id="illegal", title="Illegal memory access", tags=["error-700"])
    result = match_text(build_index([owner]), "CUDA error 700")
    (first,) = result.matches
    assert (first.id, first.confident, first.score) == ("illegal", True, 1.0)
    assert first.reasons[0] == "you typed CUDA error 700, a code this page owns"


def test_a_lead_resting_on_one_telling_word_gives_way_to_a_longer_message() -> None:
    hang = made_reference(
        id="hang",
        title="NCCL timeout not reached: the job stops with no error",
        tags=["nccl", "timeout"],
        messages=[made_message("Timeout (0:<n>:<n>)!")],
    )
    watchdog = made_reference(
        id="watchdog",
        title="A collective times out",
        messages=[
            made_message(
                "Timeout at NCCL work: <n>, last enqueued NCCL work: <n>, last completed NCCL "
                "work: <n>, the watchdog aborts the communicators while the process group "
                "waited on every rank."
            )
        ],
    )
    other = made_reference(id="other", messages=[made_message("CUDA error: out of memory")])
    result = match_text(build_index([hang, watchdog, other]), "NCCL timeout")
    assert result.matches[0].id == "hang"  # the closer resemblance, on one word
    assert result.lead is not None
    assert result.lead.id == "watchdog"
