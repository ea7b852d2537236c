"""First launch: a second tab (or a refresh) during the bundled import waits for it instead of a traceback.

The import holds the store's write connection; another session of the same server process opening the file
read-only meanwhile got a raw ``duckdb.ConnectionException``. Two AppTest sessions in one process reproduce it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgebias_core import bootstrap
from judgebias_core.registry import Registry
from judgebias_core.store.handle import Store
from judgebias_core.store.prebuilt import PrebuiltStatus
from tests.app_helpers import APP_FILE

IMPORT_SECONDS = 4.0


def _slow_import(store: Store) -> None:
    """Stands in for the bundled import: one dataset written inside a write transaction held for a while."""
    with store.writer() as con:
        con.execute("INSERT INTO datasets (dataset_id, name, kind, source, licence) "
                    "VALUES ('slow', 'Slow import', 'pairwise', 'test', 'test')")
        time.sleep(IMPORT_SECONDS)


def test_a_second_tab_during_the_first_import_waits_without_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "first.duckdb"  # no file yet: the first session imports
    monkeypatch.setenv("JUDGEBIAS_DB", str(store))
    monkeypatch.setattr(bootstrap, "prebuilt_status", lambda: PrebuiltStatus(False, "test: build from the sources"))
    monkeypatch.setattr(bootstrap, "build_from_sources", _slow_import)
    monkeypatch.setattr(bootstrap, "FIRST_LAUNCH_STEPS", Registry("first-launch step", (), "FIRST_LAUNCH_STEP"))
    first = AppTest.from_file(str(APP_FILE), default_timeout=60)
    second = AppTest.from_file(str(APP_FILE), default_timeout=60)
    opener = threading.Thread(target=first.run)
    opener.start()
    deadline = time.monotonic() + 30
    while not store.exists() and time.monotonic() < deadline:  # the first session is inside the import
        time.sleep(0.05)
    time.sleep(0.5)
    started = time.monotonic()
    second.run()
    waited = time.monotonic() - started
    opener.join(timeout=60)
    assert not first.exception
    assert not second.exception, [e.value for e in second.exception]
    assert waited > 1.0  # it waited for the import rather than reading a half-made store
    assert [t.value for t in second.title] == ["How far can an LLM judge be trusted?"]
    assert any("1 datasets" in c.value for c in second.sidebar.caption)
