"""The telling span of an error line: what it says after its last `: ` when that is a few
words (`CUDA error: invalid device ordinal`, `error=10 : invalid device ordinal`,
`Error 802: system not yet initialized`). The words before it are often the same for many
failures (PyTorch's `RuntimeError: CUDA error:`, the old `THCudaCheck FAIL file=... line=...
error=...`), so a line and a message that agree on those and disagree on the telling span
are different failures when another page's messages name what the line's span says: such
a match is never confident, however close the rest. (Variants of one failure, such as the
kinds of an illegal instruction, differ in their spans too; nothing else names them.)"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..reading.teardown import is_scaffold

# A telling span is short: longer tails are descriptions, paths or values, not a name.
MAX_TAIL_WORDS = 6
_PLACEHOLDER_RE = re.compile(r"<[^<>\n]*>")
_WORD_RE = re.compile(r"[a-z][a-z_]{2,}")


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A line's telling span against its message's: the words only the line says, and the
    two spans as written."""

    words: frozenset[str]
    said: str
    meant: str


def tail_words(line: str) -> frozenset[str] | None:
    """The words of a line's telling span (after its last `: `), placeholders left out;
    None when it has none, is longer than MAX_TAIL_WORDS or is a traceback's header."""
    cut = line.rfind(": ")
    if cut < 0 or is_scaffold(line[cut + 2 :]):
        return None
    words = frozenset(_WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", line[cut + 2 :]).lower()))
    if not words or len(words) > MAX_TAIL_WORDS:
        return None
    return words


def tails_disagree(line: str, message_line: str) -> Disagreement | None:
    """When a pasted line and the message line it matched each name something the other
    does not in their telling spans (`invalid device ordinal` against `invalid device
    function`)."""
    said, meant = tail_words(line), tail_words(message_line)
    if said is None or meant is None or not (said - meant) or not (meant - said):
        return None
    return Disagreement(
        said - meant,
        line[line.rfind(": ") + 2 :].strip(),
        message_line[message_line.rfind(": ") + 2 :].strip(),
    )
