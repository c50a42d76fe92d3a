"""The running library: settings, database engine and the live catalog snapshot, which
every service reads and every load or save swaps whole."""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import itertools
import logging
import threading

from ..config import Settings
from ..domain.catalog import Catalog
from ..domain.matching.index.match_index import IndexCache, build_index
from ..domain.references.codes import code_owners
from ..domain.references.document import Reference
from ..domain.references.folder import ParsedFiles, folder_signature
from ..domain.references.problems import Problem
from ..store.db import Engine, database_answers, make_engine, reading, upgrade_database, writing
from ..store.files import remove_leftover_temporaries
from ..store.gaps import prune_gaps
from ..store.index import ParsedRows, SyncReport, index_version, read_index, sync_folder
from ..store.releases import ReleaseCheck
from .documents import Documents
from .gap_queue import GapQueue
from .kept_results import KeptResults
from .side_storage import SideStorage
from .warming import Warmer

logger = logging.getLogger(__name__)

# A refresh collects only what it made; every this many, a whole collection also frees any
# cycle left among the frozen objects of the catalogs it replaced (see `settle_heap`).
WHOLE_COLLECTION_EVERY = 64
# Loads settled in this process, by any library: what `gc.freeze` froze is the process's,
# so a second library (a test's, a command's) pays a whole collection on the same cadence
# rather than one on its first load.
_SETTLES = itertools.count()


class Library:
    """Owns the engine and swaps in a new catalog after each load; shared by app and CLI."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self._reload_lock = threading.Lock()
        self._catalog: Catalog | None = None
        self._version = -1
        self.generation = 0  # counts catalogs swapped in: a result names the one it used
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self.last_report: SyncReport | None = None  # what the last load did with the folder
        # Unchanged files keep their parse, unchanged rows their parsed reference, its index
        # pieces and its API body from one load to the next: a save or a `git pull` of one
        # reference at 10,000 works out one of each.
        self.parsed_files = ParsedFiles()
        self.parsed_rows = ParsedRows()
        self.index_cache = IndexCache()
        self.warmer = Warmer()
        # The gaps of unanswered pastes and the readers' counts: best effort (side_storage);
        # gaps are written by a thread of their own, off the request path (gap_queue).
        self.side_storage = SideStorage()
        self.gaps = GapQueue(engine, settings, self.side_storage)
        self.kept = KeptResults(engine, settings, self.side_storage)

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            raise RuntimeError("the library has not been loaded yet")
        return self._catalog

    @property
    def ready(self) -> bool:
        return self._catalog is not None

    def reload(self, *, roll_back: bool = False) -> SyncReport:
        """Sync the references folder into the database, then swap in a new catalog. In
        database mode a folder that is an older release than the newest one loaded syncs
        nothing, unless `roll_back` (see `store/releases.py`)."""
        with self._reload_lock, writing(self.engine) as session:
            # Taken before reading, kept only once the sync succeeded: a failed sync leaves
            # the old signature, so the watcher's next poll tries again.
            signature = folder_signature(self.settings.references_dir)
            known = self._catalog.references if self._catalog else {}
            folder = self.settings.references_dir
            release = self._release_check(roll_back)
            database_mode = self.settings.store_of_record == "database"
            report = sync_folder(
                session, folder, self.parsed_files, known, release, skip_retired=database_mode
            )
            self._catalog = build_catalog(
                *read_index(session, self.parsed_rows, report.served),
                tuple(report.problems),
                self.index_cache,
                self._catalog,
            )
            self.generation += 1
            self._version = index_version(session)
            self._signature = signature
            # Read now: kept, they would hold a saved reference's older version.
            self.last_report = report = dataclasses.replace(report, served={})
        self._settle()
        logger.info(
            "references loaded: %d added, %d updated, %d removed, %d unchanged, %d problems",
            len(report.added),
            len(report.updated),
            len(report.removed),
            report.unchanged,
            len(report.problems),
        )
        return report

    def _release_check(self, roll_back: bool) -> ReleaseCheck | None:
        """How a load tells an older image's folder from a newer one: only in database mode,
        where replicas built from different images share the texts; in folder mode the
        folder is the store of record, whatever it holds."""
        if self.settings.store_of_record == "folder":
            return None
        return ReleaseCheck(self.settings.release, roll_back)

    def refresh(self) -> None:
        """Swap in a catalog rebuilt from the database, after a save stored its row."""
        with self._reload_lock, reading(self.engine) as session:
            previous = self._catalog.problems if self._catalog else ()
            signature = folder_signature(self.settings.references_dir)
            self._catalog = build_catalog(
                *read_index(session, self.parsed_rows), previous, self.index_cache, self._catalog
            )
            self.generation += 1
            self._version = index_version(session)
            self._signature = signature
        self._settle()

    def _settle(self) -> None:
        settle_heap(whole=next(_SETTLES) % WHOLE_COLLECTION_EVERY == 0)
        self.warmer.hand(self.catalog.index)

    def poll(self) -> str | None:
        """Catch up with changes made elsewhere: reload when the folder changed (a `git pull`,
        an edit in place), refresh when another process changed the index. Returns what it
        did, or None when nothing had changed."""
        if folder_signature(self.settings.references_dir) != self._signature:
            self.reload()
            return "reloaded"
        with reading(self.engine) as session:
            changed = index_version(session) != self._version
        if changed:
            self.refresh()
            return "refreshed"
        return None

    def prune(self) -> int:
        """Delete unanswered queries and kept pastes past their retention; at start-up and
        hourly. Returns how many rows went."""
        retention = dt.timedelta(days=self.settings.gap_retention_days)
        with writing(self.engine) as session:
            gone = prune_gaps(session, retention)
        return gone + self.kept.prune()

    def database_answers(self) -> bool:
        """True when a trivial query succeeds."""
        return database_answers(self.engine)

    def close(self) -> None:
        self.warmer.close()
        self.gaps.close()
        self.kept.close()
        self.engine.dispose()


def build_catalog(
    references: list[Reference],
    aliases: dict[str, str],
    problems: tuple[Problem, ...],
    cache: IndexCache | None = None,
    previous: Catalog | None = None,
) -> Catalog:
    """A fresh snapshot: references by id, their match index (built from the cache's last
    one) and their API bodies (the previous catalog's, for the very same references)."""
    by_id = {reference.id: reference for reference in references}
    earlier = previous.documents if previous else None
    return Catalog(
        references=by_id,
        aliases=aliases,
        index=build_index(references, cache),
        documents=Documents(by_id, earlier if isinstance(earlier, Documents) else None),
        problems=problems,
        codes=code_owners(references)[0],
    )


def settle_heap(whole: bool = True) -> None:
    """Collect the old catalog, then freeze what is left: the index is a few hundred
    thousand long-lived objects, and a full garbage-collection pass over them inside a
    request costs ~100 ms at 10,000 references (see bench/README.md). Not `whole`, only
    what is not frozen yet is collected (what the last load made): reference counting
    frees the replaced catalog, which holds no cycles, and the pass costs no more than
    the load made."""
    if whole:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


def open_library(settings: Settings, *, roll_back: bool = False) -> Library:
    """Connect, migrate and load: everything the app and CLI need before serving; with
    `roll_back`, the folder's files are taken even from an older release."""
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    library = Library(settings, engine)
    if settings.references_dir.is_dir():
        with writing(engine):  # saves write their temporary files under this lock
            remove_leftover_temporaries(settings.references_dir)
    library.reload(roll_back=roll_back)
    library.prune()
    return library


def migrate(settings: Settings) -> None:
    """Apply every pending migration, loading nothing."""
    engine = make_engine(settings)
    try:
        upgrade_database(engine, settings)
    finally:
        engine.dispose()
