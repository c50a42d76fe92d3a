"""Which rank and host printed a line, read from the labels launchers and loggers put in
front of it, and which ranks a whole log holds.

Normalisation strips these labels so the same message on 32 ranks is one template; this
module reads them back from the raw text. Every pattern is fixed and linear, and only a
label in the head of a line counts (a label never sits deeper).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# Labels sit at the start of a line, behind a timestamp or another label at most.
HEAD_CHARS = 200
# Ranks beyond this are a misread number, not a rank (the largest jobs have ~100k GPUs).
MAX_RANK = 1_000_000

# torchrun and PyTorch: `[rank3]:`, `[Rank 3]`, c10d's `[PG 0 Rank 3]` and
# `[PG ID 0 PG GUID 0(default_pg) Rank 3]`; vLLM workers `(VllmWorker rank=2 pid=12)`;
# SGLang's `[2025-01-02 03:04:05 TP3]` (only when TP is the one group named: with DP or PP
# beside it the TP number is not a global rank).
# Each starts with a literal, so a search over a whole log skips ahead fast (a pattern
# anchored with `^` is tried at every character).
RANK_RES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\[rank ?(\d{1,7})\]", re.IGNORECASE),
    re.compile(r"\[PG [^\]\n]{0,80}?\bRank (\d{1,7})\]"),
    re.compile(r"\(\w+ rank=(\d{1,7}) pid=\d+\)"),
    re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d TP(\d{1,7})\]"),
)
# NCCL's `host:pid:tid [device]` prefix, the only host label loggers print reliably: found
# by its `:pid:tid [device]` tail, the host read back to the start of the line (after a
# rank label).
HOST_TAIL_RE = re.compile(r":\d+:\d+ \[\d+\]")
HOST_RE = re.compile(r"(?:\[[^\]\n]{1,40}\]:?\s*)?([A-Za-z][\w.-]{0,100})")
# How big a log says the job is, so a log that holds one node's ranks of many is not read
# as holding every rank.
WORLD_SIZE_RE = re.compile(r"world[_ ]size\b\W{0,3}(\d{1,7})", re.IGNORECASE)
WORLD_WORDS = ("world", "World", "WORLD")


@dataclass(frozen=True, slots=True)
class Attribution:
    """The ranks and hosts a set of lines came from."""

    ranks: tuple[int, ...] = ()
    hosts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LineLabels:
    """The rank and host labels of a log's lines, by 1-based line number, read in one pass
    of each pattern over the whole text (a per-line loop costs seconds on a large log)."""

    ranks: Mapping[int, int]
    hosts: Mapping[int, str]
    world_sizes: frozenset[int]


@dataclass(frozen=True, slots=True)
class LogRanks:
    """Every rank and host named anywhere in a log, and whether the ranks are all of them."""

    ranks: tuple[int, ...]
    hosts: tuple[str, ...]
    complete: bool

    def silent(self, shown: Sequence[int]) -> tuple[int, ...]:
        """Ranks that printed something but not `shown`'s line; only when the log has every
        rank (otherwise a rank missing from the paste is not a rank that said nothing)."""
        if not self.complete or not shown:
            return ()
        seen = set(shown)
        return tuple(rank for rank in self.ranks if rank not in seen)


def read_labels(text: str, first_line: int = 1) -> LineLabels:
    """The rank and host each line's label names, when it has one in its head; a text that
    is a later chunk of a log numbers its lines from `first_line`."""
    ranks: dict[int, int] = {}
    for pattern in RANK_RES:
        lines = _LineFinder(text, first_line)
        for found in pattern.finditer(text):
            line = lines.head_line(found.start())
            rank = int(found.group(1))
            if line is not None and rank <= MAX_RANK:
                ranks.setdefault(line, rank)
    hosts: dict[int, str] = {}
    lines = _LineFinder(text, first_line)
    for found in HOST_TAIL_RE.finditer(text):
        line, start = lines.head(found.start())
        head = HOST_RE.fullmatch(text, start, found.start()) if line else None
        if line is not None and head is not None:
            hosts.setdefault(line, head.group(1))
    return LineLabels(ranks, hosts, world_sizes(text))


class _LineFinder:
    """Line numbers of ascending positions in a text, counted as it goes (one pass)."""

    def __init__(self, text: str, first_line: int) -> None:
        self.text = text
        self.position = 0
        self.line = first_line

    def head_line(self, position: int) -> int | None:
        """The 1-based line holding `position`, when it falls in that line's head."""
        return self.head(position)[0]

    def head(self, position: int) -> tuple[int | None, int]:
        """The line holding `position` (None past its head) and where that line starts.
        The start is looked for only within the head, so a 1 MB line full of labels costs
        no more than a short one."""
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        window = max(0, position - HEAD_CHARS)
        newline = self.text.rfind("\n", window, position)
        if newline == -1 and window > 0:
            return None, window
        return self.line, newline + 1


def world_sizes(text: str) -> frozenset[int]:
    """Every world size the log states, found by its word first (a case-insensitive
    pattern run over a whole log costs half a second)."""
    sizes: set[int] = set()
    for word in WORLD_WORDS:
        start = text.find(word)
        while start != -1:
            found = WORLD_SIZE_RE.match(text, start)
            if found is not None:
                sizes.add(int(found.group(1)))
            start = text.find(word, start + 1)
    return frozenset(sizes)


def attribute(labels: LineLabels, numbers: Iterable[int]) -> Attribution:
    """The ranks and hosts of the given 1-based lines."""
    ranks = {labels.ranks[n] for n in numbers if n in labels.ranks}
    hosts = {labels.hosts[n] for n in numbers if n in labels.hosts}
    return Attribution(tuple(sorted(ranks)), tuple(sorted(hosts)))


def log_ranks(labels: LineLabels) -> LogRanks:
    """Every rank and host the log names. The ranks are complete when they run from 0 with
    no gap, there are at least two, and no larger world size is stated."""
    ordered = tuple(sorted(set(labels.ranks.values())))
    contiguous = len(ordered) >= 2 and ordered == tuple(range(len(ordered)))
    complete = contiguous and all(size <= len(ordered) for size in labels.world_sizes)
    return LogRanks(ordered, tuple(sorted(set(labels.hosts.values()))), complete)


def number_ranges(numbers: Iterable[int]) -> str:
    """Numbers written as runs, `0-3, 5, 7-9`, the way ranks and lines are read."""
    ordered = sorted(set(numbers))
    runs: list[tuple[int, int]] = []
    for number in ordered:
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
