"""Match a pasted message or scan a whole log against the catalog; one entry point for the
pages, the JSON API, the MCP tools and the CLI, so all four answer alike."""

from __future__ import annotations

from app.catalog import Catalog
from app.errors import InvalidInput
from app.matcher import LogTooLarge, MatchResult, RunContext, ScanResult, match_text, scan_log

DEFAULT_LIMIT = 5
MAX_LIMIT = 50  # more than every reference a person reads; keeps responses small


def match_message(
    catalog: Catalog, text: str, context: RunContext | None = None, limit: int = DEFAULT_LIMIT
) -> MatchResult:
    """Rank the references for one message (a line, or a block such as a traceback)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit: must be between 1 and {MAX_LIMIT}", field="limit")
    try:
        return match_text(catalog.index, text, context, limit)
    except LogTooLarge as error:
        raise InvalidInput(f"log: {error}", field="log") from None


def scan_text(catalog: Catalog, log: str, context: RunContext | None, max_lines: int) -> ScanResult:
    """Find every reference a whole log shows, with line numbers and counts."""
    try:
        return scan_log(catalog.index, log, context, max_lines=max_lines)
    except LogTooLarge as error:
        raise InvalidInput(f"log: {error}", field="log") from None


def looks_like_a_log(text: str) -> bool:
    """A paste of many lines is scanned as a log; a line or a short block is matched."""
    return text.count("\n") >= LOG_LINE_THRESHOLD


# A traceback or an NCCL error block is rarely longer than this; longer pastes are logs.
LOG_LINE_THRESHOLD = 30
