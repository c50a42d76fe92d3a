"""Helpers for the store-of-record tests: edits made in the database (as the web editor
makes them in database mode) and edits made to a file (as git makes them)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from failref.config import Settings
from failref.domain.references.parser import parse_reference
from failref.store.saves import Change, Saved, save_text
from failref.store.texts import current_text


def in_database_mode(settings: Settings) -> Settings:
    """`settings` with saves landing in the database only."""
    return settings.model_copy(update={"store": "database"})


def save_in_database(
    engine: Engine, folder: Path, reference_id: str, data: bytes, *, creating: bool = False
) -> Saved:
    """Save `data` as `reference_id` in database mode, from its current text."""
    current = current_text(engine, folder, reference_id, "database")
    base = None if current is None else current[1]
    reference, problems = parse_reference(f"references/{reference_id}.md", data)
    assert reference is not None, problems
    change = Change(folder / f"{reference_id}.md", data, base, creating, "ann", "web edit")
    return save_text(engine, reference, change, "database")


def edit_in_database(engine: Engine, folder: Path, reference_id: str, old: str, new: str) -> bytes:
    """Replace `old` with `new` in the database's text of `reference_id`; the new bytes."""
    current = current_text(engine, folder, reference_id, "database")
    assert current is not None
    assert old in current[0]
    data = current[0].replace(old, new).encode("utf-8")
    save_in_database(engine, folder, reference_id, data)
    return data


def edit_file(folder: Path, reference_id: str, old: str, new: str) -> bytes:
    """Replace `old` with `new` in the file of `reference_id`; the new bytes."""
    path = folder / f"{reference_id}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    data = text.replace(old, new).encode("utf-8")
    path.write_bytes(data)
    return data
