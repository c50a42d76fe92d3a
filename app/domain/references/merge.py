"""A three-way merge of a reference file's lines (diff3): the version an editor started
from (base), the one saved meanwhile (theirs) and the editor's own (yours).

Changes on one side only, or the same change on both, merge by themselves; a stretch both
sides changed differently is a conflict, kept with all three versions so a person decides.
Between two stretches all three versions share, the changes of each side are told apart
line by line, so edits of adjacent lines (the title on one line, the summary on the next)
merge; only edits of the same lines, or insertions at the same place, conflict.
The merged text writes each conflict between git-style markers, which `conflict_markers`
finds again, so a text with a conflict left in it is never saved by mistake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

THEIRS_MARKER = "<<<<<<< saved meanwhile"
SPLIT_MARKER = "======="
YOURS_MARKER = ">>>>>>> your version"

HunkKind = Literal["unchanged", "theirs", "yours", "both", "conflict"]


@dataclass(frozen=True)
class Hunk:
    """A stretch of the file: its lines in the base, theirs and yours, and who changed it."""

    kind: HunkKind
    base: tuple[str, ...]
    theirs: tuple[str, ...]
    yours: tuple[str, ...]
    base_start: int  # 1-based line in the base where the stretch starts

    @property
    def merged(self) -> tuple[str, ...]:
        """The lines this stretch contributes to the merged text (markers for a conflict)."""
        if self.kind in ("unchanged", "theirs", "both"):
            return self.theirs
        if self.kind == "yours":
            return self.yours
        return (THEIRS_MARKER, *self.theirs, SPLIT_MARKER, *self.yours, YOURS_MARKER)


@dataclass(frozen=True)
class Merge:
    """Every stretch of a three-way merge, in file order."""

    hunks: tuple[Hunk, ...]

    @property
    def conflicts(self) -> list[Hunk]:
        return [hunk for hunk in self.hunks if hunk.kind == "conflict"]

    @property
    def text(self) -> str:
        """The merged file: both sides' changes, and each conflict between markers."""
        lines = [line for hunk in self.hunks for line in hunk.merged]
        return "\n".join(lines) + "\n" if lines else ""

    def conflict_lines(self) -> list[int]:
        """The 1-based line of the merged text where each conflict's first marker is."""
        found, line = [], 1
        for hunk in self.hunks:
            if hunk.kind == "conflict":
                found.append(line)
            line += len(hunk.merged)
        return found


def plain_newlines(text: str) -> str:
    """`text` with CRLF and lone CR line endings as LF: what browsers send is not a change."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their endings, whatever the endings were."""
    lines = plain_newlines(text).split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _matches(base: Sequence[str], other: Sequence[str]) -> dict[int, int]:
    """Base line index -> other line index for the lines the two have in common."""
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return {
        block.a + offset: block.b + offset
        for block in matcher.get_matching_blocks()
        for offset in range(block.size)
    }


def merge_texts(base: str, theirs: str, yours: str) -> Merge:
    """Merge `yours` and `theirs`, both edited from `base`, line by line."""
    return merge_lines(split_lines(base), split_lines(theirs), split_lines(yours))


def merge_lines(base: Sequence[str], theirs: Sequence[str], yours: Sequence[str]) -> Merge:
    """diff3 on lines: stretches where all three agree anchor the merge; between two such
    anchors, a side that left the base alone takes the other side's change."""
    in_theirs, in_yours = _matches(base, theirs), _matches(base, yours)
    hunks: list[Hunk] = []
    o = t = y = 0
    while o < len(base) or t < len(theirs) or y < len(yours):
        anchor = _next_anchor(o, t, y, len(base), in_theirs, in_yours)
        if anchor == o and in_theirs.get(o) == t and in_yours.get(o) == y:
            end = o
            while (
                end < len(base)
                and in_theirs.get(end) == t + end - o
                and in_yours.get(end) == y + end - o
            ):
                end += 1
            lines = tuple(base[o:end])
            hunks.append(Hunk("unchanged", lines, lines, lines, o + 1))
            t, y, o = t + end - o, y + end - o, end
            continue
        t_end = in_theirs[anchor] if anchor < len(base) else len(theirs)
        y_end = in_yours[anchor] if anchor < len(base) else len(yours)
        hunks.extend(_changed(base[o:anchor], theirs[t:t_end], yours[y:y_end], o + 1))
        o, t, y = anchor, t_end, y_end
    return Merge(tuple(hunks))


def _next_anchor(
    o: int, t: int, y: int, size: int, in_theirs: dict[int, int], in_yours: dict[int, int]
) -> int:
    """The first base line from `o` on that both sides kept at or after where they are;
    `size` when there is none (the rest is one changed stretch)."""
    for line in range(o, size):
        if in_theirs.get(line, -1) >= t and in_yours.get(line, -1) >= y:
            return line
    return size


def _changed(
    base: Sequence[str], theirs: Sequence[str], yours: Sequence[str], base_start: int
) -> list[Hunk]:
    kept_base, kept_theirs, kept_yours = tuple(base), tuple(theirs), tuple(yours)
    if kept_theirs == kept_yours:
        kind: HunkKind = "both"
    elif kept_theirs == kept_base:
        kind = "yours"
    elif kept_yours == kept_base:
        kind = "theirs"
    else:
        return _told_apart(kept_base, kept_theirs, kept_yours, base_start)
    return [Hunk(kind, kept_base, kept_theirs, kept_yours, base_start)]


@dataclass(frozen=True)
class _Edit:
    """One side's change to base lines [start, end) (an insertion when they are equal)."""

    side: Literal["theirs", "yours"]
    start: int
    end: int
    lines: tuple[str, ...]


def _edits(
    side: Literal["theirs", "yours"], base: Sequence[str], other: Sequence[str]
) -> list[_Edit]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Edit(side, start, end, tuple(other[first:last]))
        for tag, start, end, first, last in matcher.get_opcodes()
        if tag != "equal"
    ]


def _touch(one: _Edit, other: _Edit) -> bool:
    """Whether two edits of different sides change the same base lines, or insert at the
    same place, or one inserts inside the lines the other changes; edits of adjacent lines,
    and an insertion just before or after the lines the other changes, do not touch."""
    if one.start == one.end and other.start == other.end:
        return one.start == other.start
    if one.start == one.end:
        return other.start < one.start < other.end
    if other.start == other.end:
        return one.start < other.start < one.end
    return one.start < other.end and other.start < one.end


def _told_apart(
    base: tuple[str, ...], theirs: tuple[str, ...], yours: tuple[str, ...], base_start: int
) -> list[Hunk]:
    """A stretch both sides changed, cut into the groups of edits that touch: a group of
    one side's edits merges, a group holding both sides' is a conflict (or the same change)."""
    edits = sorted(
        _edits("theirs", base, theirs) + _edits("yours", base, yours),
        key=lambda edit: (edit.start, edit.end),
    )
    groups: list[list[_Edit]] = []
    for edit in edits:
        # One side's edits never touch each other (its diff keeps a line between them).
        if groups and any(_touch(edit, member) for member in groups[-1]):
            groups[-1].append(edit)
        else:
            groups.append([edit])
    hunks, done = [], 0
    for group in groups:
        start, end = min(edit.start for edit in group), max(edit.end for edit in group)
        if start > done:
            lines = base[done:start]
            hunks.append(Hunk("unchanged", lines, lines, lines, base_start + done))
        hunks.append(_group_hunk(base, group, start, end, base_start))
        done = end
    if done < len(base):
        lines = base[done:]
        hunks.append(Hunk("unchanged", lines, lines, lines, base_start + done))
    return hunks


def _group_hunk(
    base: tuple[str, ...], group: list[_Edit], start: int, end: int, base_start: int
) -> Hunk:
    theirs = _applied(base, [edit for edit in group if edit.side == "theirs"], start, end)
    yours = _applied(base, [edit for edit in group if edit.side == "yours"], start, end)
    sides = {edit.side for edit in group}
    kind: HunkKind = "conflict" if len(sides) == 2 else "theirs" if "theirs" in sides else "yours"
    if kind == "conflict" and theirs == yours:
        kind = "both"
    return Hunk(kind, base[start:end], theirs, yours, base_start + start)


def _applied(base: tuple[str, ...], edits: list[_Edit], start: int, end: int) -> tuple[str, ...]:
    """Base lines [start, end) with one side's `edits` (in order) made."""
    lines: list[str] = []
    done = start
    for edit in edits:
        lines.extend(base[done : edit.start])
        lines.extend(edit.lines)
        done = edit.end
    lines.extend(base[done:end])
    return tuple(lines)


def conflict_markers(text: str) -> list[int]:
    """The 1-based lines of `text` that are a conflict marker this module writes."""
    markers = (THEIRS_MARKER, YOURS_MARKER)
    return [number for number, line in enumerate(split_lines(text), 1) if line in markers]


def two_way(theirs: str, yours: str) -> Merge:
    """Without the base, nothing says who changed what: every stretch where the two
    differ is a conflict, and the stretches they share stay as they are."""
    ours, other = split_lines(theirs), split_lines(yours)
    hunks = []
    matcher = SequenceMatcher(None, ours, other, autojunk=False)
    for tag, t_start, t_end, y_start, y_end in matcher.get_opcodes():
        kept, mine = tuple(ours[t_start:t_end]), tuple(other[y_start:y_end])
        kind: HunkKind = "unchanged" if tag == "equal" else "conflict"
        hunks.append(Hunk(kind, kept if tag == "equal" else (), kept, mine, t_start + 1))
    return Merge(tuple(hunks))
