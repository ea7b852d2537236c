"""The first-launch import, once per server process, with every other session waiting for it.

The import holds the store's write connection for a minute or so. A second tab, or a refresh of the first one
(the old session's script goes on importing), would open the same file read-only meanwhile, which DuckDB refuses
in the same process with a ``duckdb.ConnectionException``. So every session goes through one lock: the first
imports, the others show a waiting message with the elapsed time until it is done.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import streamlit as st

from judgebias_core import bootstrap

_IMPORT_LOCK = threading.Lock()
_WAIT_STEP_S = 0.5
# Stores made ready by this process: later sessions skip the check, whose migration opens the file for writing
# (a write connection next to another session's read-only ones is refused the same way).
_READY: set[Path] = set()


def ensure_store_ready_once(path: Path) -> None:
    """Make the store ready (bundled import on an empty store), or wait while another session does it."""
    if path in _READY and path.exists():
        return
    if not _IMPORT_LOCK.acquire(blocking=False):
        waiting = st.empty()
        started = time.monotonic()
        while not _IMPORT_LOCK.acquire(timeout=_WAIT_STEP_S):
            waiting.info(f":material/hourglass_top: First launch: another tab is loading the bundled real datasets "
                         f"into the store ({time.monotonic() - started:,.0f} s so far). This page opens by itself "
                         "when the import is done.")
        waiting.empty()
    try:
        with st.spinner("First launch: loading the bundled real datasets into the store…"):
            if path not in _READY and bootstrap.ensure_store_ready(path):
                st.cache_data.clear()
        _READY.add(path)
    finally:
        _IMPORT_LOCK.release()
