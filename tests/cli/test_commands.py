"""The `failref` command: exit codes and output."""

from __future__ import annotations

import datetime as dt
import errno
import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from paths import FIXTURES
from sqlalchemy.exc import OperationalError
from sqlmodel import Session
from store_helpers import edit_file, edit_in_database

from failref.cli import commands
from failref.cli.commands import cli
from failref.config import Settings
from failref.store.db import make_engine, upgrade_database
from failref.store.models import GapRow, utc_now


@pytest.fixture
def runner(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("FAILREF_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("FAILREF_REFERENCES_DIR", str(settings.references_dir))
    return CliRunner()


def test_check_passes_a_good_folder(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["check", str(FIXTURES / "good")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("2 references, no problems.")


def test_check_lists_every_problem_and_exits_1(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["check", str(FIXTURES / "broken")])
    assert result.exit_code == 1
    assert "error: broken/bad-yaml.md:7: front matter: invalid YAML" in result.output
    assert "warning: broken/dead-link.md:1: links: link to unknown reference" in result.output
    files = len(list((FIXTURES / "broken").glob("*.md")))
    assert f"in {files} file(s); 1 valid." in result.output


def test_check_defaults_to_the_configured_folder(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 0
    assert "2 references, no problems." in result.output


def test_load_then_show(runner: CliRunner) -> None:
    loaded = runner.invoke(cli, ["load"])
    assert loaded.exit_code == 0, loaded.output
    assert "2 references in the index." in loaded.output
    shown = runner.invoke(cli, ["show", "stuck-rank"])
    assert shown.exit_code == 0
    assert "One rank is stuck while the others wait" in shown.output
    assert "  1. Compilation on one rank" in shown.output
    as_json = runner.invoke(cli, ["show", "stuck-rank", "--json"])
    assert json.loads(as_json.output)["id"] == "stuck-rank"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        pytest.param(["show", "nope"], "Error: no reference with id 'nope'", id="show"),
        pytest.param(
            ["editor", "add", "not a name!"], "Error: editor names are 1-64", id="editor-add"
        ),
        pytest.param(["editor", "remove", "nobody"], "Error: no active editor", id="remove"),
        pytest.param(
            ["match", "--limit", "3", "x" * 10, "--gpus", "1"],
            None,
            id="a-fine-match-for-contrast",
        ),
    ],
)
def test_our_errors_are_one_line_without_a_traceback(
    runner: CliRunner, arguments: list[str], says: str | None
) -> None:
    """Every command's errors are turned into a message once, by the command group."""
    result = runner.invoke(cli, arguments)
    assert "Traceback" not in result.output
    if says is None:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 1
    assert says in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_load_reports_broken_files_and_exits_1(runner: CliRunner, references_dir: Path) -> None:
    (references_dir / "broken.md").write_text("no front matter\n")
    result = runner.invoke(cli, ["load"])
    assert result.exit_code == 1
    assert "references/broken.md:1: front matter" in result.output
    assert "2 references in the index." in result.output


@pytest.mark.empty_database
def test_db_upgrade(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["db", "upgrade"])
    assert result.exit_code == 0
    assert "latest migration" in result.output


def test_gaps_prune_reports_what_it_deleted(runner: CliRunner, settings: Settings) -> None:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with Session(engine) as session:
        session.add(
            GapRow(
                template="old <n>", example="old 1", last_seen=utc_now() - dt.timedelta(days=400)
            )
        )
        session.commit()
    result = runner.invoke(cli, ["gaps", "prune"])
    assert result.exit_code == 0, result.output
    assert "1 unanswered query deleted." in result.output


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """`failref serve` configures logging for the process; put it back afterwards."""
    loggers = [
        logging.getLogger(name)
        for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access", "failref")
    ]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in loggers]
    yield
    for lg, handlers, level, propagate in saved:
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate


def test_serve_logs_the_start_up_load_as_json(
    runner: CliRunner,
    references_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    restored_logging: None,
) -> None:
    """Issue 13, item 16: with --workers, the load before the workers start logged text."""
    (references_dir / "broken.md").write_text("no front matter\n")
    monkeypatch.setattr("failref.cli.serving.serve", lambda *_args, **_kwargs: None)
    result = runner.invoke(cli, ["serve", "--workers", "2"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]
    assert any(entry["level"] == "WARNING" and "broken.md" in entry["message"] for entry in entries)


@pytest.mark.parametrize(
    ("log", "said"),
    [
        pytest.param(
            "step 1 loss 2.3\nstep 2 loss 2.2\n", "Nothing in this log looks like a failure."
        ),
        pytest.param(
            "step 1 loss 2.3\nRuntimeError: something no reference knows\n",
            "root 1: no reference covers line 2 yet",
        ),
    ],
)
def test_scan_says_what_a_log_with_no_root_is(runner: CliRunner, log: str, said: str) -> None:
    result = runner.invoke(cli, ["scan", "-"], input=log)
    assert result.exit_code == 0, result.output
    assert said in result.output.splitlines()


def test_scan_prints_the_roots_first_then_every_match(runner: CliRunner) -> None:
    log = "\n".join(
        [
            "step 100 loss 2.31",
            "NCCL WARN Net : Connection closed by remote peer node17<10.1.2.3>",
            "[rank5]: torch._dynamo hit config.recompile_limit (8)",
            "RuntimeError: something no reference knows",
        ]
    )
    result = runner.invoke(cli, ["scan", "-"], input=log)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1] == "root 1: slow-collective at line 2 (cause)"
    assert "root 2: stuck-rank at line 3 on ranks 5 (cause)" in lines
    assert "     line 4: RuntimeError: something no reference knows" in lines
    assert lines.index("Every match:") > lines.index(
        "root 2: stuck-rank at line 3 on ranks 5 (cause)"
    )
    as_json = json.loads(runner.invoke(cli, ["scan", "--json", "-"], input=log).output)
    assert [root["id"] for root in as_json["diagnosis"]["roots"]] == [
        "slow-collective",
        "stuck-rank",
    ]


def web_edit_and_git_change(settings: Settings) -> bytes:
    """The database's text of stuck-rank changed, and its file changed another way."""
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    folder = settings.references_dir
    web = edit_in_database(engine, folder, "stuck-rank", "A dead host.", "A host died.")
    engine.dispose()
    edit_file(folder, "stuck-rank", "A dead host.", "A host that hung.")
    return web


def test_load_lists_a_conflict_exits_1_and_the_database_text_serves(
    runner: CliRunner, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAILREF_STORE", "database")
    assert runner.invoke(cli, ["load"]).exit_code == 0
    web_edit_and_git_change(settings)
    result = runner.invoke(cli, ["load"])
    assert result.exit_code == 1
    assert (
        "conflict: stuck-rank was changed in the folder and changed in the database since its "
        "last import; the database's text serves (/admin/conflicts)"
    ) in result.output
    assert "2 references in the index." in result.output
    shown = runner.invoke(cli, ["show", "stuck-rank", "--json"])
    assert json.loads(shown.output)["causes"][2]["title"] == "A host died"


def test_export_then_load_resolves_the_conflict_and_changes_nothing(
    runner: CliRunner, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAILREF_STORE", "database")
    assert runner.invoke(cli, ["load"]).exit_code == 0
    web = web_edit_and_git_change(settings)
    assert runner.invoke(cli, ["load"]).exit_code == 1
    exported = runner.invoke(cli, ["export", str(settings.references_dir)])
    assert exported.exit_code == 0, exported.output
    assert f"2 references exported to {settings.references_dir}: 1 written." in exported.output
    assert (settings.references_dir / "stuck-rank.md").read_bytes() == web
    loaded = runner.invoke(cli, ["load"])
    assert loaded.exit_code == 0, loaded.output
    assert "conflict" not in loaded.output


def test_load_of_an_older_release_exits_1_until_rolled_back_on_purpose(
    runner: CliRunner, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAILREF_STORE", "database")
    assert runner.invoke(cli, ["load"]).exit_code == 0
    older = edit_file(settings.references_dir, "stuck-rank", "A dead host.", "A host died.")
    assert runner.invoke(cli, ["load"]).exit_code == 0  # the newer release
    (settings.references_dir / "stuck-rank.md").write_bytes(
        older.replace(b"A host died.", b"A dead host.")
    )
    result = runner.invoke(cli, ["load"])
    assert result.exit_code == 1
    assert (
        "the references folder is an older release than the newest one loaded: nothing was "
        "loaded and the database's texts serve (--roll-back takes this folder's files)"
    ) in result.output
    shown = runner.invoke(cli, ["show", "stuck-rank", "--json"])
    assert json.loads(shown.output)["causes"][2]["title"] == "A host died"
    rolled = runner.invoke(cli, ["load", "--roll-back"])
    assert rolled.exit_code == 0, rolled.output
    shown = runner.invoke(cli, ["show", "stuck-rank", "--json"])
    assert json.loads(shown.output)["causes"][2]["title"] == "A dead host"


def test_calculators_lists_inputs_with_defaults_and_optional_ones_as_worked_out(
    runner: CliRunner,
) -> None:
    result = runner.invoke(cli, ["calculators"])
    assert result.exit_code == 0, result.output
    assert "kv-cache: KV cache size" in result.output
    assert "    layers = 80" in result.output
    assert "    bytes_per_token [bytes] = (empty: worked out)" in result.output


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        pytest.param(
            OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full")),
            "Error: the disk is full (database or disk is full)",
            id="database-disk-full",
        ),
        pytest.param(
            OSError(errno.ENOSPC, "No space left on device"),
            "Error: the disk is full ([Errno 28] No space left on device)",
            id="enospc",
        ),
        pytest.param(
            OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked")),
            "Error: the database is busy or unavailable (database is locked)",
            id="locked",
        ),
    ],
)
def test_a_storage_fault_is_one_line_without_a_traceback(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, fault: Exception, says: str
) -> None:
    """Issue 35, item 12: `failref serve` and `failref editor add` on a full disk ended in
    a raw SQLAlchemy traceback."""

    def failing(*_args: object, **_options: object) -> None:
        raise fault

    monkeypatch.setattr(commands, "open_library", failing)
    result = runner.invoke(cli, ["show", "stuck-rank"])
    assert result.exit_code == 1
    assert says in result.output
    assert "Traceback" not in result.output
