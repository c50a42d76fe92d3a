"""Each page's word stems, filed with its pieces, and BM25 over them: rare shared words
rank a page, words most pages hold are not read, and a save works out only what changed."""

from __future__ import annotations

from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import IndexCache, build_index
from failref.domain.matching.index.page_words import page_words
from failref.domain.matching.reading.tokens import stem
from failref.domain.references.document import Cause, Reference, Source


def page(ref_id: str, words: str, cause: str = "", source: str = "") -> Reference:
    """A reference whose page holds `words` in its message, and more in a cause or source."""
    return made_reference(
        id=ref_id,
        title=ref_id,
        messages=[made_message(words)],
        causes=[Cause(title="c", markdown=cause, line=1)] if cause else [],
        sources=[Source(title=source, url="https://example.org", supports_markdown="", line=1)]
        if source
        else [],
    )


FILLER = [page(f"filler-{n}", f"common words everywhere unit{n}") for n in range(8)]


def test_a_page_counts_the_stems_of_its_whole_text_but_numbers() -> None:
    reference = page("p", "Engine core died 3 times", cause="The engine died", source="Engine gone")
    words = page_words(reference)
    assert (words[stem("engine")], words[stem("died")], words[stem("gone")]) == (3, 2, 1)
    assert "3" not in words


def test_the_page_holding_the_rarer_shared_words_ranks_first() -> None:
    pages = [
        page("oom", "out of memory", cause="the allocator could not find a block"),
        page("nccl", "watchdog timeout", source="NCCL watchdog caught a collective timeout"),
        *FILLER,
    ]
    index = build_index(pages)
    asked = [stem(word) for word in ("watchdog", "collective", "common")]
    ranked = index.page_words.ranked(asked, 5)
    assert [index.references[position].id for position, _ in ranked][:1] == ["nccl"]
    assert index.page_words.shared("nccl", [*asked, "absent"]) == sorted(asked[:2])


def test_a_word_most_pages_hold_is_not_read() -> None:
    index = build_index([page("a", "alpha"), *FILLER])
    assert index.page_words.ranked(["common", "everywhere"], 5) == []


def test_a_shorter_page_ranks_before_a_longer_one_holding_a_word_as_often() -> None:
    short = page("short", "fabric manager")
    long = page("long", "fabric " + " ".join(f"word{n}x" for n in range(40)))
    index = build_index([short, long, *FILLER])
    ranked = index.page_words.ranked(["fabric"], 5)
    assert [index.references[position].id for position, _ in ranked] == ["short", "long"]


def test_a_save_that_changes_only_a_source_updates_the_page_words() -> None:
    cache = IndexCache()
    pages = [page("a", "alpha"), page("b", "beta", source="first"), *FILLER]
    build_index(pages, cache)
    edited = [pages[0], page("b", "beta", source="xylophone"), *pages[2:]]
    index = build_index(edited, cache)
    assert index == build_index(edited)
    ranked = index.page_words.ranked([stem("xylophone")], 5)
    assert [index.references[position].id for position, _ in ranked] == ["b"]
