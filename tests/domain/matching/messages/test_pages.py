"""When no message answers a paste with confidence, the pages' whole text has a say: the
references the messages ranked and the pages whose words best hold the paste's are merged
by reciprocal rank. A confident answer is never reordered, and page text never makes a
match confident or brings in the page of a line set aside as healthy."""

from __future__ import annotations

from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.messages.pages import fused
from failref.domain.references.document import Cause, Reference

FILLER = [
    made_reference(id=f"filler-{n}", title=f"filler {n}", messages=[made_message(f"unit{n} ok")])
    for n in range(8)
]
# A page whose messages say little of the paste below, but whose cause names its words.
FABRIC = made_reference(
    id="fabric",
    title="Fabric manager down",
    messages=[made_message("NVSwitch fabric manager failed to start")],
    causes=[
        Cause(
            title="c",
            markdown="The partition was not activated, so **nvlink training** never completes.",
            line=1,
        )
    ],
)
# A page one of whose messages partly resembles the paste.
TRAINING = made_reference(
    id="training-loss",
    title="Training loss",
    messages=[made_message("training loss went up at step <n>")],
)
PASTE = "nvlink training did not complete on node 3"


def pages() -> list[Reference]:
    return [FABRIC, TRAINING, *FILLER]


def test_reciprocal_rank_puts_what_both_rank_high_first() -> None:
    assert fused(["a", "b", "c"], ["c", "d"]) == ["c", "a", "b", "d"]
    assert fused(["a", "b"], ["b", "a"]) == ["a", "b"], "a tie keeps the first list's order"


def test_a_page_only_its_text_names_joins_the_leads_with_why() -> None:
    matches = match_text(build_index(pages()), PASTE).matches
    assert not any(match.confident for match in matches)
    fabric = next(match for match in matches if match.id == "fabric")
    assert fabric.reasons[-1].startswith("its page (other messages, where they were seen")
    assert "nvlink" in fabric.reasons[-1]


def test_a_confident_answer_is_not_reordered_by_page_text() -> None:
    index = build_index(pages())
    text = "NVSwitch fabric manager failed to start"
    with_pages = match_text(index, text).matches
    assert (with_pages[0].id, with_pages[0].confident) == ("fabric", True)
    assert all("its page (" not in reason for match in with_pages for reason in match.reasons)


def test_a_healthy_line_brings_no_page_in() -> None:
    healthy = made_reference(
        id="healthy-page",
        title="normal lines",
        kind="healthy",
        messages=[made_message("nvlink training complete on all links", kind="healthy")],
    )
    index = build_index([*pages(), healthy])
    result = match_text(index, "nvlink training complete on all links")
    assert [line.id for line in result.healthy_lines] == ["healthy-page"]
    assert "fabric" not in [match.id for match in result.matches]
    assert all("its page (" not in reason for m in result.matches for reason in m.reasons)
