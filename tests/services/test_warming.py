"""The warming thread works out the newest index's views, skips the ones replaced before
their turn and outlives a failure."""

from __future__ import annotations

import logging
import threading

import pytest
from paths import REFERENCES

from failref.config import Settings
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.references.folder import read_folder
from failref.services import warming
from failref.services.library import open_library
from failref.services.warming import Warmer

WAIT_S = 60.0  # only bounds a hang: every wait here returns as soon as the thread is done


@pytest.fixture(scope="module")
def indexes() -> list[MatchIndex]:
    references = read_folder(REFERENCES).references
    return [build_index(references[: n + 1]) for n in range(3)]


class Recorder:
    """Stands in for `index.warm`: records each index, holds the first until released."""

    def __init__(self, fail_first: bool = False) -> None:
        self.warmed: list[MatchIndex] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.fail_first = fail_first

    def __call__(self, index: MatchIndex) -> None:
        first = not self.warmed
        self.warmed.append(index)
        self.started.set()
        if first:
            assert self.release.wait(WAIT_S)
            if self.fail_first:
                raise RuntimeError("a broken view")


def test_an_index_replaced_while_another_warms_is_passed_over(
    indexes: list[MatchIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(warming, "warm", recorder)
    warmer = Warmer()
    first, passed_over, newest = indexes
    warmer.hand(first)
    assert recorder.started.wait(WAIT_S)
    warmer.hand(passed_over)
    warmer.hand(newest)
    assert not warmer.wait(0)  # the first is still being warmed
    recorder.release.set()
    assert warmer.wait(WAIT_S)
    assert recorder.warmed == [first, newest]


def test_a_failed_warming_is_logged_and_the_next_index_still_warms(
    indexes: list[MatchIndex], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = Recorder(fail_first=True)
    monkeypatch.setattr(warming, "warm", recorder)
    warmer = Warmer()
    with caplog.at_level(logging.ERROR, logger=warming.__name__):
        warmer.hand(indexes[0])
        recorder.release.set()
        assert warmer.wait(WAIT_S)
        warmer.hand(indexes[1])
        assert warmer.wait(WAIT_S)
    assert recorder.warmed == indexes[:2]
    assert "working out the index's views failed" in caplog.text


def test_each_load_hands_its_index_to_the_warming_thread(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    recorder.release.set()
    monkeypatch.setattr(warming, "warm", recorder)
    library = open_library(settings)
    try:
        assert library.warmer.wait(WAIT_S)
        assert recorder.warmed == [library.catalog.index]
        path = settings.references_dir / "stuck-rank.md"
        path.write_text(path.read_text().replace("A dead host.", "Pulled from git."))
        assert library.poll() == "reloaded"
        assert library.warmer.wait(WAIT_S)
        assert recorder.warmed[-1] is library.catalog.index
    finally:
        library.close()


def test_a_closed_warmer_takes_no_more_indexes(
    indexes: list[MatchIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    recorder.release.set()
    monkeypatch.setattr(warming, "warm", recorder)
    warmer = Warmer()
    warmer.hand(indexes[0])
    assert warmer.wait(WAIT_S)
    warmer.close()
    warmer.hand(indexes[1])
    assert warmer.wait(0)
    assert recorder.warmed == indexes[:1]
