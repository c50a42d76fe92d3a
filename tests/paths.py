"""Where the test data and the shipped files are, for every test module wherever it sits."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
GOOD = FIXTURES / "good"
DIAGNOSIS = FIXTURES / "diagnosis"
DATA = TESTS / "data"
LABELLED = DATA / "labelled"
REFERENCES = ROOT / "references"
README = ROOT / "README.md"
