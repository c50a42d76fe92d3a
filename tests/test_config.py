"""Settings: defaults, the environment prefix, and the README documenting each one."""

from __future__ import annotations

import pytest
from paths import README
from pydantic import ValidationError

from failref.config import Settings


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_readme_documents_every_setting(name: str) -> None:
    assert f"`FAILREF_{name.upper()}`" in README.read_text()


def test_every_setting_has_a_description() -> None:
    assert all(field.description for field in Settings.model_fields.values())


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAILREF_READ_ONLY", "1")
    monkeypatch.setenv("FAILREF_CORS_ORIGINS", '["https://example.org"]')
    settings = Settings()
    assert settings.read_only is True
    assert settings.cors_origins == ["https://example.org"]
    assert settings.database_url.startswith("sqlite:///")


@pytest.mark.parametrize(
    ("url", "store", "store_of_record"),
    [
        pytest.param("sqlite:///x.db", "auto", "folder", id="sqlite-auto"),
        pytest.param("postgresql+psycopg://h/db", "auto", "database", id="server-auto"),
        pytest.param("sqlite:///x.db", "database", "database", id="sqlite-database"),
        pytest.param("postgresql+psycopg://h/db", "folder", "folder", id="server-folder"),
    ],
)
def test_the_store_of_record_follows_the_setting_or_else_the_database(
    url: str, store: str, store_of_record: str
) -> None:
    settings = Settings(database_url=url, store=store)  # type: ignore[arg-type]
    assert settings.store_of_record == store_of_record


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("mysql://u:secret@h/d", id="mysql"),
        pytest.param("sqlite://", id="sqlite-in-memory"),
        pytest.param("var/failref.db", id="a-bare-path"),
    ],
)
def test_a_database_without_a_one_writer_lock_is_refused(url: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Settings(database_url=url)
    [error] = raised.value.errors()
    assert error["loc"] == ("database_url",)
    assert "is not supported: use sqlite:///PATH or postgresql://..." in error["msg"]
    assert "secret" not in error["msg"]
