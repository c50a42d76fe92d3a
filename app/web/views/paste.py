"""The paste form of the start page: its fields, the run context they give, and what to show.

The routes parse the request into a `PasteForm`; `app.services.analysis` does the matching.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...config import Settings
from ...domain.matching.reading.context import RunContext
from ...domain.matching.reading.lines import count_lines
from ...domain.redact import redact

# A shareable `/?q=` URL stays short enough for chat messages and server logs.
SHARE_MAX_CHARS = 500
# A paste longer than this is not copied back into the form: a browser takes 15-40 s to
# show a page holding 15 MB in a text box, though the answer is ready in under a second.
ECHO_MAX_CHARS = 256_000
CONTEXT_FIELDS = ("framework", "phase", "gpu", "gpus", "model", "notes")
CONTEXT_LABELS = {
    "framework": "Framework",
    "phase": "Phase",
    "gpu": "GPU type",
    "gpus": "GPU count",
    "model": "Model",
    "notes": "Notes",
}


@dataclass(frozen=True, slots=True)
class Example:
    """A real log line that a shipped reference explains, offered as a one-click try."""

    reference_id: str
    line: str


# Real lines from public issues (the labelled set holds their sources); each is matched
# confidently to its reference, which the page tests check on the shipped references.
EXAMPLES = (
    Example(
        "nccl-collective-timeout",
        "[rank2]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, NumelIn=4096, "
        "NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
    ),
    Example(
        "kv-cache-exhaustion",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
    ),
    Example(
        "mixed-precision-nan-divergence",
        "Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
        "Exiting run.",
    ),
    Example(
        "hbm-memory-failures",
        "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, "
        "reset gpu to activate.",
    ),
    Example(
        "deepspeed-zero3-sync-prefetch",
        "Invalidate trace cache @ step 10: expected module 11, but got module 19",
    ),
)


@dataclass(frozen=True, slots=True)
class PasteLimits:
    """How much the paste form takes, as an over-limit page says it."""

    lines: int
    body_bytes: int

    @classmethod
    def of(cls, settings: Settings) -> PasteLimits:
        return cls(settings.max_log_lines, settings.max_body_bytes)


@dataclass(frozen=True, slots=True)
class NotEchoed:
    """The size of a paste the form does not copy back, as the page says it."""

    lines: int
    megabytes: float


@dataclass(frozen=True, slots=True)
class PasteForm:
    """The text and run context as typed; strings throughout, so the form refills as typed."""

    log: str = ""
    framework: str = ""
    phase: str = ""
    gpu: str = ""
    gpus: str = ""
    model: str = ""
    notes: str = ""

    @classmethod
    def of(cls, log: str, **context: str) -> PasteForm:
        """A form with browser line endings (CRLF) turned into plain newlines."""
        return cls(log.replace("\r\n", "\n"), **{k: v.strip() for k, v in context.items()})

    def run_context(self) -> RunContext:
        """The run context the user gave, as typed: every field is read, none refused
        (`reading.context.read_context` reports what it could not read)."""
        return RunContext(**{name: getattr(self, name) or None for name in CONTEXT_FIELDS})

    def context_values(self) -> dict[str, str]:
        """The context fields the user filled in."""
        return {name: getattr(self, name) for name in CONTEXT_FIELDS if getattr(self, name)}

    def echoed(self) -> tuple[PasteForm, NotEchoed | None]:
        """The form as the page refills it: a paste over `ECHO_MAX_CHARS` is left out, and
        its size said instead."""
        if len(self.log) <= ECHO_MAX_CHARS:
            return self, None
        size = NotEchoed(count_lines(self.log), len(self.log.encode()) / 1_000_000)
        return replace(self, log=""), size

    def with_inferred(self, inferred: dict[str, str]) -> tuple[PasteForm, frozenset[str]]:
        """The form with empty context fields filled from the text, and which ones were."""
        filled = {
            name: value
            for name, value in inferred.items()
            if name in CONTEXT_FIELDS and not getattr(self, name)
        }
        return replace(self, **filled), frozenset(filled)

    def share_query(self) -> dict[str, str] | None:
        """The `/?q=` parameters of a short single line; None when too long or holding what
        redaction removes."""
        text = self.log.strip()
        if not text or len(text) > SHARE_MAX_CHARS or "\n" in text:
            return None
        query = {"q": text, **self.context_values()}
        # A link puts its values in URLs (history, proxies, chat): never one holding
        # anything redaction removes (a secret, an address, a host or user name), in the
        # message or in any context field.
        if any(redact(value) != value for value in query.values()):
            return None
        return query
