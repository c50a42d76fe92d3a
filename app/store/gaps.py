"""Queries that found no confident match: what the docs team should write next.

Only redacted, normalised text is stored (see app.domain.redact), grouped by template with a
count; no IP, user or session is ever attached to a row.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence

from sqlalchemy import Engine
from sqlmodel import Session, col, delete, select

from ..config import GAPS_PAGE_SIZE, Settings
from ..domain.matching.reading.normalize import normalize_line
from ..domain.redact import redact
from .db import forget_deleted, writing
from .models import GapRow, utc_now

MAX_STORED_CHARS = 2000  # a template longer than this is cut; the column holds no more
# What of a line is redacted before the cut: twice what is stored, ended at a word, so a
# secret is never cut in two before redaction (its start stored, unrecognised), and a
# 10 MB line costs no more than a short one.
REDACTED_CHARS = 2 * MAX_STORED_CHARS
NON_BLANK_RE = re.compile(r"\S")
# Control and format characters (ANSI escapes, bidi overrides, zero-width marks) are stored as
# visible escapes: on the admin page they could otherwise hide or reorder what was pasted.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def visible(text: str) -> str:
    """`text` with every control or format character written as a `\\uXXXX` escape."""
    return "".join(
        f"\\u{ord(char):04x}"
        if unicodedata.category(char) in INVISIBLE_CATEGORIES and char != "\t"
        else char
        for char in text
    )


def first_line(text: str) -> str:
    """The first non-blank line of `text`, at most REDACTED_CHARS of it and ended at a word
    when cut; the rest of the text is never read."""
    found = NON_BLANK_RE.search(text)
    if found is None:
        return ""
    start = found.start()
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    window = text[start : start + REDACTED_CHARS + 1]
    line = window.splitlines()[0]
    if len(line) > REDACTED_CHARS:
        cut = max(line.rfind(" ", 0, REDACTED_CHARS), line.rfind("\t", 0, REDACTED_CHARS))
        line = line[: cut if cut > 0 else REDACTED_CHARS]
    return line


# A gap as stored: its template (the grouping key) and its latest example.
Template = tuple[str, str]


def gap_template(text: str) -> Template | None:
    """(template, example) for a query: its first non-blank line, redacted, then masked."""
    first = first_line(text)
    if not first:
        return None
    redacted = redact(first)
    example = visible(redacted)[:MAX_STORED_CHARS]
    template = visible(normalize_line(redacted))[:MAX_STORED_CHARS]
    return (template, example) if template.strip() else None


def today() -> dt.datetime:
    """Midnight UTC of today: when a gap was seen is kept to the day, so its times cannot
    be lined up with an access log to find who asked."""
    return utc_now().replace(hour=0, minute=0, second=0, microsecond=0)


def record_gap(session: Session, text: str) -> GapRow | None:
    """Count one unanswered query under its template; the caller commits."""
    found = gap_template(text)
    if found is None:
        return None
    template, example = found
    row = session.exec(select(GapRow).where(GapRow.template == template)).first()
    if row is None:
        row = GapRow(template=template, example=example, first_seen=today(), last_seen=today())
        session.add(row)
        return row
    row.count += 1
    row.last_seen = today()
    row.example = example
    session.add(row)
    return row


def store_templates(engine: Engine, found: Sequence[Template]) -> None:
    """Count gaps already redacted and templated (`gap_template`), in one short
    transaction: each template once, with how often it came and its latest example, the
    rows it already has read in one query."""
    counted: dict[str, tuple[int, str]] = {}
    for template, example in found:
        times, _ = counted.get(template, (0, ""))
        counted[template] = (times + 1, example)
    with writing(engine) as session:
        known = session.exec(select(GapRow).where(col(GapRow.template).in_(list(counted))))
        rows = {row.template: row for row in known}
        for template, (times, example) in counted.items():
            row = rows.get(template)
            if row is None:
                row = GapRow(template=template, example=example, count=0, first_seen=today())
            row.count += times
            row.last_seen = today()
            row.example = example
            session.add(row)
        session.commit()


def remember_disputed(engine: Engine, settings: Settings, text: str, reference_id: str) -> None:
    """Record `text` as a gap that `reference_id` answered confidently but, a reader says,
    wrongly: confident-but-wrong answers reach the docs team too (redacted like the rest,
    and only when storing is on)."""
    if not settings.store_queries or settings.read_only:
        return
    with writing(engine) as session:
        row = record_gap(session, text)
        if row is not None:
            row.disputed_id = reference_id
            session.add(row)
        session.commit()


def list_gaps(session: Session, limit: int = GAPS_PAGE_SIZE) -> list[GapRow]:
    """The most asked unanswered templates first, then the most recent."""
    query = select(GapRow).order_by(col(GapRow.count).desc(), col(GapRow.last_seen).desc())
    return list(session.exec(query.limit(limit)).all())


def prune_gaps(session: Session, older_than: dt.timedelta) -> int:
    """Delete gaps not seen within `older_than`; returns how many went."""
    cutoff = utc_now() - older_than
    stale = session.exec(select(GapRow.id).where(col(GapRow.last_seen) < cutoff)).all()
    session.exec(delete(GapRow).where(col(GapRow.id).in_(stale)))
    session.commit()
    forget_deleted(session)
    return len(stale)
