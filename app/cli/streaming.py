"""A log file read for `failref scan` a chunk at a time: each chunk's lines go to a
temporary spool on disk and through the scan's reader, so memory grows with the log's
distinct lines and labels, not with its length; progress goes to standard error."""

from __future__ import annotations

import os
import sys
import tempfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO, TextIO, overload

import click

from ..domain.matching.logs.logread import LogRead, LogReader
from ..domain.matching.reading.lines import split_lines

# Characters read at once: large enough that the per-chunk passes cost nothing, small
# beside the memory a million-line log's templates take.
CHUNK_CHARS = 1024 * 1024
PROGRESS_MIN_BYTES = 8 * 1024 * 1024  # below this, reading is instant and a bar only flickers


class SpooledLines(Sequence[str]):
    """Every line of a log by position, read back from the spool when asked for."""

    def __init__(self, spool: BinaryIO, ends: array[int]) -> None:
        self._fd = spool.fileno()
        self._ends = ends

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, position: int) -> str: ...
    @overload
    def __getitem__(self, position: slice) -> list[str]: ...
    def __getitem__(self, position: int | slice) -> str | list[str]:
        if isinstance(position, slice):
            start, stop, step = position.indices(len(self))
            if step != 1:
                return [self[n] for n in range(start, stop, step)]
            return self._span(start, stop) if start < stop else []
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self._span(position, position + 1)[0]

    def _span(self, start: int, stop: int) -> list[str]:
        begin = self._ends[start - 1] if start else 0
        data = os.pread(self._fd, self._ends[stop - 1] - begin, begin).decode("utf-8")
        return [line.removesuffix("\r") for line in data.split("\n")[: stop - start]]


@contextmanager
def read_in_chunks(file: TextIO, chunk_chars: int = CHUNK_CHARS) -> Iterator[LogRead]:
    """The log in `file` read a chunk at a time; its lines stay readable (from the spool)
    while the context is open."""
    with tempfile.TemporaryFile(prefix="failref-scan-") as spool:
        reader = LogReader()
        ends: array[int] = array("q")
        with _progress(file) as advance:
            carry = ""
            while chunk := file.read(chunk_chars):
                text = carry + chunk
                cut = text.rfind("\n") + 1
                carry = text[cut:]
                if cut:
                    _feed(reader, spool, ends, text[:cut])
                advance(len(chunk))
            if carry:
                _feed(reader, spool, ends, carry)
        spool.flush()
        yield reader.finish(SpooledLines(spool, ends))


def _feed(reader: LogReader, spool: BinaryIO, ends: array[int], text: str) -> None:
    """One chunk of whole lines into the reader and onto the spool, with each line's end."""
    lines = split_lines(text)
    reader.feed(text, lines)
    offset = ends[-1] if ends else 0
    encoded = text.encode("utf-8")
    spool.write(encoded)
    for line in encoded.split(b"\n")[: len(lines)]:
        offset += len(line) + 1
        ends.append(offset)
    if not text.endswith("\n"):  # the log's last line, without a newline of its own
        ends[-1] -= 1


@contextmanager
def _progress(file: TextIO) -> Iterator[Callable[[int], None]]:
    """A progress bar over the file's size on a terminal, for a large file; else nothing."""
    size = _size_of(file)
    if size is None or size < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
        yield lambda _: None
        return
    with click.progressbar(length=size, label="reading", file=sys.stderr) as bar:
        yield bar.update


def _size_of(file: TextIO) -> int | None:
    try:
        return os.fstat(file.fileno()).st_size or None
    except (OSError, ValueError):
        return None
