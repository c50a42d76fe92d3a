"""Fixtures of the security tests: cheap token hashes, and apps shared by a module's tests
whose requests must all be refused or only read (start-up costs ~0.3 s an app)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from security.helpers import module_settings

from failref.store import editors
from failref.web.factory import create_app

HOSTILE = Path(__file__).parent / "fixtures" / "hostile-markup.md"


@pytest.fixture(scope="module", autouse=True)
def cheap_token_hashes() -> Iterator[None]:
    """scrypt at its production cost takes ~0.1 s a token; these tests make hundreds of
    checks, and what they prove does not depend on the cost (hashes carry their own n)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(editors, "SCRYPT_N", 2**4)
        yield


@pytest.fixture(scope="module")
def shared_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app on the good fixtures for a module's tests."""
    with TestClient(create_app(module_settings(tmp_path_factory.mktemp("shared")))) as client:
        yield client


@pytest.fixture(scope="module")
def hostile_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The good fixtures plus a reference whose body tries every way to run script."""
    settings = module_settings(tmp_path_factory.mktemp("hostile"), HOSTILE)
    with TestClient(create_app(settings)) as client:
        yield client
