"""Queries that found no confident match: what the docs team should write next.

Only redacted, normalised text is stored (see app.domain.redact), grouped by template with a
count; no IP, user or session is ever attached to a row.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Engine, func
from sqlmodel import Session, col, delete, select

from ..config import GAPS_PAGE_SIZE, Settings
from ..domain.matching.reading.normalize import normalize_line
from ..domain.matching.reading.teardown import is_scaffold, is_wrapper, states_a_failure
from ..domain.redact import redact
from .db import forget_deleted, writing
from .models import GapRow, utc_now

MAX_STORED_CHARS = 2000  # a template longer than this is cut; the column holds no more
MAX_CONTEXT_CHARS = 300  # the run context kept with a gap's latest example
# What of a line is redacted before the cut: twice what is stored, ended at a word, so a
# secret is never cut in two before redaction (its start stored, unrecognised), and a
# 10 MB line costs no more than a short one.
REDACTED_CHARS = 2 * MAX_STORED_CHARS
NON_BLANK_RE = re.compile(r"\S")
# Lines of a query looked at for the one worth a gap (a traceback's exception is at its end).
GAP_LINES_READ = 200
# A query of fewer words and characters than these, stating no failure, is a look-up.
LOOK_UP_WORDS = 3
LOOK_UP_CHARS = 24
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
    return _cut(window.splitlines()[0])


def _cut(line: str) -> str:
    if len(line) <= REDACTED_CHARS:
        return line
    cut = max(line.rfind(" ", 0, REDACTED_CHARS), line.rfind("\t", 0, REDACTED_CHARS))
    return line[: cut if cut > 0 else REDACTED_CHARS]


def telling_line(text: str) -> str:
    """The line of a query worth a gap: the first that states a failure (a traceback's
    exception, not its header), else the first that is neither a traceback's scaffolding
    nor a launcher's summary around another error; "" when there is none (torchrun's
    `Failures:` and `<NO_OTHER_FAILURES>` alone) or when the query is a look-up of a few
    words (`oom`, `NCCL timeout`): a search, not a line a log printed. The first
    GAP_LINES_READ lines are read, each at most REDACTED_CHARS."""
    fallback = ""
    for raw in text[: GAP_LINES_READ * (REDACTED_CHARS + 1)].splitlines()[:GAP_LINES_READ]:
        line = _cut(raw)
        if not line.strip() or is_scaffold(line) or is_wrapper(line):
            continue
        if states_a_failure(line):
            return line
        fallback = fallback or line
    words = fallback.split()
    if len(words) < LOOK_UP_WORDS and len(fallback.strip()) < LOOK_UP_CHARS:
        return ""
    return fallback


class Template(NamedTuple):
    """A gap as stored: its template (the grouping key), its latest example and the run
    context given with that example, all redacted."""

    template: str
    example: str
    context: str = ""


def gap_template(text: str, context: str = "") -> Template | None:
    """The template, example and context of a query: its telling line, redacted, then
    masked, and the context as the asker described the run (redacted, cut to
    MAX_CONTEXT_CHARS); None when it has no line worth a gap."""
    line = telling_line(text)
    if not line:
        return None
    redacted = redact(line)
    example = visible(redacted)[:MAX_STORED_CHARS]
    template = visible(normalize_line(redacted))[:MAX_STORED_CHARS]
    described = (
        visible(redact(context[: 2 * MAX_CONTEXT_CHARS]))[:MAX_CONTEXT_CHARS] if context else ""
    )
    return Template(template, example, described) if template.strip() else None


def today() -> dt.datetime:
    """Midnight UTC of today: when a gap was seen is kept to the day, so its times cannot
    be lined up with an access log to find who asked."""
    return utc_now().replace(hour=0, minute=0, second=0, microsecond=0)


def record_gap(session: Session, text: str) -> GapRow | None:
    """Count one unanswered query under its template; the caller commits."""
    found = gap_template(text)
    if found is None:
        return None
    template, example, _ = found
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
    counted: dict[str, tuple[int, Template]] = {}
    for each in found:
        times, _ = counted.get(each.template, (0, each))
        counted[each.template] = (times + 1, each)
    with writing(engine) as session:
        known = session.exec(select(GapRow).where(col(GapRow.template).in_(list(counted))))
        rows = {row.template: row for row in known}
        for template, (times, latest) in counted.items():
            row = rows.get(template)
            if row is None:
                row = GapRow(template=template, example=latest.example, count=0)
                row.first_seen = today()
            row.count += times
            row.last_seen = today()
            row.example = latest.example
            row.context = latest.context
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


def list_gaps(
    session: Session, limit: int = GAPS_PAGE_SIZE, *, dismissed: bool = False
) -> list[GapRow]:
    """The most asked unanswered templates first, then the most recent: those still open,
    or (`dismissed`) those an editor set aside."""
    query = (
        select(GapRow)
        .where(GapRow.dismissed == dismissed)
        .order_by(col(GapRow.count).desc(), col(GapRow.last_seen).desc())
    )
    return list(session.exec(query.limit(limit)).all())


def count_dismissed(session: Session) -> int:
    """How many gaps an editor set aside."""
    query = select(func.count()).select_from(GapRow).where(GapRow.dismissed == True)  # noqa: E712
    return session.exec(query).one()


def set_dismissed(engine: Engine, gap_id: int, dismissed: bool) -> bool:
    """Set a gap aside (it stays counted, off the list) or back; False when it is gone."""
    with writing(engine) as session:
        row = session.get(GapRow, gap_id)
        if row is None:
            return False
        row.dismissed = dismissed
        session.add(row)
        session.commit()
    return True


def prune_gaps(session: Session, older_than: dt.timedelta) -> int:
    """Delete gaps not seen within `older_than`; returns how many went."""
    cutoff = utc_now() - older_than
    stale = session.exec(select(GapRow.id).where(col(GapRow.last_seen) < cutoff)).all()
    session.exec(delete(GapRow).where(col(GapRow.id).in_(stale)))
    session.commit()
    forget_deleted(session)
    return len(stale)
