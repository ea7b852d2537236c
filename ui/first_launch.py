"""The first-launch import, once per server process, with every other session waiting for it.

The import holds the store's write connection for a minute or so. A second tab, or a refresh of the first one
(the old session's script goes on importing), would open the same file read-only meanwhile, which DuckDB refuses
in the same process with a ``duckdb.ConnectionException``. So every session goes through one lock: the first
imports, the others show a waiting message with the elapsed time until it is done.

``begin_store_ready`` starts that work in a thread as the app script's first step, before the app and page
imports: DuckDB's load of the snapshot runs in C++ without the GIL, so it overlaps the seconds of Python imports
that follow instead of coming after them; ``ensure_store_ready_once`` then waits for it (with the spinner).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import streamlit as st

from judgebias_core import bootstrap
from judgebias_core.store.handle import Store

_IMPORT_LOCK = threading.Lock()
_WAIT_STEP_S = 0.5
# Stores made ready by this process: later sessions skip the check, whose migration opens the file for writing
# (a write connection next to another session's read-only ones is refused the same way).
_READY: set[Path] = set()
_STARTED: dict[Path, threading.Thread] = {}  # background preparations under way or done, by store
_FAILED: dict[Path, BaseException] = {}  # what a background preparation raised: raised again in the script
_POPULATED: set[Path] = set()  # stores the background thread filled: the script clears the data cache once
_START_LOCK = threading.Lock()


def begin_store_ready(path: Path) -> None:
    """Start making the store ready in a thread (no Streamlit calls there); at most one per store and process."""
    if path in _READY and path.exists():
        return
    with _START_LOCK:
        running = _STARTED.get(path)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(target=_prepare, args=(path,), name="judgebias-first-launch", daemon=True)
        _STARTED[path] = thread
        thread.start()


def _prepare(path: Path) -> None:
    with _IMPORT_LOCK:
        try:
            if path not in _READY and bootstrap.ensure_store_ready(Store.open(path)):
                _POPULATED.add(path)
            _READY.add(path)
        except BaseException as error:  # noqa: BLE001 - handed to the script, which shows it
            _FAILED[path] = error


def ensure_store_ready_once(path: Path) -> None:
    """Make the store ready (bundled import on an empty store), or wait while another session (or the thread of
    ``begin_store_ready``) does it."""
    _raise_background_failure(path)
    if path in _READY and path.exists():
        _clear_after_background_fill(path)
        return
    if not _IMPORT_LOCK.acquire(blocking=False):
        waiting = st.empty()
        started = time.monotonic()
        while not _IMPORT_LOCK.acquire(timeout=_WAIT_STEP_S):
            who = "judgebias is" if _STARTED.get(path) and not _other_session_waiting(path) else "another tab is"
            waiting.info(f":material/hourglass_top: First launch: {who} loading the bundled real datasets "
                         f"into the store ({time.monotonic() - started:,.0f} s so far). This page opens by itself "
                         "when the import is done.")
        waiting.empty()
    try:
        _raise_background_failure(path)
        with st.spinner("First launch: loading the bundled real datasets into the store…"):
            if path not in _READY and bootstrap.ensure_store_ready(Store.open(path)):
                st.cache_data.clear()
        _READY.add(path)
        _clear_after_background_fill(path)
    finally:
        _IMPORT_LOCK.release()


def _other_session_waiting(path: Path) -> bool:
    """Whether the lock is held by a session's own import rather than by the background thread."""
    thread = _STARTED.get(path)
    return thread is None or not thread.is_alive()


def _raise_background_failure(path: Path) -> None:
    failure = _FAILED.pop(path, None)
    if failure is not None:
        raise failure


def _clear_after_background_fill(path: Path) -> None:
    if path in _POPULATED:
        _POPULATED.discard(path)
        st.cache_data.clear()
