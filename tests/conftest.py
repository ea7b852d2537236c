"""Fixtures: a fresh store per test, and a bundled store built once per test session (copied per use)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.store.handle import Store
from judgebias_core.store.schema import migrate

# Generation speed and per-example time depend on how loaded the machine is (CI shares two cores): neither may
# fail a test; what a property asserts still does.
settings.register_profile("judgebias", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("judgebias")


@pytest.fixture
def fresh_db(tmp_path: Path) -> Path:
    """An empty store at the latest schema, in this test's own folder."""
    path = tmp_path / "fresh.duckdb"
    migrate(path)
    return path


ROOT = Path(__file__).resolve().parent.parent
# What the first-launch store is built from (the data and every package part the import and the demo runs use;
# not metrics, charts, report or cli): if any of these change, the cached store is rebuilt.
_STORE_INPUTS = (
    "data",
    "judgebias_core/sources",
    "judgebias_core/store",
    "judgebias_core/engine",
    "judgebias_core/judges",
    "judgebias_core/providers",
    "judgebias_core/protocols",
    "judgebias_core/prompts",
    "judgebias_core/parsing",
    "judgebias_core/bootstrap.py",
    "judgebias_core/demo.py",
    "judgebias_core/models.py",
    "judgebias_core/errors.py",
    "judgebias_core/identity.py",
)


def _store_inputs_digest() -> str:
    digest = hashlib.sha256()
    for top in _STORE_INPUTS:
        base = ROOT / top
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for file in files:
            if file.is_file() and file.suffix in {".py", ".gz", ".json", ".yaml", ".parquet", ".sql", ".csv"}:
                digest.update(str(file.relative_to(ROOT)).encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _cached_first_launch_store() -> Path:
    """Build the first-launch store once per code version and share it, read-only, across xdist workers and runs.

    The cache sits in the system temp folder keyed by a digest of the package and data, so a change to either
    builds a new one; a lock file makes concurrent workers wait for one build instead of each doing it.
    """
    cache_dir = Path(os.environ.get("JUDGEBIAS_TEST_CACHE", tempfile.gettempdir())) / "judgebias-test-stores"
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"bundled-{_store_inputs_digest()}.duckdb"
    with open(cache_dir / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            building = target.with_suffix(f".{os.getpid()}.building")
            building.unlink(missing_ok=True)
            ensure_store_ready(Store.open(building))
            os.replace(building, target)
    return target


@pytest.fixture(scope="session")
def bundled_db_master() -> Path:
    """The store as a first launch leaves it (bundled data and demo runs). Read-only: never write to it."""
    return _cached_first_launch_store()


@pytest.fixture
def bundled_db(bundled_db_master: Path, tmp_path: Path) -> Path:
    """A private copy of the first-launch store, safe to write to."""
    path = tmp_path / "bundled.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture(scope="module")
def upload_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A writable copy of the first-launch store shared by one test module (tests use their own dataset ids)."""
    path = tmp_path_factory.mktemp("upload") / "store.duckdb"
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
    from tests.fake_provider import FakeProvider

    with FakeProvider() as provider:
        yield provider


@pytest.fixture
def batch_fake_provider() -> Iterator[object]:
    """The loopback fake with both providers' batch endpoints (tests/fake_provider_batch.py); batches end after
    two polls."""
    from tests.fake_provider_batch import BatchFakeProvider

    with BatchFakeProvider(polls_needed=2) as provider:
        yield provider


@pytest.fixture
def provider_keys(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fake key for both providers in the environment (tests check it never leaks); returns it."""
    from tests.engine_helpers import SECRET

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return SECRET
