"""Lines that are not a failure of their own: what launchers, engines and actors print on
top of the real error (torchrun's summary and SIGTERM forwarding, "See root cause above",
a dead Ray actor), and the scaffolding of a traceback (its header, frames and chaining
lines, the C++ frames under a `what():`). And lines that state a failure: an exception,
a crash, a fatal signal, an error as Unix tools print it. A whole log's story is told with them
(`logs.story`): the first line that states a failure is where it went wrong, covered by a
page or not, and the wrappers fold under it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .evidence import line_level

# What launchers, engines and actor frameworks print when something below them failed.
WRAPPER_RE = re.compile(
    r"ChildFailedError|<NO_OTHER_FAILURES>|Root Cause \(first observed failure\)"
    r"|^\s*Failures:\s*$|failed \(exitcode: -?\d+\) local_rank: \d+"
    r"|Sending process \d+ closing signal SIG[A-Z]+|SignalException: Process \d+ got signal"
    r"|^\s*(?:exitcode|error_file|traceback|rank|local_rank|host|time)\s*: "
    r"|^\s*\S+ FAILED\s*$|^\s*\[\d+\]:\s*$|elastic\.multiprocessing\.\w+:\[?(?:ERROR|WARNING)"
    r"|See root cause above|EngineDeadError|EngineCore failed to start"
    r"|WorkerProc (?:initialization )?failed|Received sigquit from a child process"
    r"|The actor is dead|ActorDiedError|RayActorError|A worker died or was killed"
    r"|Worker exit type|scheduler is dead"
)
# A traceback's scaffolding, behind whatever prefix the logger writes (vLLM logs every
# traceback line at ERROR): the failure is stated by its exception line, not by these.
SCAFFOLD_RE = re.compile(
    r"Traceback \(most recent call last\)|\bFile \".*\", line \d+, in "
    r"|During handling of the above exception|The above exception was the direct cause"
    r"|Exception raised from |(?:^|\s)frame #\d+:|\s[~^]{3,}\s*$|(?:^|\]\s|\s{2})raise \w"
    r"|(?:^|\]\s|\s{2})return \w|^\s*(?:\w+\s*=\s*)?await \w"
)
# An exception named as Python names them, ending the traceback: `RuntimeError: ...`,
# `torch.OutOfMemoryError: ...`, `AssertionError` alone.
EXCEPTION_RE = re.compile(
    r"(?:^|[\s:\]>|)])(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)"
    r"(?::\s|:$|$)"
)
# Crashes, fatal signals, kernel Xid events, allocation failures, and errors as Unix
# tools and compilers print them (`slurmstepd: error: ...`, `x.c:1:10: fatal error: ...`).
CRASH_RE = re.compile(
    r"Segmentation fault|core dumped|Fatal Python error|terminate called|\bBus error\b"
    r"|^\s*Killed\s*$|\bAborted\b|CUDA error:|NCCL error:|NCCL error in:|Signals\.SIG[A-Z]+"
    r"|\bSIG(?:SEGV|ABRT|BUS|ILL)\b|\bout of memory\b|NVRM: Xid \(|\bfatal error:"
    r"|^\S+: error: |^\S+:\d+:\d+: error:|\bException in (?:worker|thread|callback)\b"
)
# A line is read this far for what it states.
LINE_CHARS = 2000


TRACEBACK_HEAD = "Traceback (most recent call last)"
# How far after a line a traceback may start and still be what it announces, and how long
# a traceback is followed to its exception line.
TRACEBACK_GAP = 3
TRACEBACK_LINES = 400


def exception_line(lines: Sequence[str], number: int) -> int | None:
    """When line `number` (1-based) announces a traceback (a logger's message such as
    `Exception in worker ...: <error>`, not an exception line itself) and one starts within
    TRACEBACK_GAP lines after it, the number of the line stating its exception: the first
    line after its frames that is not scaffolding and states a failure; None otherwise."""
    if EXCEPTION_RE.search(lines[number - 1]):
        return None  # the end of a traceback already: what follows is another event
    start = None
    for later in range(number, min(len(lines), number + TRACEBACK_GAP)):
        if TRACEBACK_HEAD in lines[later]:
            start = later + 1
            break
    if start is None:
        return None
    for later in range(start, min(len(lines), start + TRACEBACK_LINES)):
        line = lines[later]
        if TRACEBACK_HEAD in line:
            continue
        if not is_scaffold(line) and states_a_failure(line):
            return later + 1
    return None


def is_wrapper(line: str) -> bool:
    """A line a launcher, engine or actor framework prints on top of the real error."""
    return WRAPPER_RE.search(line) is not None


def is_scaffold(line: str) -> bool:
    """A traceback's header, a frame, a chaining line or a C++ frame."""
    return SCAFFOLD_RE.search(line) is not None


def states_a_failure(line: str) -> bool:
    """A line that states a failure of its own: an exception, a crash or fatal signal, an
    error as Unix tools and compilers print it; never a wrapper, a traceback's
    scaffolding, or a line logged at INFO, DEBUG or WARNING (a logger's level alone says
    nothing: vLLM logs every line of a traceback at ERROR)."""
    if is_wrapper(line) or is_scaffold(line):
        return False
    if line_level(line) in ("debug", "info", "warning"):
        return False
    return bool(EXCEPTION_RE.search(line) or CRASH_RE.search(line))


# Pieces one of which a line stating a failure holds, lower case (`in`, before the regexes).
FAILURE_NEEDLES = (
    "error",
    "exception",
    "exit",
    "interrupt",
    "fault",
    "fatal",
    "dumped",
    "terminate",
    "killed",
    "abort",
    "sig",
    "memory",
    "xid",
)


def failure_statements(
    firsts: Iterable[tuple[int, Sequence[int], str]], limit: int
) -> list[tuple[int, list[int], str]]:
    """The first `limit` distinct lines that state a failure, by first line: from (first
    line number, line numbers, raw first line) of each distinct line of a log."""
    found = []
    for first, numbers, raw in sorted(firsts, key=lambda item: item[0]):
        lowered = raw[:LINE_CHARS].lower()
        if any(needle in lowered for needle in FAILURE_NEEDLES) and states_a_failure(raw):
            found.append((first, list(numbers), raw))
            if len(found) >= limit:
                break
    return found
