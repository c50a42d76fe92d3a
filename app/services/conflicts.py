"""What an editor sees when a save met a newer file: the three versions merged, the
changes that merged by themselves counted, and only the overlapping stretches to decide."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.references.merge import Merge, merge_texts, two_way
from ..store import revisions
from .library import Library


@dataclass(frozen=True)
class ConflictView:
    """A save that was refused because the file moved on, ready to resolve and save again.

    `merge` is None when the file was deleted meanwhile (nothing to merge with); `base_known`
    says whether the version the editor started from was found among the revisions (without
    it every difference is a stretch to decide)."""

    message: str
    merge: Merge | None
    base_known: bool

    @property
    def merged_by_themselves(self) -> dict[str, int]:
        """How many stretches each side changed alone (or both alike), merged already."""
        counts = {"theirs": 0, "yours": 0, "both": 0}
        for hunk in self.merge.hunks if self.merge else ():
            if hunk.kind in counts:
                counts[hunk.kind] += 1
        return counts


def conflict_view(
    library: Library,
    reference_id: str,
    base_hash: str | None,
    theirs: str | None,
    yours: str,
    message: str,
) -> ConflictView:
    """Merge `yours` (edited from the version `base_hash`) with `theirs`, the file now."""
    if theirs is None:
        return ConflictView(message, None, False)
    found = (
        revisions.revision_text_by_hash(library.engine, reference_id, base_hash)
        if base_hash
        else None
    )
    if found is None:
        return ConflictView(message, two_way(theirs, yours), False)
    return ConflictView(message, merge_texts(found, theirs, yours), True)
