"""Case-insensitive patterns searched fast. On ASCII text lowered once, a pattern whose
source is lowered finds what the case-insensitive one finds, at several times the speed
(Python's `re` skips its literal-prefix search under IGNORECASE); and a pattern that
starts with `\b` (no literal prefix either way: ~10 us over a 600-character line) is not
run on a text holding none of the pieces every match of it holds (`in`, at C speed)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# What lowering a source would change the meaning of: an escape such as \S or \B, and a
# group that turns case-insensitivity off, (?-i:NCCL) finding NCCL but not nccl.
_UNSAFE_TO_LOWER = re.compile(r"\\[A-Z]|\(\?[a-z]*-")


@dataclass(frozen=True, slots=True)
class EitherCase:
    """A case-insensitive pattern; when its source allows it, its lower-case twin for
    lower-cased ASCII text; and its needles, lower case, one of which every match holds
    (none: no such piece is known)."""

    any_case: re.Pattern[str]
    lower: re.Pattern[str] | None
    needles: tuple[str, ...]

    @classmethod
    def of(cls, source: str, needles: tuple[str, ...] = ()) -> EitherCase:
        """The pattern of `source`, ignoring case, its twin when lowering is safe, and the
        needles given."""
        if any(needle != needle.lower() or not needle for needle in needles):
            raise ValueError(f"needles of {source!r} must be lower case and not empty")
        any_case = re.compile(source, re.IGNORECASE)
        lower = None if _UNSAFE_TO_LOWER.search(source) else re.compile(source.lower())
        return cls(any_case, lower, needles)

    def search(self, text: str, lowered: str | None) -> re.Match[str] | None:
        """`any_case.search(text)`; `lowered` is `text.lower()` when the text is ASCII (and
        then a match's groups are lower case), else None."""
        if lowered is None:
            return self.any_case.search(text)
        if self.needles and not holds_a_needle(lowered, self.needles):
            return None
        if self.lower is not None:
            return self.lower.search(lowered)
        return self.any_case.search(text)


def lowered_ascii(text: str) -> str | None:
    """`text.lower()` when lowering keeps every character where it was (ASCII), else None."""
    return text.lower() if text.isascii() else None


def holds_a_needle(lowered: str, needles: tuple[str, ...]) -> bool:
    """Whether a lowered text holds one of these needles (`in`, at C speed)."""
    return any(needle in lowered for needle in needles)
