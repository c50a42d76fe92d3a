"""Settings, read from `FAILREF_*` environment variables when the app or CLI starts, and the
limits every front end shares (spelled here once)."""

from __future__ import annotations

import os
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# The folder this package is (`app/` in a checkout, `failref/` once installed).
PACKAGE_DIR = Path(__file__).resolve().parent
# The checkout (or the image's /app): the shipped references, static files and migrations
# sit beside the package there.
PROJECT_ROOT = PACKAGE_DIR.parent
# A wheel carries those folders inside the package instead (pyproject.toml maps them).
WHEEL_DATA_DIR = PACKAGE_DIR / "shipped"
# The distribution failref is installed as (pyproject.toml's name): `failref --version`, the
# OpenAPI document and the MCP server's `serverInfo` all report its version.
DISTRIBUTION = "failref"
# The embedded database of an installed failref, under the user's data folder (XDG).
INSTALLED_DATABASE = Path("failref") / "failref.db"

# Ranked references for one message: five is what a person reads before opening one.
DEFAULT_MATCH_LIMIT = 5
# More than every reference a person reads; keeps API and tool responses small.
MAX_MATCH_LIMIT = 50
# Lines a pasted log may have unless FAILREF_MAX_LOG_LINES says otherwise.
DEFAULT_MAX_LOG_LINES = 100_000
# Bytes of one pasted log line the body limit allows for: the whole-log set in
# tests/data/wholelogs averages 76; rank prefixes and timestamps make some logs longer.
PASTE_LINE_BYTES = 100
# The paste form sends its text urlencoded: the whole-log set grows 1.21 times, and
# punctuation-heavy lines (NCCL tables, JSON logs) more, since each such byte is `%XX`.
FORM_ENCODING_FACTOR = 2
# The default body limit fits a form of DEFAULT_MAX_LOG_LINES lines, as the README promises.
DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_LOG_LINES * PASTE_LINE_BYTES * FORM_ENCODING_FACTOR
# Line numbers a scan hit lists; `count` says how many there were in all.
SCAN_LINE_CAP = 20
# A browser or a script sends its headers in one packet: ten seconds is a very slow link.
# The largest body (20 MB) in a minute is 2.7 Mbit/s. Defaults of the two settings below.
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 60.0
# An answer's reader must take some of it within this: a phone on 100 kbit/s drains the
# 64 KiB write buffer in about 5 s.
DEFAULT_WRITE_TIMEOUT_S = 30.0
# A browser opens 6 connections to a site; a client holding more than this many at once in
# one worker is holding them for their own sake (the proxies failref trusts are exempt).
DEFAULT_CLIENT_CONNECTIONS = 32
# The databases failref runs on: an embedded SQLite file, or a PostgreSQL server (psycopg 3)
# that replicas share. Other SQLAlchemy URLs have no one-writer lock, so they are refused.
DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")
# Rows the gaps page lists, most asked first.
GAPS_PAGE_SIZE = 200
# References a reference page suggests next: those it links to, then those sharing tags.
RELATED_LIMIT = 5
# References a browse page (`/references`) shows: a screen or two of cards, about 45 KB.
BROWSE_PAGE_SIZE = 50
# References the start page shows of each category, in title order, linking to the rest.
HOME_SHELF_SIZE = 8
# References `GET /api/v1/references` and the MCP tool `list_references` answer when no
# `limit` is given: more than the shipped catalog holds, so it comes in one page.
DEFAULT_LIST_LIMIT = 100
# The most one page of that list may hold: about 400 KB of JSON.
MAX_LIST_LIMIT = 500

# Where a save lands: the reference file (and its index row), or only the database.
StoreOfRecord = Literal["folder", "database"]


@cache
def package_version() -> str:
    """The installed failref's version, read from its metadata when first asked."""
    return version(DISTRIBUTION)


def installed() -> bool:
    """Whether this is an installed wheel (its data inside the package), not a checkout."""
    return WHEEL_DATA_DIR.is_dir()


def shipped(folder: str) -> Path:
    """A shipped folder (`references`, `static`, `migrations`): the wheel's copy when
    installed, else the checkout's."""
    return (WHEEL_DATA_DIR if installed() else PROJECT_ROOT) / folder


def default_database_url() -> str:
    """The embedded SQLite file: `var/failref.db` in a checkout; once installed, in the
    user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`), never in site-packages."""
    if not installed():
        return f"sqlite:///{PROJECT_ROOT / 'var' / 'failref.db'}"
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(data_home) / INSTALLED_DATABASE}"


class Settings(BaseSettings):
    """Every setting of failref; each is documented in the README's settings table."""

    model_config = SettingsConfigDict(env_prefix="FAILREF_", extra="ignore")

    database_url: str = Field(
        default_factory=default_database_url,
        description=(
            "SQLAlchemy URL of the database: a SQLite file (the embedded default) or a "
            "PostgreSQL server shared by replicas (postgresql://user:password@host/name)."
        ),
    )
    references_dir: Path = Field(
        default_factory=lambda: shipped("references"),
        description="Reference Markdown files: the store of record, or the database's seed.",
    )
    store: Literal["auto", "folder", "database"] = Field(
        default="auto",
        description=(
            "Store of record: folder (saves write the file), database (saves write only "
            "the database, shared by replicas); auto: folder on SQLite, database otherwise."
        ),
    )
    release: str = Field(
        default="",
        max_length=200,
        description=(
            "Name of this build (its git commit): in database mode, builds holding the same "
            "references and code under other names are other releases, not an older one."
        ),
    )
    static_dir: Path = Field(
        default_factory=lambda: shipped("static"),
        description="Folder of CSS, JavaScript and icons served under /static.",
    )
    migrations_dir: Path = Field(
        default_factory=lambda: shipped("migrations"),
        description="Folder of Alembic migrations applied at start-up.",
    )
    read_only: bool = Field(
        default=False, description="Turn every editing route off, for public mirrors."
    )
    max_body_bytes: int = Field(
        default=DEFAULT_MAX_BODY_BYTES,
        description="Largest request body accepted, in bytes (a form of 100,000 lines fits).",
    )
    max_log_lines: int = Field(
        default=DEFAULT_MAX_LOG_LINES,
        description="Most lines a pasted log may have before it is refused.",
    )
    large_bodies: int = Field(
        default=2,
        ge=1,
        description="Bodies over 1 MB a worker processes at once; another waits up to 20 s, "
        "then gets 503 with Retry-After.",
    )
    store_queries: bool = Field(
        default=True,
        description="Keep queries that found no confident match (redacted) for /admin/gaps.",
    )
    keep_results: bool = Field(
        default=True,
        description="Keep each pasted log or traceback (redacted, compressed) so that its "
        "result has a link, /results/<token>, for result_retention_days.",
    )
    result_retention_days: int = Field(
        default=30,
        ge=1,
        description="Days a kept paste, and so its result's link, lasts.",
    )
    kept_results_mb: int = Field(
        default=1024,
        ge=1,
        description="Megabytes the kept pastes may take, compressed; past it the oldest go.",
    )
    reload_interval_s: float = Field(
        default=2.0,
        ge=0,
        description="Seconds between checks for changed files and other workers' saves; 0: off.",
    )
    header_timeout_s: float = Field(
        default=DEFAULT_HEADER_TIMEOUT_S,
        gt=0,
        description="Seconds a request's headers may take to arrive (failref serve).",
    )
    body_timeout_s: float = Field(
        default=DEFAULT_BODY_TIMEOUT_S,
        gt=0,
        description="Seconds a request's body may take once its headers arrived (failref serve).",
    )
    write_timeout_s: float = Field(
        default=DEFAULT_WRITE_TIMEOUT_S,
        gt=0,
        description="Seconds a client may read nothing of an answer it is sent (failref serve).",
    )
    client_connections: int = Field(
        default=DEFAULT_CLIENT_CONNECTIONS,
        ge=1,
        description="Connections one address may hold open in a worker (failref serve).",
    )
    workers: int = Field(
        default=1,
        ge=1,
        description="Worker processes sharing the budget below; set by failref serve --workers.",
    )
    rate_limit_per_minute: int = Field(
        default=240,
        ge=1,
        description="Match, scan and feedback requests a client may make a minute (429 past it).",
    )
    gap_retention_days: int = Field(
        default=90,
        ge=1,
        description="Days an unanswered query is kept after it was last seen.",
    )
    labelled_dir: Path = Field(
        default=PROJECT_ROOT / "tests" / "data" / "labelled",
        description="Labelled log lines the editor's preview ranks; skipped when missing.",
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins allowed to call the JSON API from a browser (JSON list).",
    )

    @property
    def store_of_record(self) -> StoreOfRecord:
        """`store` with auto resolved: replicas share a server database, never a SQLite file."""
        if self.store != "auto":
            return self.store
        return "folder" if self.database_url.startswith("sqlite") else "database"

    @field_validator("database_url")
    @classmethod
    def _supported_database(cls, url: str) -> str:
        if not url.startswith(DATABASE_SCHEMES):
            scheme = url.partition("://")[0] or url
            raise ValueError(f"'{scheme}' is not supported: use sqlite:///PATH or postgresql://...")
        return url
