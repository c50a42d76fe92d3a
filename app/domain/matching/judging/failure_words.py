"""Whether a line says that something went wrong. A failure message names the failure in
words (`error`, `failed`, `not equal`, `out of memory`, `timed out`, `killed`, ...); a
settings, progress or status line that shares its other words (Megatron's `using world
size: 2, data-parallel-size: 2, ...` against `world_size (<n>) is not equal to
tensor_model_parallel_size (<n>) x ...`) says nothing failed, and is normal output however
many words it shares: it may lead to the page, never answer it."""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words that say something failed, is wrong or is at a limit. Broad on purpose: a line
# holding any of them keeps its match; only a line holding none against a message holding
# some loses confidence. Matched anywhere in a word where that is safe (`OutOfMemoryError`,
# `Aborting`, `SIGKILL`), at word edges where a short word would match inside others.
_FAILURE_RE = re.compile(
    r"error|fail|fault|exception|abort|kill|fatal|terminat|crash|timeout|timed out|exceed"
    r"|mismatch|illegal|invalid|unsupported|denied|refused|cannot|can't|could not|couldn't"
    r"|unable|expected|corrupt|assert|panic|deadlock|\bhang|\bhung\b|stuck|\bdied\b|\bdead"
    r"|\blost\b|overflow|underflow|missing|wrong|violat|unhandled|unrecogni|unknown|warn"
    r"|deprecat|degrad|\bslow|retry|retries|giving up|broken|\breset|disconnect|closed"
    r"|signal|\bsig[a-z]{3,4}\b|segmentation|core dumped|out of memory|\boom\b|\bnot\b"
    r"|\bno\b|n't\b|\bnan\b|\binf\b|\bxid\b|\bexit|\bstop|\bshut|fall(?:s|ing)? ?back"
    r"|\bbelow\b|\babove\b|too (?:many|few|large|small|long|big)|insufficient|\bbusy\b"
    r"|unavailable|unreachable|\bexhaust|\bfull\b|\bleak|\bskipp|\berr\b|\braise|\bbad\b"
    r"|fallen off|\bfell off",
    re.IGNORECASE,
)
_PLACEHOLDER_RE = re.compile(r"<[^<>\n]*>")
# A line saying nothing failed may continue a wrapped one above it that does (a CUDA OOM
# message broken over three lines): this many lines above count as part of it.
WRAPPED_LINES = 3


def says_failure(line: str) -> bool:
    """Whether a line (a pasted one, or a message's, its placeholders left out) holds a word
    saying that something failed or is at a limit."""
    return _FAILURE_RE.search(_PLACEHOLDER_RE.sub(" ", line)) is not None


def says_less(line: str, message_line: str) -> bool:
    """Whether a pasted line says nothing failed where the message line it matched does."""
    return says_failure(message_line) and not says_failure(line)


def lines_before(text: str, start: int) -> str:
    """The WRAPPED_LINES lines of `text` above the one starting at `start`."""
    if start <= 0 or WRAPPED_LINES <= 0:
        return ""
    return "\n".join(text[: start - 1].rsplit("\n", WRAPPED_LINES)[-WRAPPED_LINES:])


def lines_above(lines: Sequence[str], number: int) -> str:
    """The WRAPPED_LINES lines of a log above its line `number` (counted from 1)."""
    return "\n".join(lines[max(0, number - 1 - WRAPPED_LINES) : number - 1])
