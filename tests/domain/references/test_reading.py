"""A stored reading names the parser and the document it was made from."""

from __future__ import annotations

from pathlib import Path

import pytest

import failref.domain.references.reading as reading


def test_the_parser_version_changes_with_a_parsing_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = reading.parser_version.__wrapped__()
    assert now == reading.parser_version()
    monkeypatch.setattr(reading, "version", lambda library: "0.0.1")
    assert reading.parser_version.__wrapped__() != now


def test_a_reading_changes_with_the_document_and_with_the_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = reading.reading_of('{"id": "a"}')
    assert reading.reading_of('{"id": "a"}') == first
    assert reading.reading_of('{"id": "b"}') != first
    monkeypatch.setattr(reading, "parser_version", lambda: "another parser")
    assert reading.reading_of('{"id": "a"}') != first


def test_without_sources_no_two_processes_share_a_parser_version(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "__init__.pyc").write_bytes(b"")
    monkeypatch.setattr(reading, "PACKAGE_DIR", tmp_path)
    assert reading.parser_version.__wrapped__() != reading.parser_version.__wrapped__()
