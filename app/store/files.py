"""Reference files on disk: where a reference's file is, what it holds now, and the atomic
write (a temporary file beside it, fsynced, renamed over it) that every save uses."""

from __future__ import annotations

import errno
import logging
import os
import secrets
from pathlib import Path

from ..domain.references.document import SLUG_RULE, content_hash, is_slug
from ..domain.references.folder import MAX_FILE_BYTES
from ..errors import FailrefError, InsufficientStorage, InvalidInput, PayloadTooLarge, Unavailable

logger = logging.getLogger(__name__)

# Saves write `.<id>.md.tmp-<random>` beside the target, then rename it over the target.
TEMP_MARKER = ".tmp-"


def reference_file(folder: Path, reference_id: str) -> Path:
    """The file of `reference_id`, checked by the slug rule first and by resolving after."""
    if not is_slug(reference_id):
        raise InvalidInput(f"id: must be {SLUG_RULE}", field="id")
    path = (folder / f"{reference_id}.md").resolve()
    if path.parent != folder.resolve():
        raise InvalidInput("id: resolves outside the references folder", field="id")
    return path


def current_file(folder: Path, reference_id: str) -> tuple[str, str] | None:
    """The text and content hash of the file on disk, or None when it does not exist."""
    return text_and_hash(reference_file(folder, reference_id))


def text_and_hash(path: Path) -> tuple[str, str] | None:
    """A file's text as an editor sees it (undecodable bytes replaced) and the content hash
    of its bytes, read once; None when there is no such file. A file over MAX_FILE_BYTES,
    which no load accepts, is refused after reading one byte past the limit, not read
    whole (PayloadTooLarge)."""
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise PayloadTooLarge(
            f"{path.name}: over the {MAX_FILE_BYTES:,}-byte limit of a reference file; "
            "no load accepts it, so it is not opened here: shorten it in the folder"
        )
    return data.decode("utf-8", errors="replace"), content_hash(data)


def write_temporary(path: Path, data: bytes) -> Path:
    """`data` in a fresh, fsynced temporary file beside `path`; storage errors as ours."""
    temporary = path.with_name(f".{path.name}{TEMP_MARKER}{secrets.token_hex(6)}")
    try:
        with temporary.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        discard(temporary)
        raise storage_error(error) from None
    return temporary


def discard(temporary: Path) -> None:
    """Remove a temporary file if it is there; on a read-only or failing disk, leave it to
    the clean-up at start-up rather than turn a clear storage error into a crash."""
    try:
        temporary.unlink(missing_ok=True)
    except OSError as error:
        logger.warning("could not remove %s: %s", temporary.name, error.strerror)


def replace(temporary: Path, path: Path) -> None:
    """Rename `temporary` over `path` and fsync the folder: the file is old or new, never torn."""
    try:
        os.replace(temporary, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as error:
        raise storage_error(error) from None


def put_back(path: Path, previous: bytes | None) -> None:
    """Undo the rename of a save whose database step failed: the old file, or none."""
    try:
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            replace(write_temporary(path, previous), path)
    except (OSError, FailrefError):
        # The next load records whatever file is there; nothing acknowledged is lost.
        logger.exception("could not put %s back after a failed save", path.name)


def storage_error(error: OSError) -> FailrefError:
    """What a failed write tells the user: a full disk (507) or a file that cannot be written."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return InsufficientStorage("the disk is full; nothing was saved, your text is kept below")
    return Unavailable(f"the file could not be written ({error.strerror}); nothing was saved")


def remove_leftover_temporaries(folder: Path) -> list[Path]:
    """Delete the temporary files of saves that crashed before their rename."""
    leftovers = [path for path in folder.glob(f".*.md{TEMP_MARKER}*") if path.is_file()]
    for path in leftovers:
        logger.warning("removing %s, left by an interrupted save", path.name)
        path.unlink()
    return leftovers
