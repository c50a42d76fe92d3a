"""What a scan reads from a log before matching: its lines grouped, the rank and host
labels, the head that context and evidence come from, and what was skipped; read from one
text or a chunk at a time (a long log on the command line is never held whole)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..judging.candidates import MAX_EVIDENCE_CHARS
from ..reading.grouping import LineGrouper, TemplateGroup
from ..reading.lines import NOTHING_READ, ReadingFacts, split_lines
from .ranks import LineLabels, read_labels, world_sizes

# Enough of the previous chunk's end for a `world_size: 8` split over two chunks (the word,
# three separators and the number).
WORLD_TAIL_CHARS = 32


@dataclass(frozen=True, slots=True)
class LogRead:
    """A log, read: every line by position, its groups and labels, its head and notes."""

    lines: Sequence[str]
    groups: list[TemplateGroup]
    labels: LineLabels
    head: str
    facts: ReadingFacts


class LogReader:
    """Reads a log a chunk of whole lines at a time, keeping what grows with its distinct
    lines and its labelled ones, and the first MAX_EVIDENCE_CHARS of text."""

    def __init__(self) -> None:
        self.grouper = LineGrouper()
        self.facts = NOTHING_READ
        self._ranks: dict[int, int] = {}
        self._hosts: dict[int, str] = {}
        self._world: set[int] = set()
        self._head: list[str] = []
        self._head_chars = 0
        self._tail = ""

    @property
    def lines(self) -> int:
        """Lines read so far."""
        return self.grouper.lines

    def feed(self, text: str, lines: Sequence[str] | None = None) -> None:
        """Read the next chunk: whole lines, each ending with a newline but perhaps the last
        chunk's last one (`lines`, when given, are `split_lines(text)`)."""
        split = split_lines(text) if lines is None else lines
        labels = read_labels(text, self.grouper.lines + 1)
        self._ranks.update(labels.ranks)
        self._hosts.update(labels.hosts)
        self._world.update(labels.world_sizes, world_sizes(self._tail + text[:WORLD_TAIL_CHARS]))
        self._tail = text[-WORLD_TAIL_CHARS:]
        if self._head_chars < MAX_EVIDENCE_CHARS:
            self._head.append(text[: MAX_EVIDENCE_CHARS - self._head_chars])
            self._head_chars += len(self._head[-1])
        self.facts = self.facts + ReadingFacts.of(text, split)
        self.grouper.add(split)

    def finish(self, lines: Sequence[str]) -> LogRead:
        """The log read, given every line by position (the chunks' lines, in order)."""
        labels = LineLabels(self._ranks, self._hosts, frozenset(self._world))
        groups = self.grouper.groups(lines) if self.facts.has_text else []
        return LogRead(lines, groups, labels, "".join(self._head), self.facts)


def read_log(log: str) -> LogRead:
    """A whole log held in memory, read in one chunk."""
    lines = split_lines(log)
    reader = LogReader()
    reader.feed(log, lines)
    return reader.finish(lines)
