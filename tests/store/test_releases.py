"""Releases of the references folder: a release is named by what the folder holds, the code
and the build's name; the first load of one makes it the newest, a superseded one imports
nothing unless rolled back to on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from store_helpers import edit_file

from failref.domain.references.folder import read_folder
from failref.store.releases import ReleaseCheck, claim_release, newest_release, release_stamp


@pytest.mark.parametrize(
    ("loaded", "stamp", "roll_back", "verdict", "newest"),
    [
        pytest.param([], "a", False, "new", "a", id="first-load"),
        pytest.param(["a"], "a", False, "newest", "a", id="same-release-again"),
        pytest.param(["a"], "b", False, "new", "b", id="newer-image"),
        pytest.param(["a", "b"], "a", False, "older", "b", id="older-image"),
        pytest.param(["a", "b", "a"], "b", False, "older", "a", id="rolled-back-from"),
        pytest.param(["a", "b"], "a", True, "rolled back", "a", id="roll-back-on-purpose"),
        pytest.param(["a", "b"], "b", True, "newest", "b", id="roll-back-to-the-newest"),
        pytest.param(["a", "b"], "c", True, "new", "c", id="roll-back-to-a-new-one"),
    ],
)
def test_a_release_is_newest_once_loaded_and_older_once_superseded(
    engine: Engine, loaded: list[str], stamp: str, roll_back: bool, verdict: str, newest: str
) -> None:
    with Session(engine) as session:
        for earlier in loaded:
            claim_release(session, earlier, ReleaseCheck(roll_back=True))
        assert claim_release(session, stamp, ReleaseCheck(roll_back=roll_back)) == verdict
        found = newest_release(session)
        assert found is not None
        assert found.stamp == newest


def test_the_older_release_names_itself_and_the_newest_in_the_log(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with Session(engine) as session:
        claim_release(session, "a", ReleaseCheck("v1"))
        claim_release(session, "b", ReleaseCheck("v2"))
        assert claim_release(session, "a", ReleaseCheck("v1")) == "older"
    assert "older release (v1) than the newest one loaded (v2, since " in caplog.text
    assert "failref load --roll-back" in caplog.text


def test_a_stamp_names_the_files_held_the_problems_and_the_build(references_dir: Path) -> None:
    stamp = release_stamp(read_folder(references_dir), "")
    assert release_stamp(read_folder(references_dir), "") == stamp
    assert release_stamp(read_folder(references_dir), "v2") != stamp
    edit_file(references_dir, "stuck-rank", "A dead host.", "A host that died.")
    edited = release_stamp(read_folder(references_dir), "")
    assert edited != stamp
    (references_dir / "broken.md").write_text("no front matter\n")
    assert release_stamp(read_folder(references_dir), "") not in (stamp, edited)
