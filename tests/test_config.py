"""Settings: defaults, the environment prefix, and the README documenting each one."""

from __future__ import annotations

import pytest
from paths import README

from app.config import Settings


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
