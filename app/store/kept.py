"""Pastes kept so that their results have links: stored redacted (the caller redacts) and
compressed, read back by their token, deleted after their retention or when the kept pastes
outgrow their budget (the oldest first)."""

from __future__ import annotations

import datetime as dt
import json
import zlib
from dataclasses import dataclass

from sqlalchemy import Engine, func
from sqlmodel import Session, col, delete, select

from .db import forget_deleted, reading, writing
from .models import KeptPasteRow, utc_now

# Logs compress well (repeated prefixes, timestamps); level 6 is zlib's own default
# trade-off, about 30 MB/s here.
COMPRESSION_LEVEL = 6


@dataclass(frozen=True, slots=True)
class KeptPaste:
    """A kept paste as read back: the redacted text and context, and when it was kept."""

    token: str
    text: str
    context: dict[str, str]
    lines: int
    created_at: dt.datetime


def keep_paste(engine: Engine, paste: KeptPaste) -> int:
    """Store a paste already redacted; returns the bytes it costs."""
    text_z = zlib.compress(paste.text.encode(), COMPRESSION_LEVEL)
    row = KeptPasteRow(
        id=paste.token,
        text_z=text_z,
        context=json.dumps(paste.context, sort_keys=True),
        lines=paste.lines,
        stored_bytes=len(text_z),
        created_at=paste.created_at,
    )
    with writing(engine) as session:
        session.add(row)
        session.commit()
    return len(text_z)


def read_kept(engine: Engine, token: str, older_than: dt.timedelta) -> KeptPaste | None:
    """The paste kept under `token`, unless there is none or it is past `older_than` (a row
    the hourly pruning has not reached yet is already gone for readers)."""
    with reading(engine) as session:
        row = session.get(KeptPasteRow, token)
    if row is None or row.created_at < utc_now() - older_than:
        return None
    return KeptPaste(
        token=row.id,
        text=zlib.decompress(row.text_z).decode(),
        context=json.loads(row.context),
        lines=row.lines,
        created_at=row.created_at,
    )


def prune_kept(session: Session, older_than: dt.timedelta, budget_bytes: int) -> int:
    """Delete kept pastes past `older_than`, then the oldest until the rest fit in
    `budget_bytes`; returns how many went."""
    cutoff = utc_now() - older_than
    stale = set(session.exec(select(KeptPasteRow.id).where(col(KeptPasteRow.created_at) < cutoff)))
    total = session.exec(select(func.coalesce(func.sum(KeptPasteRow.stored_bytes), 0))).one()
    if total > budget_bytes:
        newest_first = select(KeptPasteRow.id, KeptPasteRow.stored_bytes).order_by(
            col(KeptPasteRow.created_at).desc()
        )
        kept_bytes = 0
        for token, size in session.exec(newest_first):
            kept_bytes += size
            if kept_bytes > budget_bytes:
                stale.add(token)
    if stale:
        session.exec(delete(KeptPasteRow).where(col(KeptPasteRow.id).in_(list(stale))))
    session.commit()
    forget_deleted(session)
    return len(stale)
