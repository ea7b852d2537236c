"""Fixtures: a fresh store per test, and a bundled store built once per test session (copied per use)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.store.schema import migrate


@pytest.fixture
def fresh_db(tmp_path: Path) -> Path:
    """An empty store at the latest schema, in this test's own folder."""
    path = tmp_path / "fresh.duckdb"
    migrate(path)
    return path


@pytest.fixture(scope="session")
def bundled_db_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store as a first launch leaves it (bundled data and demo runs). Read-only: never write to it."""
    path = tmp_path_factory.mktemp("bundled") / "bundled.duckdb"
    ensure_store_ready(path)
    return path


@pytest.fixture
def bundled_db(bundled_db_master: Path, tmp_path: Path) -> Path:
    """A private copy of the first-launch store, safe to write to."""
    path = tmp_path / "bundled.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture
def app_env(bundled_db_master: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the dashboard at the session's bundled store (read-only use)."""
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db_master))
    yield bundled_db_master


@pytest.fixture
def fake_provider() -> Iterator[object]:
    """A loopback server speaking the OpenAI and Anthropic wire formats (tests/fake_provider.py)."""
    from tests.fake_provider import FakeProvider  # noqa: PLC0415

    with FakeProvider() as provider:
        yield provider


@pytest.fixture
def batch_fake_provider() -> Iterator[object]:
    """The loopback fake with both providers' batch endpoints (tests/fake_provider_batch.py); batches end after
    two polls."""
    from tests.fake_provider_batch import BatchFakeProvider  # noqa: PLC0415

    with BatchFakeProvider(polls_needed=2) as provider:
        yield provider


@pytest.fixture
def provider_keys(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fake key for both providers in the environment (tests check it never leaks); returns it."""
    from tests.engine_helpers import SECRET  # noqa: PLC0415

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return SECRET
