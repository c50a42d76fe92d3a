"""A log read a chunk at a time scans exactly as the same log held whole: every whole log,
cut into chunks of a few characters, gives the same result; the spool gives each line back."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from paths import DATA, REFERENCES

from failref.cli.commands import cli
from failref.cli.streaming import read_in_chunks
from failref.config import Settings
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.ranks import read_labels
from failref.domain.matching.logs.scan import scan_log, scan_read
from failref.domain.matching.reading.lines import split_lines
from failref.domain.references.folder import read_folder

WHOLE_LOGS = sorted((DATA / "wholelogs").glob("*.log"))


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(REFERENCES).references)


@pytest.mark.parametrize("path", WHOLE_LOGS, ids=lambda path: path.name)
@pytest.mark.parametrize("chunk_chars", [97, 4096])
def test_a_log_read_in_chunks_scans_as_the_whole_log(
    index: MatchIndex, path: Path, chunk_chars: int
) -> None:
    text = path.read_text(encoding="utf-8")
    with read_in_chunks(io.StringIO(text), chunk_chars) as read:
        assert scan_read(index, read) == scan_log(index, text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a\nb\n", id="newline at the end"),
        pytest.param("a\r\nb\nc", id="crlf and no newline at the end"),
        pytest.param("é ü\n\n日本\n", id="not ascii, a blank line"),
        pytest.param("", id="empty"),
    ],
)
def test_the_spool_gives_every_line_back(text: str) -> None:
    with read_in_chunks(io.StringIO(text), 3) as read:
        lines = read.lines
        assert list(lines) == split_lines(text)
        assert lines[1:3] == split_lines(text)[1:3]
        assert lines[-1:] == split_lines(text)[-1:]


def test_a_world_size_cut_between_two_chunks_is_read() -> None:
    """`world_size:` ends one chunk and its number starts the next, as in the whole text."""
    first = "[rank0]: x\nworld_size:\n"
    text = first + "8\n"
    assert read_labels(text).world_sizes == frozenset({8})
    with read_in_chunks(io.StringIO(text), len(first)) as read:
        assert read.labels.world_sizes == frozenset({8})


@pytest.fixture
def runner(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("FAILREF_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("FAILREF_REFERENCES_DIR", str(settings.references_dir))
    return CliRunner()


def test_scan_has_no_line_limit_on_the_command_line(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAILREF_MAX_LOG_LINES", "10")
    log = "step 1 loss 2.3\n" * 50 + "RuntimeError: something no reference knows\n"
    result = runner.invoke(cli, ["scan", "-"], input=log)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "51 lines, 2 distinct templates"
