"""Editors, tokens and sessions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from failref.config import Settings
from failref.errors import AuthError
from failref.store.db import make_engine, upgrade_database
from failref.store.editors import (
    add_editor,
    any_editor,
    editor_for_session,
    editor_for_token,
    end_session,
    hash_secret,
    remove_editor,
    secret_matches,
    session_key,
    start_session,
)
from failref.store.models import EditorRow, SessionRow


@pytest.fixture
def session(settings: Settings) -> Iterator[Session]:
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_token_is_stored_only_as_a_kdf_hash(session: Session) -> None:
    token = add_editor(session, "ann")
    row = session.exec(select(EditorRow)).one()
    secret = token.split(".")[2]
    assert secret not in row.token_hash
    assert row.token_hash.startswith("scrypt$16384$8$1$")
    assert editor_for_token(session, token).name == "ann"


def test_hash_round_trip_and_mismatch() -> None:
    stored = hash_secret("right")
    assert secret_matches("right", stored)
    assert not secret_matches("wrong", stored)
    assert not secret_matches("right", "bcrypt$x")


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("", id="empty"),
        pytest.param("fr1.1.wrong-secret", id="wrong-secret"),
        pytest.param("fr1.99.whatever", id="unknown-editor"),
        pytest.param("ghp_abc", id="not-ours"),
        pytest.param("fr1.x.y", id="bad-id"),
    ],
)
def test_bad_tokens_are_refused(session: Session, token: str) -> None:
    add_editor(session, "ann")
    with pytest.raises(AuthError):
        editor_for_token(session, token)


def test_removed_editor_loses_token_and_sessions(session: Session) -> None:
    token = add_editor(session, "ann")
    login = start_session(session, editor_for_token(session, token))
    remove_editor(session, "ann")
    with pytest.raises(AuthError):
        editor_for_token(session, token)
    with pytest.raises(AuthError):
        editor_for_session(session, login.session_id)
    assert not any_editor(session)


def test_names_and_duplicates(session: Session) -> None:
    add_editor(session, "ann")
    with pytest.raises(AuthError, match="exists"):
        add_editor(session, "ann")
    with pytest.raises(AuthError, match="editor names"):
        add_editor(session, "../ann")
    remove_editor(session, "ann")
    assert add_editor(session, "ann").startswith("fr1.")


def test_session_is_stored_hashed_and_ends_on_logout(session: Session) -> None:
    editor = editor_for_token(session, add_editor(session, "ann"))
    login = start_session(session, editor)
    assert session.get(SessionRow, login.session_id) is None
    assert session.get(SessionRow, session_key(login.session_id)) is not None
    assert editor_for_session(session, login.session_id)[0].name == "ann"
    end_session(session, login.session_id)
    with pytest.raises(AuthError):
        editor_for_session(session, login.session_id)


def test_expired_session_is_refused(session: Session) -> None:
    editor = editor_for_token(session, add_editor(session, "ann"))
    login = start_session(session, editor)
    row = session.get(SessionRow, session_key(login.session_id))
    assert row is not None
    row.expires_at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    session.add(row)
    session.commit()
    with pytest.raises(AuthError, match="expired"):
        editor_for_session(session, login.session_id)


def test_cli_editor_add_prints_the_token_last(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from failref.cli.commands import cli

    monkeypatch.setenv("FAILREF_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("FAILREF_REFERENCES_DIR", str(settings.references_dir))
    runner = CliRunner()
    added = runner.invoke(cli, ["editor", "add", "ann"])
    assert added.exit_code == 0, added.output
    token = added.output.split()[-1]
    assert token.startswith("fr1.")
    again = runner.invoke(cli, ["editor", "add", "ann"])
    assert again.exit_code == 1
    assert "exists" in again.output
    removed = runner.invoke(cli, ["editor", "remove", "ann"])
    assert removed.exit_code == 0
    missing = runner.invoke(cli, ["editor", "remove", "ann"])
    assert missing.exit_code == 1
