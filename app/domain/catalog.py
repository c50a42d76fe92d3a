"""The in-memory snapshot the app serves from (references, aliases and the match index) and
every read of it: listing with filters, lookup by id or alias, related references, facets.

A snapshot is built after every load and swapped whole, so a request sees either the old
one or the new one, never a half-updated index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..config import RELATED_LIMIT
from ..errors import NotFound
from .matching.index.match_index import MatchIndex
from .references.codes import Code, typed_code
from .references.document import CATEGORIES, Category, Reference
from .references.problems import Problem


@dataclass(frozen=True)
class Catalog:
    """Every indexed reference by id (in title order), aliases, the match index, each
    reference's API body (serialised at most once), and the last load's problems."""

    references: dict[str, Reference]
    aliases: dict[str, str]
    index: MatchIndex
    documents: Mapping[str, bytes] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    codes: dict[Code, str] = field(default_factory=dict)

    # Worked out on first use and kept with the snapshot: each costs a pass over every
    # reference (25 ms for the facets at 10,000), and the browse and start pages need them
    # on every request.
    @cached_property
    def by_category(self) -> dict[Category, list[Reference]]:
        """Every reference of each category, in title order."""
        found: dict[Category, list[Reference]] = {category: [] for category in CATEGORIES}
        for reference in self.references.values():
            found[reference.category].append(reference)
        return found

    @cached_property
    def facet_counts(self) -> Facets:
        """Counts of every category, tag, framework and phase."""
        return count_facets(list(self.references.values()))


@dataclass(frozen=True)
class ReferenceFilter:
    """Filters of the browse page and `GET /api/v1/references`; None means any."""

    category: str | None = None
    tag: str | None = None
    framework: str | None = None
    phase: str | None = None
    q: str | None = None

    def accepts(self, reference: Reference) -> bool:
        return (
            (not self.category or reference.category == self.category)
            and (not self.tag or self.tag in reference.tags)
            and (not self.framework or self.framework in reference.frameworks)
            and (not self.phase or self.phase in reference.phases)
            and (not self.q or _mentions(reference, self.q))
        )


def _mentions(reference: Reference, text: str) -> bool:
    needle = text.casefold().strip()
    haystack = " ".join(
        [
            reference.id,
            reference.title,
            reference.summary,
            *reference.tags,
            *reference.frameworks,
            *reference.hardware,
            *(message.text for message in reference.messages),
        ]
    ).casefold()
    return all(word in haystack for word in needle.split())


def list_references(catalog: Catalog, filters: ReferenceFilter) -> list[Reference]:
    """The references that pass `filters`, in title order; a text that is a code one
    reference owns (`xid 79`) gives that reference."""
    owner = reference_for_code(catalog, filters.q or "")
    if owner is not None:
        others = replace(filters, q=None)
        return [ref for ref in (catalog.references[owner],) if others.accepts(ref)]
    return [ref for ref in catalog.references.values() if filters.accepts(ref)]


@dataclass(frozen=True)
class ReferencePage:
    """One page of a list: at most `limit` references from `offset` on, of `total` that
    pass `filters`."""

    filters: ReferenceFilter
    references: list[Reference]
    offset: int
    limit: int
    total: int

    @property
    def next_offset(self) -> int | None:
        """Where the next page starts; None on the last page."""
        end = self.offset + self.limit
        return end if end < self.total else None


def page_of_references(
    catalog: Catalog, filters: ReferenceFilter, offset: int, limit: int
) -> ReferencePage:
    """The references that pass `filters`, in title order, `limit` of them from `offset`."""
    found = list_references(catalog, filters)
    return ReferencePage(filters, found[offset : offset + limit], offset, limit, len(found))


@dataclass(frozen=True)
class Shelf:
    """The first references of one category, in title order, and how many it has."""

    category: Category
    references: list[Reference]
    total: int


def shelves(catalog: Catalog, size: int) -> list[Shelf]:
    """Each category with references, in the order of `CATEGORIES`, holding its first
    `size` references."""
    return [
        Shelf(category, found[:size], len(found))
        for category, found in catalog.by_category.items()
        if found
    ]


def reference_for_code(catalog: Catalog, text: str) -> str | None:
    """The id of the reference owning the code `text` is when typed alone (`Xid 79`,
    `error 802`, `ncclRemoteError`), else None."""
    code = typed_code(text)
    return catalog.codes.get(code) if code is not None else None


def get_reference(catalog: Catalog, reference_id: str) -> Reference:
    """The reference with this id, or NotFound (aliases are not followed here)."""
    reference = catalog.references.get(reference_id)
    if reference is None:
        raise NotFound(f"no reference with id '{reference_id[:100]}'", field="id")
    return reference


def resolve_alias(catalog: Catalog, alias: str) -> str | None:
    """The current id of a reference that used to be called `alias`."""
    return catalog.aliases.get(alias)


def related_references(
    catalog: Catalog, reference: Reference, limit: int = RELATED_LIMIT
) -> list[Reference]:
    """References this one links to, then those sharing the most tags with it."""
    linked = [catalog.references[i] for i in reference.related if i in catalog.references]
    shared = Counter(
        {
            other.id: len(set(other.tags) & set(reference.tags))
            for other in catalog.references.values()
            if other.id != reference.id and other.id not in reference.related
        }
    )
    by_tags = [catalog.references[i] for i, count in shared.most_common() if count > 0]
    return (linked + by_tags)[:limit]


def references_using(catalog: Catalog, calculator_name: str) -> list[Reference]:
    """The references whose worked example runs the calculator `calculator_name`."""
    return [
        ref
        for ref in catalog.references.values()
        if ref.calculator is not None and ref.calculator.name == calculator_name
    ]


@dataclass(frozen=True)
class Facets:
    """The values each filter can take, with how many references have each."""

    categories: list[tuple[str, int]]
    tags: list[tuple[str, int]]
    frameworks: list[tuple[str, int]]
    phases: list[tuple[str, int]]


def facets(catalog: Catalog) -> Facets:
    """Counts of every category, tag, framework and phase across the catalog."""
    return catalog.facet_counts


def count_facets(references: list[Reference]) -> Facets:
    """Counts of every category, tag, framework and phase of `references`."""

    def count(values: list[str]) -> list[tuple[str, int]]:
        return sorted(Counter(values).items())

    return Facets(
        categories=count([r.category for r in references]),
        tags=count([t for r in references for t in r.tags]),
        frameworks=count([f for r in references for f in r.frameworks]),
        phases=count([p for r in references for p in r.phases]),
    )
