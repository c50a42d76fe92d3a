"""The browse page's pager: previous, next and the page numbers around the current one."""

from __future__ import annotations

import pytest
from reference_helpers import made_reference

from failref.domain.catalog import ReferenceFilter, ReferencePage
from failref.web.views.pagination import pager, shown_numbers, twin_query


def page_of(offset: int, shown: int, limit: int, total: int) -> ReferencePage:
    """A page of `shown` references from `offset`, `limit` a page, of `total`."""
    references = [made_reference(id=f"r{number}") for number in range(shown)]
    return ReferencePage(ReferenceFilter(), references, offset, limit, total)


@pytest.mark.parametrize(
    ("number", "pages", "shown"),
    [
        pytest.param(1, 1, [1], id="one-page"),
        pytest.param(1, 3, [1, 2, 3], id="few"),
        pytest.param(1, 20, [1, 2, 3, 20], id="first"),
        pytest.param(10, 20, [1, 8, 9, 10, 11, 12, 20], id="middle"),
        pytest.param(4, 20, [1, 2, 3, 4, 5, 6, 20], id="gap-of-one-filled"),
        pytest.param(20, 20, [1, 18, 19, 20], id="last"),
    ],
)
def test_the_pages_linked_are_the_ends_and_those_near_the_current(
    number: int, pages: int, shown: list[int]
) -> None:
    assert shown_numbers(number, pages) == shown


def test_a_middle_page_links_both_ways_and_marks_itself() -> None:
    found = page_of(offset=450, shown=50, limit=50, total=1_000)
    made = pager(10, found, lambda n: f"/list?page={n}")
    assert (made.number, made.pages, made.first, made.last, made.total) == (10, 20, 451, 500, 1_000)
    assert (made.previous, made.next) == ("/list?page=9", "/list?page=11")
    numbers = [link.number if link else None for link in made.links]
    assert numbers == [1, None, 8, 9, 10, 11, 12, None, 20]
    assert [link.href for link in made.links if link and link.current] == ["/list?page=10"]


def test_the_last_page_is_short_and_has_no_next() -> None:
    made = pager(3, page_of(offset=100, shown=20, limit=50, total=120), str)
    assert (made.pages, made.first, made.last, made.previous, made.next) == (3, 101, 120, "2", None)


def test_the_json_twin_holds_the_same_references() -> None:
    assert twin_query(page_of(0, 50, 50, 120)) == {"limit": "50", "offset": None}
    assert twin_query(page_of(100, 20, 50, 120)) == {"limit": "50", "offset": "100"}
