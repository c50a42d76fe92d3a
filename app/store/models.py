"""Database tables: the index of references, their aliases, their revisions, the
references the folder and the database both changed (conflicts) and the releases of the
folder that loads came from."""

from __future__ import annotations

import datetime as dt

from sqlmodel import Field, SQLModel


def utc_now() -> dt.datetime:
    """The current time in UTC, as stored in every timestamp column."""
    return dt.datetime.now(dt.UTC)


class ReferenceRow(SQLModel, table=True):
    """One loaded reference: a few columns to list by, the parsed document as JSON."""

    __tablename__ = "reference"

    id: str = Field(primary_key=True, max_length=80)
    title: str
    category: str = Field(index=True)
    path: str
    content_hash: str = Field(max_length=64, description="SHA-256 of the current text.")
    imported_hash: str | None = Field(
        default=None,
        max_length=64,
        description="SHA-256 of the folder's file when it was last imported; None for a "
        "reference created in the database, which no folder has held yet.",
    )
    document: str = Field(description="The parsed Reference as JSON.")
    loaded_at: dt.datetime = Field(default_factory=utc_now)
    reading: str | None = Field(
        default=None,
        max_length=64,
        description="`reading_of(document)` when the document is this parser's reading of "
        "the folder's file; None when it was written otherwise (a save).",
    )


class AliasRow(SQLModel, table=True):
    """A former id of a reference; `/r/<alias>` redirects to it."""

    __tablename__ = "alias"

    alias: str = Field(primary_key=True, max_length=80)
    reference_id: str = Field(foreign_key="reference.id", index=True, ondelete="CASCADE")


class RevisionRow(SQLModel, table=True):
    """A version of a reference file, whoever made it (an editor, or "files" for git)."""

    __tablename__ = "revision"

    id: int | None = Field(default=None, primary_key=True)
    reference_id: str = Field(index=True, max_length=80)
    content_hash: str = Field(max_length=64)
    content: str
    author: str
    message: str
    created_at: dt.datetime = Field(default_factory=utc_now, index=True)


class EditorRow(SQLModel, table=True):
    """Someone allowed to edit references; the token is kept only as a KDF hash."""

    __tablename__ = "editor"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=64)
    token_hash: str = Field(description="scrypt$n$r$p$salt$hash of the token's secret part.")
    created_at: dt.datetime = Field(default_factory=utc_now)
    revoked_at: dt.datetime | None = None


class SessionRow(SQLModel, table=True):
    """A browser login; the cookie holds a random id, the row holds only its SHA-256."""

    __tablename__ = "editor_session"

    id_hash: str = Field(primary_key=True, max_length=64)
    editor_id: int = Field(foreign_key="editor.id", index=True, ondelete="CASCADE")
    csrf_token: str = Field(max_length=64)
    created_at: dt.datetime = Field(default_factory=utc_now)
    expires_at: dt.datetime


class GapRow(SQLModel, table=True):
    """A query that found no confident match: redacted and normalised, counted, never raw."""

    __tablename__ = "gap"

    id: int | None = Field(default=None, primary_key=True)
    template: str = Field(unique=True, max_length=2000)
    example: str = Field(max_length=2000, description="One redacted line as pasted.")
    count: int = 1
    first_seen: dt.datetime = Field(default_factory=utc_now)
    last_seen: dt.datetime = Field(default_factory=utc_now, index=True)
    disputed_id: str | None = Field(
        default=None,
        max_length=80,
        description="The reference a reader said was wrong for it, though it matched "
        "confidently (the latest such report).",
    )
    context: str = Field(
        default="",
        max_length=300,
        description="The run context given with the latest example, redacted.",
    )
    dismissed: bool = Field(
        default=False, description="An editor set it aside: counted still, off the list."
    )


class FeedbackRow(SQLModel, table=True):
    """A reader's answer to "did this help?" for one reference."""

    __tablename__ = "feedback"

    id: int | None = Field(default=None, primary_key=True)
    reference_id: str = Field(index=True, max_length=80)
    helpful: bool
    created_at: dt.datetime = Field(default_factory=utc_now)


class OutcomeRow(SQLModel, table=True):
    """A reader's "this was it" for one cause of a reference (a symptom's candidate)."""

    __tablename__ = "cause_outcome"

    id: int | None = Field(default=None, primary_key=True)
    reference_id: str = Field(index=True, max_length=80)
    cause: int = Field(description="The cause's number in the reference's list, 1-based.")
    created_at: dt.datetime = Field(default_factory=utc_now)


class DraftRow(SQLModel, table=True):
    """Text an editor submitted that could not be saved (a conflict): kept, never lost."""

    __tablename__ = "draft"

    id: int | None = Field(default=None, primary_key=True)
    editor_id: int = Field(foreign_key="editor.id", index=True, ondelete="CASCADE")
    reference_id: str = Field(index=True, max_length=80)
    text: str
    created_at: dt.datetime = Field(default_factory=utc_now)


class IndexStateRow(SQLModel, table=True):
    """One row counting changes to the index, so every worker process notices a save or a
    reload made by another one and swaps in a fresh catalog."""

    __tablename__ = "index_state"

    id: int = Field(default=1, primary_key=True)
    version: int = 0


class ConflictRow(SQLModel, table=True):
    """A reference whose file and database text both changed since its last import: the
    database text keeps serving until one side takes the other's (each load rewrites these)."""

    __tablename__ = "conflict"

    reference_id: str = Field(primary_key=True, max_length=80)
    folder_hash: str | None = Field(default=None, max_length=64)
    folder_text: str | None = Field(default=None, description="None: the file was deleted.")
    database_hash: str = Field(max_length=64)
    found_at: dt.datetime = Field(default_factory=utc_now)


class ReleaseRow(SQLModel, table=True):
    """A release of the references folder some load came from in database mode (see
    `store/releases.py`); a load imports only the newest one's files."""

    __tablename__ = "folder_release"

    stamp: str = Field(
        primary_key=True,
        max_length=64,
        description="SHA-256 of the build's name, the parser and the folder's files.",
    )
    label: str = Field(default="", max_length=200, description="FAILREF_RELEASE of the build.")
    generation: int = Field(
        index=True, description="Raised each time a release becomes the newest: the highest is."
    )
    newest_since: dt.datetime = Field(default_factory=utc_now)


class KeptPasteRow(SQLModel, table=True):
    """A paste kept so that its result has a link: redacted before it is stored, compressed,
    deleted after its retention (or sooner when the kept pastes outgrow their budget)."""

    __tablename__ = "kept_paste"

    id: str = Field(primary_key=True, max_length=32, description="The link's random token.")
    text_z: bytes = Field(description="The redacted paste, zlib-compressed UTF-8.")
    context: str = Field(description="The redacted run-context fields as typed, as JSON.")
    lines: int
    stored_bytes: int = Field(description="len(text_z): what the row costs, for the budget.")
    created_at: dt.datetime = Field(default_factory=utc_now, index=True)


class RetiredRow(SQLModel, table=True):
    """A reference taken out of the index on purpose: its revisions stay, its id answers
    410 (or sends to the reference that replaced it) until a text of it is saved again."""

    __tablename__ = "retired_reference"

    reference_id: str = Field(primary_key=True, max_length=80)
    title: str
    content_hash: str = Field(max_length=64, description="SHA-256 of its text when retired.")
    author: str
    reason: str = Field(max_length=500)
    replaced_by: str | None = Field(default=None, max_length=80)
    retired_at: dt.datetime = Field(default_factory=utc_now)
