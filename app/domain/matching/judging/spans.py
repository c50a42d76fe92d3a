"""When the telling span of a pasted line (`judging.telling`) and the span of the message it
matched disagree, whether the match may still be confident.

Two ways it may not. Another page's messages name what the line's span says: the line is
that page's failure, printed in words this page shares (`invalid device ordinal` against
`invalid device function`). Or the two spans share few words and neither line holds the
other's span: all the line and the message agree on is the text around the spans, which
many failures print (PyTorch's `<condition> INTERNAL ASSERT FAILED at "<path>":<n>, please
report a bug to PyTorch.`, whatever the condition; NVML's `Failed to initialize NVML:
<status>`), so the line is some failure no page names. Spans that share half the words of
the shorter one or more (`invalid device ordinal`, `invalid device function`) may be
variants of one failure and hold the match back only when another page names the line's.
A line printed by this page's own code (a code path it names) is held back only by a span
that names one failure elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..index.match_index import MatchIndex
from ..reading.evidence import code_path_hits
from ..reading.tokens import plain_words, stem
from .telling import Disagreement, tails_disagree

# A telling span this many other pages' messages name is a generic status, not one answer.
GENERIC_SPAN_PAGES = 2
# Spans sharing at least this share of the shorter one's words may be variants of one
# failure (`an illegal instruction was encountered`, `an illegal memory access was
# encountered`); fewer, and they name different failures (`could not load NVML library`
# against `Driver/library version mismatch`, after `Failed to initialize NVML:`).
VARIANT_SHARE = 0.5
# How much of each span a reason quotes.
QUOTED_SPAN_CHARS = 60


def span_gate(index: MatchIndex, ref: int, text: str, meant: str) -> str | None:
    """Why a match of reference `ref` may not be confident because the telling span of the
    pasted line (`text`) disagrees with its message line's (`meant`), as the rest of a
    sentence that starts `line <n> `; None when the spans agree or the match may stand."""
    other = tails_disagree(text, meant)
    if other is None:
        return None
    others = naming(index, ref, other.words)
    split = apart(other, text, meant)
    if not others and not split:
        return None
    # Only a span that could hold the match back is worth looking for code paths in the line.
    own_code = ref in code_path_hits(text, index.code_paths)
    said, meant_span = other.said[:QUOTED_SPAN_CHARS], other.meant[:QUOTED_SPAN_CHARS]
    ends = f"ends “{said}” where its message ends “{meant_span}”"
    if others and overruled(index, others, own_code):
        return f"{ends}: another page's messages name what the line says"
    if split and not own_code:
        return f"{ends}: they agree only on the words around those, which many failures print"
    return None


def overruled(index: MatchIndex, others: set[int], own_code: bool) -> bool:
    """Whether what a line's telling span says is another page's answer rather than this
    one's, given the other references one of whose message lines holds every word of it
    (`others`, not empty). A line printed by this reference's own code is overruled only by
    a span that names one failure: a status several pages name, or a symptom page does
    (`invalid argument`, which many failures print), says less than the file that printed
    it (`custom_all_reduce.cuh:164 'invalid argument'`), where `peer access is not
    supported between these two devices` names one cause wherever it is printed."""
    if not own_code:
        return True
    kinds = {index.references[other].kind for other in others}
    return len(others) < GENERIC_SPAN_PAGES and "symptom" not in kinds


def naming(index: MatchIndex, ref: int, words: frozenset[str]) -> set[int]:
    """The other references one of whose message lines holds every one of these words."""
    postings, refs = index.postings, index.entry_refs
    holding: set[int] | None = None
    for word in words:
        lines = postings.get(word)
        if not lines:
            return set()
        holding = set(lines) if holding is None else holding & lines
    return {refs[entry] for entry in holding or ()} - {ref}


def apart(other: Disagreement, text: str, meant: str) -> bool:
    """Whether two disagreeing spans share less than VARIANT_SHARE of the shorter one's
    words, the pasted line (`text`) lacks some word
    of the message's span and the message line (`meant`) some word of the line's: a line
    cut short of its message's span (`unable to write to file <path>` against the same
    words followed by `: No space left on device`) or a message quoted inside a longer line
    is not apart."""
    if other.meant_words is None:
        return False  # the message's span is a placeholder the line fills: a wrapper
    said, named = _stems(other.words), _stems(other.meant_words)
    if len(said & named) >= VARIANT_SHARE * min(len(said), len(named)):
        return False
    return not named <= _stems(plain_words(text)) and not said <= _stems(plain_words(meant))


def _stems(words: Iterable[str]) -> set[str]:
    return {stem(word) for word in words}
