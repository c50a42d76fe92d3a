"""The page links of a list shown a page at a time (the browse page): previous, next and a
window of page numbers around the current one, which is marked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...domain.catalog import ReferencePage

# Page numbers linked on each side of the current page; the first and the last always are.
PAGE_WINDOW = 2


@dataclass(frozen=True, slots=True)
class PageLink:
    """A link to one page of the list; `current` on the page shown."""

    number: int
    href: str
    current: bool


@dataclass(frozen=True, slots=True)
class Pager:
    """Where the page shown sits in its list, and the links to the others (a None between
    two links stands for the pages left out)."""

    number: int
    pages: int
    first: int
    last: int
    total: int
    previous: str | None
    next: str | None
    links: list[PageLink | None]


def pager(number: int, found: ReferencePage, link: Callable[[int], str]) -> Pager:
    """The pager of page `number` (from 1) holding `found`; `link` gives a page's address."""
    pages = max(1, -(-found.total // found.limit))
    links: list[PageLink | None] = []
    last_shown = 0
    for shown in shown_numbers(number, pages):
        if shown > last_shown + 1:
            links.append(None)
        links.append(PageLink(shown, link(shown), shown == number))
        last_shown = shown
    return Pager(
        number=number,
        pages=pages,
        first=found.offset + 1,
        last=found.offset + len(found.references),
        total=found.total,
        previous=link(number - 1) if number > 1 else None,
        next=link(number + 1) if number < pages else None,
        links=links,
    )


def shown_numbers(number: int, pages: int) -> list[int]:
    """The first and last page and those within PAGE_WINDOW of `number`; a gap of a
    single page is filled, since its number takes no more room than the ellipsis."""
    near = range(max(1, number - PAGE_WINDOW), min(pages, number + PAGE_WINDOW) + 1)
    shown = {1, pages, *near}
    shown |= {n for n in (near.start - 1, near.stop) if n - 1 in shown and n + 1 in shown}
    return sorted(shown)


def page_query(number: int) -> dict[str, str | None]:
    """The query naming page `number`; the first page has none, so its address is the
    list's own."""
    return {"page": str(number) if number > 1 else None}


def twin_query(found: ReferencePage) -> dict[str, str | None]:
    """The query of the JSON list holding the same references as `found`."""
    return {"limit": str(found.limit), "offset": str(found.offset) if found.offset else None}
