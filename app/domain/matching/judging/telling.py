"""The telling span of an error line: the status it quotes at its end (NCCL's `Cuda failure
'invalid argument'`, `custom_all_reduce.cuh:307 'peer access is not supported between these
two devices'`), else what it says after its last `: ` when that is a few words (`CUDA error:
invalid device ordinal`, `error=10 : invalid device ordinal`, `Error 802: system not yet
initialized`). The words before it are often the same for many
failures (PyTorch's `RuntimeError: CUDA error:`, the old `THCudaCheck FAIL file=... line=...
error=...`), so a line and a message that agree on those and disagree on the telling span
are different failures when another page's messages name what the line's span says: such
a match is never confident, however close the rest. (Variants of one failure, such as the
kinds of an illegal instruction, differ in their spans too; nothing else names them.)
A line and a message that say different libraries failed (`NCCL error in: ..., invalid
argument` against `CUDA error: invalid argument`) are different failures too."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..reading.teardown import is_scaffold
from ..reading.tokens import STOPWORDS, stem

# A telling span is short: longer tails are descriptions, paths or values, not a name.
MAX_TAIL_WORDS = 6
# The last `, ` clause is a name only when it has this many words and no `key:value`.
MIN_CLAUSE_WORDS = 2
_FIELD_RE = re.compile(r"[:=]")
# A quoted status is a name however many words it takes (CUDA's and NCCL's status strings
# run to 8), within reason.
MAX_QUOTED_WORDS = 12
# A line that ends by quoting something (closing brackets or a full stop may follow).
_QUOTED_END_RE = re.compile(r"'([^'\n]{1,160})'[\s.)\]]*$")
# Clauses that end a line whatever its failure: the release, where to read more.
_TRAILING_BOILERPLATE_RE = re.compile(
    r"(?:,\s?NCCL version [\w.<>+-]+| ?\(run with NCCL_DEBUG=\w+ for details\))+\s*$",
    re.IGNORECASE,
)
# PyTorch's internal asserts share everything after the condition that failed
# (`!block->expandable_segment_ INTERNAL ASSERT FAILED at "<path>":<n>, please report a bug
# to PyTorch.`): the condition is the telling span.
_INTERNAL_ASSERT_RE = re.compile(r" INTERNAL ASSERT FAILED at [^\n]*$")
_PLACEHOLDER_RE = re.compile(r"<[^<>\n]*>")
# The library a line says failed, the first named before `error` or `failure` (`CUDA error:`,
# `NCCL error in:`, NCCL's `Cuda failure`, `CUDA driver error`); a bracket after it names the
# library underneath (Triton's `Triton Error [CUDA]:` is a CUDA error).
_FAMILY_RE = re.compile(
    r"\b(cuda|nccl|cublas(?:lt)?|cudnn|cusparse|cufft|curand|cusolver|triton|nvrtc|nvml|hip)"
    r"(?: runtime| driver)? ?(?:error|failure)\b(?: \[(\w+)\])?",
    re.IGNORECASE,
)
# Words as the index holds them: letters only, `num_gpus` is `num` and `gpus`.
_WORD_RE = re.compile(r"[a-z]{3,}")


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A line's telling span against its message's: the words of the line's span, the two
    spans as written, and the words of the message's span (None when it is a placeholder
    the line fills)."""

    words: frozenset[str]
    said: str
    meant: str
    meant_words: frozenset[str] | None = None


def telling_span(line: str) -> tuple[str, int] | None:
    """A line's telling span as written, and the most words it may hold: the status it
    quotes at its end; else what follows its last `: `, or when that is longer than a
    name, its last `, ` (PyTorch's `NCCL error in: <path>:<n>, unhandled cuda error`);
    trailing boilerplate (`, NCCL version <n>`, `(run with NCCL_DEBUG=INFO for details)`)
    left out. None when it has neither."""
    quoted = _QUOTED_END_RE.search(line)
    if quoted is not None:
        return quoted.group(1), MAX_QUOTED_WORDS
    line = _TRAILING_BOILERPLATE_RE.sub("", _INTERNAL_ASSERT_RE.sub("", line))
    cut = line.rfind(": ")
    if cut < 0:
        return None
    span = line[cut + 2 :]
    comma = span.rfind(", ")
    if comma >= 0 and len(_WORD_RE.findall(span.lower())) > MAX_TAIL_WORDS:
        clause = span[comma + 2 :]
        # a name of a few words, not a field of a list (`partition:2#0, task:3`)
        if len(_WORD_RE.findall(clause.lower())) >= MIN_CLAUSE_WORDS and not _FIELD_RE.search(
            clause
        ):
            span = clause
    return span, MAX_TAIL_WORDS


def tail_words(line: str) -> frozenset[str] | None:
    """The words of a line's telling span, placeholders and stop words left out (the index
    holds no stop word); None when it has none, holds more words than a name (stop words
    counted) or is a traceback's header."""
    found = telling_span(line)
    if found is None or is_scaffold(found[0]):
        return None
    span, most = found
    words = frozenset(_WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", span).lower()))
    if not words or len(words) > most:
        return None
    return (words - STOPWORDS) or None


def is_slot(message_line: str) -> bool:
    """Whether a message's telling span is only a placeholder (a wrapper's `signal: <word>`,
    `terminate called after throwing an instance of '<word>'`): whatever the line says there
    is the real failure, which another page may own."""
    found = telling_span(message_line)
    if found is None or _PLACEHOLDER_RE.search(found[0]) is None:
        return False
    return not _WORD_RE.search(_PLACEHOLDER_RE.sub(" ", found[0]).lower())


def tails_disagree(line: str, message_line: str) -> Disagreement | None:
    """When a pasted line and the message line it matched each name something the other
    does not in their telling spans (`invalid device ordinal` against `invalid device
    function`), or the message leaves its span to a placeholder the line fills, with every
    word of the line's span: a page that names the line's failure names all of them. Words
    are compared by their stems: `devices` is what `device(s)` says."""
    said, meant = tail_words(line), tail_words(message_line)
    if said is not None and meant is None and is_slot(message_line):
        return Disagreement(said, _span_text(line), _span_text(message_line))
    if said is None or meant is None:
        return None
    said_stems, meant_stems = {stem(word) for word in said}, {stem(word) for word in meant}
    if said_stems <= meant_stems or meant_stems <= said_stems:
        return None
    return Disagreement(said, _span_text(line), _span_text(message_line), meant)


def _span_text(line: str) -> str:
    found = telling_span(line)
    return found[0].strip() if found is not None else ""


def error_family(line: str) -> str | None:
    """The library a line says failed, as written (`NCCL` for `NCCL error in: ..., invalid
    argument`); None when it names none."""
    found = _FAMILY_RE.search(line)
    return (found.group(2) or found.group(1)) if found is not None else None


def families_differ(line: str, message_line: str) -> tuple[str, str] | None:
    """The two libraries when a pasted line and its message say different ones failed (an
    NCCL error's `invalid argument` is not CUDA's)."""
    said, meant = error_family(line), error_family(message_line)
    if said is None or meant is None or said.lower() == meant.lower():
        return None
    return said, meant
