"""What a line says besides its words: the level it was logged at, and the source files its
traceback frames and `file.py:123]` prefixes name.

Both are read from the raw text (normalisation strips prefixes and paths), with fixed,
linear patterns; nothing a user wrote is compiled.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal

Level = Literal["debug", "info", "warning", "error"]
LEVEL_RANK: dict[Level, int] = {"debug": 0, "info": 1, "warning": 2, "error": 3}

# How loggers mark a level, checked at the start of a line (after a rank label) and as
# NCCL's `NCCL INFO` / `NCCL WARN` anywhere: glog/c10 `I1206 ...`, `[W ...]`, Python
# logging `INFO`, `[INFO]`, `- INFO -`, `INFO:root:`, vLLM `INFO 11-29 ...`.
_HEAD = r"^(?:\S*\[?(?:rank|default|local_rank)\s?\d+\]?:\s*|\d+:\s+|\(\w+ pid=\d+\)\s*)*"
# Level words: NCCL's anywhere in the head, the others as a logger prints them (after a
# bracket, a bar, white space or a dash, before one, a colon or the end).
_NCCL_WORDS: tuple[tuple[Level, str], ...] = (("info", "NCCL INFO"), ("warning", "NCCL WARN"))
_LEVEL_WORDS: tuple[tuple[Level, tuple[str, ...]], ...] = (
    ("error", ("ERROR", "CRITICAL", "FATAL")),
    ("warning", ("WARNING", "WARN")),
    ("info", ("INFO",)),
    ("debug", ("DEBUG", "TRACE")),
)
# glog/c10 severity marks, read right after the head.
_GLOG_MARKS: tuple[tuple[Level, tuple[str, ...]], ...] = (
    ("error", (r"\[?[EF](?:\d{3,4}|<n>)[ \]]", r"\[[EF] ")),
    ("warning", (r"\[?W(?:\d{3,4}|<n>)[ \]]", r"\[W ")),
    ("info", (r"\[?I(?:\d{3,4}|<n>)[ \]]", r"\[I ")),
    ("debug", (r"\[?[VD](?:\d{3,4}|<n>)[ \]]",)),
)
_LEVEL_SOURCES: tuple[tuple[Level, str], ...] = (
    *((level, rf"\b{word}\b") for level, word in _NCCL_WORDS),
    *((level, "|".join(_HEAD + mark for mark in marks)) for level, marks in _GLOG_MARKS),
    *(
        (level, rf"(?:^|[\[|\s-])(?:{'|'.join(words)})(?:[\]|:\s]|$)")
        for level, words in _LEVEL_WORDS
    ),
)
LEVEL_PATTERNS = tuple((level, re.compile(pattern)) for level, pattern in _LEVEL_SOURCES)
# A head a pattern matches holds one of its words (NCCL's, or a level word), or, for a
# glog pattern (no words), starts with a glog mark after its labels: most lines hold
# none, and are told so without the ten patterns; the others try only those they may match.
PATTERN_WORDS: tuple[tuple[str, ...], ...] = (
    *((word,) for _, word in _NCCL_WORDS),
    *(() for _ in _GLOG_MARKS),
    *(words for _, words in _LEVEL_WORDS),
)
LEVEL_NEEDLES = tuple(word for _, words in _LEVEL_WORDS for word in words)
GLOG_HEAD_RE = re.compile(_HEAD + f"(?:{'|'.join(m for _, marks in _GLOG_MARKS for m in marks)})")
# Only the head of a line carries its level; a message that quotes `ERROR` later on is
# still the level its logger gave it.
LEVEL_HEAD_CHARS = 160

# A source path in a traceback frame (`File "/x/torch/_dynamo/output_graph.py", line 12`)
# or a log prefix (`stage3.py:1234]`, `[ProcessGroupNCCL.cpp:616]`) is found by its
# extension, then read backwards over path characters: one pass over the text, however
# many words it has.
SOURCE_EXTENSION_RE = re.compile(r"\.(?:py|cc|cpp|cxx|cu|cuh|c|h|hpp|rs)\b")
PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/\\")
# Longest path read backwards from an extension.
MAX_PATH_CHARS = 300
# A paste names at most this many distinct source paths worth looking up.
MAX_SOURCE_PATHS = 400
# Paths are looked up by their segment runs; deeper paths keep only their last segments.
MAX_PATH_SEGMENTS = 12


def line_level(line: str) -> Level | None:
    """The level a logger printed `line` at, when its prefix says."""
    head = line[:LEVEL_HEAD_CHARS]
    held = head.__contains__
    glog = GLOG_HEAD_RE.match(head) is not None
    if not glog and not any(map(held, LEVEL_NEEDLES)):
        return None
    for (level, pattern), words in zip(LEVEL_PATTERNS, PATTERN_WORDS, strict=True):
        if (any(map(held, words)) if words else glog) and pattern.search(head):
            return level
    return None


def quieter(line: Level | None, message: Level | None) -> bool:
    """True when a line was logged below the level of the failure message it resembles:
    an INFO line is not the warning or error a reference describes."""
    if line is None or message is None:
        return False
    return LEVEL_RANK[line] <= LEVEL_RANK["info"] < LEVEL_RANK[message]


def normal_output(line: Level | None, message: Level | None) -> bool:
    """True when a line logged at INFO or DEBUG resembles a message that is not such a line
    itself: normal output, which says nothing for or against a cause (vLLM's `Available KV
    cache memory: 52.11 GiB` beside the KV-cache page's `No available memory`)."""
    quiet = ("debug", "info")
    return line in quiet and message not in quiet


def source_paths(text: str) -> list[str]:
    """Distinct source paths the text names, lower-case with forward slashes, in order."""
    seen: dict[str, None] = {}
    for found in SOURCE_EXTENSION_RE.finditer(text):
        start = found.start()
        floor = max(0, start - MAX_PATH_CHARS)
        while start > floor and text[start - 1] in PATH_CHARS:
            start -= 1
        path = text[start : found.end()].replace("\\", "/").lower().lstrip("./")
        if path and path[0] != ".":
            seen.setdefault(path, None)
        if len(seen) >= MAX_SOURCE_PATHS:
            break
    return list(seen)


def path_fragments(path: str) -> Iterable[str]:
    """Every run of whole segments of a path, as code paths are written: `a/b/c.py` gives
    `a/`, `a/b/`, `a/b/c.py`, `b/`, `b/c.py` and `c.py`."""
    segments = path.strip("/").split("/")[-MAX_PATH_SEGMENTS:]
    for start in range(len(segments)):
        for end in range(start + 1, len(segments) + 1):
            run = "/".join(segments[start:end])
            yield run if end == len(segments) else run + "/"


def code_path_hits(text: str, owners: Mapping[str, frozenset[int]]) -> dict[int, str]:
    """References whose code paths the text's frames or prefixes name, with the path."""
    hits: dict[int, str] = {}
    if not owners:
        return hits
    for path in source_paths(text):
        for fragment in path_fragments(path):
            for ref in owners.get(fragment, ()):
                hits.setdefault(ref, fragment)
    return hits
