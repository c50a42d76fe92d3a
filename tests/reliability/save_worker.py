"""A separate process that saves one reference many times, or dies at a chosen point.

    python save_worker.py DATABASE_URL REFERENCES_DIR race COUNT TAG
    python save_worker.py DATABASE_URL REFERENCES_DIR crash POINT

Both save where FAILREF_STORE says (folder by default). `race` prints one JSON line of
outcomes; `crash` exits with status 99 at POINT of a save
(`after-temp-write`, `before-fsync`, `after-rename`, `before-commit`, `after-commit`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from sqlmodel import Session

from failref.config import Settings
from failref.errors import StaleBase
from failref.services.editing import Edit, editable_file, save_reference
from failref.services.library import open_library
from failref.store import files, saves

REFERENCE = "stuck-rank"
DIE = 99


def race(library: Any, count: int, tag: str) -> None:
    outcomes: dict[str, Any] = {"ok": 0, "stale": 0, "error": []}
    for number in range(count):
        found = editable_file(library, REFERENCE)
        assert found is not None
        text, base = found
        try:
            save_reference(
                library,
                Edit(REFERENCE, _retag(text, f"{tag}-{number}"), base, False, f"{tag} {number}"),
                tag,
            )
            outcomes["ok"] += 1
        except StaleBase:
            outcomes["stale"] += 1
        except Exception as error:
            outcomes["error"].append(f"{type(error).__name__}: {error}")
    print(json.dumps(outcomes))


def _retag(text: str, tag: str) -> str:
    head, _, rest = text.partition("3. **A dead host")
    _, _, tail = rest.partition(".**")
    return f"{head}3. **A dead host ({tag}).**{tail}"


def die(*_args: Any, **_kwargs: Any) -> None:
    os._exit(DIE)


def crash(library: Any, point: str) -> None:
    found = editable_file(library, REFERENCE)
    assert found is not None
    text, base = found
    if point == "after-temp-write":
        files.os.replace = die  # type: ignore[attr-defined]
    elif point == "before-fsync":
        files.os.fsync = die  # type: ignore[attr-defined]
    elif point == "after-rename":
        saves.record_revision = die  # type: ignore[assignment]
    elif point == "before-commit":
        Session.commit = die  # type: ignore[method-assign]
    elif point == "after-commit":
        library.refresh = die
    else:
        raise SystemExit(f"unknown point {point}")
    save_reference(library, Edit(REFERENCE, _retag(text, "crash"), base, False, "crash"), "c")
    raise SystemExit("the save finished although it should have died")


def main() -> None:
    database_url, references_dir, mode, *rest = sys.argv[1:]
    settings = Settings(database_url=database_url, references_dir=Path(references_dir))
    library = open_library(settings)
    if mode == "race":
        race(library, int(rest[0]), rest[1])
    else:
        crash(library, rest[0])


if __name__ == "__main__":
    main()
