"""Which release of the references a load comes from, so that in database mode a replica
started from an older image serves the database's texts and never imports its older files
over newer revisions.

A release is what a folder holds and what reads it: every good file's id and content hash,
every problem, the parser (`parser_version`: the app's code) and the build's name
(`FAILREF_RELEASE`, empty unless set). The first load of a release makes it the newest;
a later load of a release that is known but not the newest is an older image (a replica
not yet replaced in a rolling deploy) and imports nothing, unless the operator rolls back
on purpose (`failref load --roll-back`), which makes it the newest again."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Literal

from sqlmodel import Session, col, select

from ..domain.references.folder import FolderContents
from ..domain.references.reading import parser_version
from .models import ReleaseRow, utc_now

logger = logging.getLogger(__name__)

# What a load makes of its folder's release: `new` (never loaded before: now the newest),
# `newest` (already the newest), `older` (superseded: nothing is imported), `rolled back`
# (superseded, made the newest again on purpose).
Verdict = Literal["new", "newest", "older", "rolled back"]


@dataclass(frozen=True)
class ReleaseCheck:
    """How a load in database mode treats its folder's release: `label` names the build
    (`FAILREF_RELEASE`); `roll_back` takes an older release's files on purpose."""

    label: str = ""
    roll_back: bool = False


def release_stamp(contents: FolderContents, label: str) -> str:
    """The SHA-256 naming a release: the build's name, the parser, and what the folder
    holds (each good file's id and content hash, each problem)."""
    digest = hashlib.sha256(f"{label}\0{parser_version()}\0".encode())
    for reference in sorted(contents.references, key=lambda reference: reference.id):
        digest.update(f"{reference.id}\0{reference.content_hash}\n".encode())
    for problem in contents.problems:
        digest.update(f"{problem}\n".encode())
    return digest.hexdigest()


def newest_release(session: Session) -> ReleaseRow | None:
    """The release whose files a load imports, None before the first load in database mode."""
    query = select(ReleaseRow).order_by(col(ReleaseRow.generation).desc()).limit(1)
    return session.exec(query).first()


def claim_release(session: Session, stamp: str, check: ReleaseCheck) -> Verdict:
    """Where the release `stamp` stands, making it the newest when it is new or rolled back
    to; written in the caller's transaction, which holds the write lock."""
    newest = newest_release(session)
    if newest is not None and newest.stamp == stamp:
        return "newest"
    known = session.get(ReleaseRow, stamp)
    if known is not None and newest is not None and not check.roll_back:
        logger.warning(
            "the references folder is an older release (%s) than the newest one loaded "
            "(%s, since %s): nothing was imported and the database's texts serve; "
            "`failref load --roll-back` takes this folder's files on purpose",
            known.label or stamp[:12],
            newest.label or newest.stamp[:12],
            newest.newest_since.isoformat(timespec="seconds"),
        )
        return "older"
    generation = newest.generation + 1 if newest is not None else 1
    release = known or ReleaseRow(stamp=stamp, label=check.label, generation=generation)
    release.generation, release.newest_since = generation, utc_now()
    session.add(release)
    if known is None:
        return "new"
    logger.warning("rolled back to an older release (%s) on purpose", known.label or stamp[:12])
    return "rolled back"
