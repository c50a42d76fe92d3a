"""Two messages fitting one line, one holding every telling word of the other and more:
the more specific decides whether the line says the extra words or not."""

from __future__ import annotations

from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import build_index
from failref.domain.matching.messages.match import match_text

GENERAL = made_reference(
    id="general",
    messages=[
        made_message(
            "size mismatch for <word>: copying a param with shape torch.Size(<shape>) from "
            "checkpoint, the shape in current model is torch.Size(<shape>)."
        )
    ],
)
SPECIFIC = made_reference(
    id="specific",
    messages=[
        made_message(
            "size mismatch for <word>: copying a param with shape torch.Size([0]) from "
            "checkpoint, the shape in current model is torch.Size(<shape>)."
        )
    ],
)
INDEX = build_index([GENERAL, SPECIFIC])


def answers(line: str) -> dict[str, tuple[bool, list[str]]]:
    return {m.id: (m.confident, m.held_back) for m in match_text(INDEX, line).matches}


def test_a_line_saying_the_extra_words_holds_the_general_message_back() -> None:
    found = answers(
        "size mismatch for a.weight: copying a param with shape torch.Size([0]) from "
        "checkpoint, the shape in current model is torch.Size([1, 1, 1024])."
    )
    assert found["specific"] == (True, [])
    confident, why = found["general"]
    assert not confident
    assert why == ["the line says “empty”, which specific's message names"]


def test_a_line_not_saying_them_holds_the_specific_message_back() -> None:
    found = answers(
        "size mismatch for a.weight: copying a param with shape torch.Size([2, 17]) from "
        "checkpoint, the shape in current model is torch.Size([1, 17])."
    )
    assert found["general"] == (True, [])
    confident, why = found["specific"]
    assert not confident
    assert why == ["its message names “empty”, which the line does not"]


def test_units_alone_make_no_message_more_specific() -> None:
    quoted_whole = made_reference(
        id="whole",
        messages=[made_message("OutOfMemoryError: CUDA out of memory. Tried to allocate <n> GiB")],
    )
    quoted_short = made_reference(
        id="short",
        messages=[made_message("OutOfMemoryError: CUDA out of memory. Tried to allocate")],
    )
    found = {
        m.id: (m.confident, m.held_back)
        for m in match_text(
            build_index([quoted_whole, quoted_short]),
            "OutOfMemoryError: CUDA out of memory. Tried to allocate 3.82 GiB",
        ).matches
    }
    assert found == {"whole": (True, []), "short": (True, [])}
