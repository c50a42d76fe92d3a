"""Lines of a paste: how they are counted and split, which ones say where rather than what
(frames, source echoes), which look like errors, and the telling lines of one message."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .bulk import lines_holding, normalize_lines, prefix_length
from .normalize import MAX_LINE_CHARS

# A pasted single message gets at most this many of its lines scored (a traceback's
# telling lines); the rest are frames, echoes or repeats.
MAX_QUERY_LINES = 16
# Up to this many lines, each is searched for a telling word on its own (~7-13 us a line
# lowered) rather than every needle looked for in them all (~25-40 us for one line).
FEW_TELLING_TEXTS = 2


# Characters that are not text, counted for the reader: matching drops each of them.
NOT_TEXT = (
    ("\x00", "NUL bytes"),
    ("\x1b", "Terminal escape sequences"),
    ("\ufffd", "Bytes that were not valid UTF-8 (shown as \ufffd)"),
)


# Lines of a traceback or c10 error block that say where, not what.
NOISE_RE = re.compile(
    r'File "[^"]*", line <n>'
    r"|Traceback \(most recent call last\)"
    # torchelastic's failure summary: `traceback : Traceback (most recent call last):`
    r"|traceback\s*:\s*Traceback \(most recent call last\)"
    r"|frame #<n>"
    r"|Exception raised from "
    r"|During handling of the above exception"
    r"|The above exception was the direct cause"
    r"|[\^~]+$"
)


# What makes a line look like it tells of a failure, each word a plain lower-case pattern
# (letters, `'`, spaces, `?` after one of them, `\b` at either end) so that the piece
# every match of it holds can be read off it (`needle_of`).
TELLING_WORDS = (
    "error",
    "exception",
    "fail",
    "fatal",
    "timed? ?out",
    "watchdog",
    "warn",
    "abort",
    "killed",
    "out of memory",
    r"oom\b",
    r"\bnan\b",
    r"\binf\b",
    "unable",
    "cannot",
    "can't",
    "could not",
    "not found",
    "invalid",
    "illegal",
    "mismatch",
    "refused",
    "denied",
    "crash",
    "segmentation",
    "core dumped",
    "xid",
    "slow",
    "straggl",
    "deadlock",
    "hang",
    "stuck",
    "throttl",
    "exceed",
    "overflow",
    "preempt",
    "evict",
)
TELLING_RE = re.compile("|".join(TELLING_WORDS), re.IGNORECASE)
# The same on lower-cased ASCII text, where it says what TELLING_RE says (the words are
# lower case and an ASCII letter folds only to itself): five times faster, not ignoring case.
_TELLING_LOWER_RE = re.compile("|".join(TELLING_WORDS))
_WORD_SHAPE = re.compile(r"(?:\\b)?(?:[a-z' ]\??)+(?:\\b)?")


def needle_of(word: str) -> str:
    """The longest run of a TELLING_WORDS pattern that every match of it holds, in lower
    case; refuses a pattern of any other shape, so a new word cannot make `telling` wrong."""
    if not _WORD_SHAPE.fullmatch(word):
        raise ValueError(f"{word!r} is not a plain word pattern")
    return max(re.split(r".\?", word.replace("\\b", "")), key=len)


# An ASCII line TELLING_RE matches holds, lower-cased, the needle of the word it matched.
TELLING_NEEDLES = tuple(dict.fromkeys(needle_of(word) for word in TELLING_WORDS))


def telling(texts: Sequence[str]) -> list[bool]:
    """`[bool(TELLING_RE.search(text)) for text in texts]`, the pattern run only on the
    texts holding one of its needles (found with `str.find` over them joined and lowered)
    and on the ones not ASCII: a case-insensitive alternation costs ~60 us a line. A few
    texts are searched lowered, each at once: looking for every needle costs more."""
    if len(texts) <= FEW_TELLING_TEXTS:
        return [_telling(text) for text in texts]
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:  # a text holds a newline itself
        return [bool(TELLING_RE.search(text)) for text in texts]
    foreign = [] if joined.isascii() else [n for n, text in enumerate(texts) if not text.isascii()]
    lowered = joined.lower()
    flags = [False] * len(texts)
    for n in lines_holding(lowered, TELLING_NEEDLES, foreign):
        flags[n] = _telling(texts[n])
    return flags


def _telling(text: str) -> bool:
    found = _TELLING_LOWER_RE.search(text.lower()) if text.isascii() else TELLING_RE.search(text)
    return found is not None


def query_lines(text: str) -> list[tuple[tuple[int, int], str, str]]:
    """The telling lines of a paste: (span in the text, raw line, normalised line).

    Frames, source echoes and repeats go; error-looking lines go first, and of a long
    paste the last MAX_QUERY_LINES of them are kept (a traceback ends with its error).
    """
    found: list[tuple[tuple[int, int], str, str]] = []
    seen: set[str] = set()
    offset = 0
    after_frame = False
    raws = text.split("\n")
    lines = [raw.removesuffix("\r") for raw in raws]
    # In whole-text passes: on a long line a rule runs only where its needle is.
    for raw, line, normalized in zip(raws, lines, normalize_lines(lines), strict=True):
        start, offset = offset, offset + len(raw) + 1
        echo = after_frame and line[:1] in (" ", "\t")
        noise = bool(NOISE_RE.match(normalized))
        after_frame = noise and normalized.startswith("File ")
        if echo or noise or not normalized or normalized in seen:
            continue
        seen.add(normalized)
        found.append(((start + _prefix_length(line), start + len(line.rstrip())), line, normalized))
    flags = telling([normalized for _, _, normalized in found])
    telling_lines = [item for item, flag in zip(found, flags, strict=True) if flag]
    others = [item for item, flag in zip(found, flags, strict=True) if not flag]
    kept = telling_lines[-MAX_QUERY_LINES:] + others[: max(0, MAX_QUERY_LINES - len(telling_lines))]
    return sorted(kept, key=lambda item: item[0])


def count_lines(text: str) -> int:
    """Lines as an editor numbers them: `\n` ends a line, a last line may lack one."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def split_lines(text: str) -> list[str]:
    """The lines `count_lines` counts, without their `\r\n` or `\n`."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    if "\r" not in text:
        return lines
    return [line.removesuffix("\r") for line in lines]


def _prefix_length(line: str) -> int:
    """Characters of log prefix before the message, when offsets can be trusted."""
    if "\x1b" in line or "\r" in line or len(line) > MAX_LINE_CHARS:
        return len(line) - len(line.lstrip())
    return prefix_length(line)


@dataclass(frozen=True, slots=True)
class ReadingFacts:
    """What of a log matching skips or reads in part, counted as it is read."""

    has_text: bool
    long_lines: int
    not_text: tuple[int, ...]  # how many of each NOT_TEXT character

    @classmethod
    def of(cls, text: str, lines: Sequence[str]) -> ReadingFacts:
        """The facts of some text, split into `lines`."""
        longest = max(map(len, lines), default=0)
        long_lines = (
            sum(len(line) > MAX_LINE_CHARS for line in lines) if longest > MAX_LINE_CHARS else 0
        )
        counts = tuple(text.count(char) for char, _ in NOT_TEXT)
        return cls(bool(text.strip()), long_lines, counts)

    def __add__(self, later: ReadingFacts) -> ReadingFacts:
        counts = tuple(a + b for a, b in zip(self.not_text, later.not_text, strict=True))
        return ReadingFacts(
            self.has_text or later.has_text, self.long_lines + later.long_lines, counts
        )


NOTHING_READ = ReadingFacts(False, 0, tuple(0 for _ in NOT_TEXT))


def reading_notes(facts: ReadingFacts, not_compared: int) -> list[str]:
    """What of a log was skipped or read in part, in words: over-long lines, distinct lines
    past the comparison cap, and bytes that are not text (NUL, escapes, invalid UTF-8)."""
    notes = []
    if not facts.has_text:
        notes.append("The log has no line with text in it.")
    if facts.long_lines:
        notes.append(
            f"{facts.long_lines:,} {plural(facts.long_lines, 'line')} longer than "
            f"{MAX_LINE_CHARS:,} characters were read up to that length."
        )
    if not_compared:
        notes.append(
            f"{not_compared:,} distinct {plural(not_compared, 'line')} past the comparison limit "
            "were not compared (error-looking lines go first)."
        )
    for (_, what), count in zip(NOT_TEXT, facts.not_text, strict=True):
        if count:
            notes.append(f"{what}: {count:,}, ignored in matching.")
    return notes


def plural(count: int, noun: str) -> str:
    """`noun`, with an `s` unless there is exactly one."""
    return noun if count == 1 else noun + "s"
