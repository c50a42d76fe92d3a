"""A term typed alone: the page owning the code it is, else the pages naming it as a whole
word, title before messages before causes and checks before context."""

from __future__ import annotations

import pytest
from paths import DIAGNOSIS
from reference_helpers import made_reference

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.messages.lookup import look_up, term_of
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(DIAGNOSIS).references)


@pytest.mark.parametrize(
    ("text", "term"),
    [
        pytest.param("  NCCL_P2P_DISABLE \n", "NCCL_P2P_DISABLE", id="one-word"),
        pytest.param("Loss is  NaN", "Loss is NaN", id="spaces-folded"),
        pytest.param("a b c d e", None, id="too-many-words"),
        pytest.param("line one\nline two", None, id="two-lines"),
        pytest.param("x" * 61, None, id="too-long"),
        pytest.param("   ", None, id="blank"),
    ],
)
def test_a_term_is_one_short_line(text: str, term: str | None) -> None:
    assert term_of(text) == term


def test_a_term_finds_the_pages_naming_it_where_they_name_it(index: MatchIndex) -> None:
    found = look_up(index, "gpu_memory_utilization")
    assert [(f.id, f.owner) for f in found] == [("fx-serving", False)]
    assert found[0].why == "“gpu_memory_utilization” is named in its messages"
    assert look_up(index, "the cache blocks")[0].why == (
        "“the cache blocks” is named in its messages"
    )


def test_an_identifier_is_found_anywhere_a_plain_word_in_titles_and_messages() -> None:
    in_checks = made_reference(
        id="p2p", title="Peer access", context_markdown="Set NCCL_P2P_DISABLE=1 to test."
    )
    in_context = made_reference(id="plain", title="Other", context_markdown="a slow peer link")
    index = build_index([in_checks, in_context])
    (found,) = look_up(index, "nccl_p2p_disable")
    assert (found.id, found.why) == (
        "p2p",
        "“nccl_p2p_disable” is named in its context or worked example",
    )
    assert look_up(index, "slow peer link") == []  # plain words: titles and messages only
    assert [f.id for f in look_up(index, "peer")] == ["p2p"]


def test_a_term_is_a_whole_word(index: MatchIndex) -> None:
    assert look_up(index, "gpu_memory") == []
    assert look_up(index, "cache block") == []
    assert look_up(index, "the cache blocks") != []


def test_a_code_leads_to_the_page_owning_it() -> None:
    owner = made_reference(id="fallen", title="Fallen off the bus", tags=["xid-79"])
    other = made_reference(id="other", title="Mentions Xid 79 too", summary="Xid 79 here.")
    index = build_index([other, owner])
    (found,) = look_up(index, "xid: 79")
    assert (found.id, found.owner, found.why) == (
        "fallen",
        True,
        "you typed Xid 79, a code this page owns",
    )


def test_the_title_outranks_the_context() -> None:
    in_context = made_reference(id="a", title="a", context_markdown="pipe_size matters")
    in_title = made_reference(id="b", title="pipe_size", tags=["pipe_size"])
    index = build_index([in_context, in_title])
    assert [found.id for found in look_up(index, "PIPE_SIZE")] == ["b", "a"]
