"""The catalog's lists: a page of the filtered references, and the start page's shelves."""

from __future__ import annotations

import pytest
from reference_helpers import made_reference

from failref.domain.catalog import Catalog, ReferenceFilter, page_of_references, shelves
from failref.domain.matching.index.match_index import build_index


def catalog_of(*categories: str) -> Catalog:
    """A catalog of one reference per category given, titled `t00`, `t01`, ... in order."""
    references = [
        made_reference(id=f"r{number:02d}", title=f"t{number:02d}", category=category)
        for number, category in enumerate(categories)
    ]
    return Catalog({r.id: r for r in references}, {}, build_index(references))


@pytest.mark.parametrize(
    ("offset", "limit", "ids", "next_offset"),
    [
        pytest.param(0, 2, ["r00", "r01"], 2, id="first"),
        pytest.param(2, 2, ["r02", "r03"], 4, id="middle"),
        pytest.param(4, 2, ["r04"], None, id="last-short"),
        pytest.param(3, 2, ["r03", "r04"], None, id="last-full"),
        pytest.param(5, 2, [], None, id="past-the-end"),
        pytest.param(0, 10, ["r00", "r01", "r02", "r03", "r04"], None, id="all-in-one"),
    ],
)
def test_a_page_holds_its_share_and_says_where_the_next_starts(
    offset: int, limit: int, ids: list[str], next_offset: int | None
) -> None:
    found = page_of_references(catalog_of(*["training"] * 5), ReferenceFilter(), offset, limit)
    assert [r.id for r in found.references] == ids
    assert (found.offset, found.limit, found.total, found.next_offset) == (
        offset,
        limit,
        5,
        next_offset,
    )


def test_a_page_counts_only_the_references_passing_the_filters() -> None:
    catalog = catalog_of("training", "inference", "training", "inference", "inference")
    filters = ReferenceFilter(category="inference")
    found = page_of_references(catalog, filters, 0, 2)
    assert ([r.id for r in found.references], found.total, found.next_offset) == (
        ["r01", "r03"],
        3,
        2,
    )
    assert found.filters == filters


def test_each_category_shelf_holds_its_first_references_and_counts_them_all() -> None:
    catalog = catalog_of("training", "hardware", "training", "training", "inference")
    found = shelves(catalog, 2)
    assert [(s.category, [r.id for r in s.references], s.total) for s in found] == [
        ("training", ["r00", "r02"], 3),
        ("inference", ["r04"], 1),
        ("hardware", ["r01"], 1),
    ]
