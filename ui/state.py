"""The store handle, cached reads, error display and the load-or-stop scaffold of the dashboard pages."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from judgebias_core.errors import JudgebiasError, RowProblem, StoreBusyError, UploadLimitExceeded, ValidationFailed
from judgebias_core.store.connection import resolve_db_path
from judgebias_core.store.failures import store_failure
from judgebias_core.store.handle import Store, StoreReader
from ui.tables import show_table
from ui.text import counted, escape_markdown, gui_words

T = TypeVar("T")
# Rows listed for one problem repeated on many rows.
MAX_LISTED_ROWS = 10


def db_path() -> Path:
    """The store file: $JUDGEBIAS_DB or data/judgebias.duckdb (secrets may set JUDGEBIAS_DB too)."""
    return resolve_db_path(None)


# The store opened (migrated) once per file in this process: Streamlit runs every session in a thread of it.
_OPENED: dict[Path, Store] = {}
_OPEN_LOCK = threading.Lock()


def current_store() -> Store:
    """The dashboard's store, what the core functions receive: opened once per file (again if the file was
    removed, so a new one is made at the latest schema)."""
    path = db_path()
    with _OPEN_LOCK:
        opened = _OPENED.get(path)
        if opened is None or not path.exists():
            opened = _OPENED[path] = Store.open(path)
    return opened


def store_stamp(path: Path | None = None) -> tuple[float, int]:
    """Changes whenever the store file (or its write-ahead log) changes: part of every cache key."""
    path = path or db_path()
    stamp_time, stamp_size = 0.0, 0
    for candidate in (path, Path(str(path) + ".wal")):
        if candidate.exists():
            stat = candidate.stat()
            stamp_time = max(stamp_time, stat.st_mtime)
            stamp_size += stat.st_size
    return stamp_time, stamp_size


@st.cache_data(show_spinner=False, max_entries=256)
def _cached_call(_fn: Callable[..., Any], fn_key: str, path: str, stamp: tuple[float, int], args: tuple[Any, ...],
                 kwargs_items: tuple[tuple[str, Any], ...]) -> Any:
    with Store(path).reader() as reader:  # one snapshot for the whole call, closed when it returns
        return _fn(reader, *args, **dict(kwargs_items))


def cached(fn: Callable[[StoreReader], T] | Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call a core read function (an analysis, a query, a preview: each takes a ``StoreReader`` first), cached
    until the store changes, with one read-only snapshot of the store as its first argument."""
    store = current_store()
    key = f"{fn.__module__}.{fn.__qualname__}"
    return _cached_call(fn, key, str(store.path), store_stamp(store.path), args, tuple(sorted(kwargs.items())))


def problems_frame(problems: Sequence[RowProblem]) -> pd.DataFrame:
    """Problems as a table (row, column, problem): the same problem in the same column on several rows is one line
    listing its rows; a problem of no particular row or column has an empty cell there."""
    rows_of: dict[tuple[str, str], list[int]] = {}
    for problem in problems:
        rows_of.setdefault((problem.column or "", problem.reason), []).extend(
            [] if problem.row is None else [problem.row])
    return pd.DataFrame(
        [{"row": ", ".join(f"{row:,}" for row in rows[:MAX_LISTED_ROWS])
          + (f" and {counted(len(rows) - MAX_LISTED_ROWS, 'more row')}" if len(rows) > MAX_LISTED_ROWS else ""),
          "column": column, "problem": reason} for (column, reason), rows in rows_of.items()],
        columns=["row", "column", "problem"])


def problems_count(problems: Sequence[RowProblem]) -> str:
    """The problems as a person counts them: one per distinct problem, with the rows it is on ("2 problems, on 36
    rows"), the way ``show_problems`` lists them."""
    distinct = {(p.column or "", p.reason) for p in problems}
    rows = {p.row for p in problems if p.row is not None}
    on_rows = f", on {counted(len(rows), 'row')}" if len(rows) > 1 and len(rows) != len(distinct) else ""
    return counted(len(distinct), "problem") + on_rows


def show_problems(problems: Sequence[RowProblem], headline: str) -> None:
    """An upload's problems under ``headline``: file-level ones as sentences, the rest as a table with their row
    and column."""
    st.error(headline)
    for problem in (p for p in problems if p.row is None and p.column is None):
        st.markdown(f"- {escape_markdown(problem.reason)}")
    located = [p for p in problems if p.row is not None or p.column is not None]
    if located:
        show_table(problems_frame(located))


def show_error(error: Exception) -> None:
    """Turn a named judgebias error into a message a person can act on."""
    if isinstance(error, UploadLimitExceeded):
        st.error(escape_markdown(f"Nothing was written: the file is over an upload limit: {error.problems[0].reason}."))
    elif isinstance(error, ValidationFailed):
        show_problems(error.problems, f"Nothing was written: the file has {problems_count(error.problems)}. "
                                      "Fix them and upload again.")
    elif isinstance(error, StoreBusyError):
        st.error(f"The store is busy: {escape_markdown(str(error))}. Try again in a moment.")
    elif isinstance(error, JudgebiasError):
        st.error(escape_markdown(gui_words(str(error))))
    else:
        raise error


def named_error(error: Exception) -> JudgebiasError | None:
    """The named error to show for ``error``: itself when it is one, the ``StoreError`` a DuckDB or OS error on the
    store stands for (a damaged block, a missing table, a full disk, a read-only file), else None (a bug)."""
    if isinstance(error, JudgebiasError):
        return error
    return store_failure(error, db_path())


@contextmanager
def shown_store_failures() -> Iterator[None]:
    """Run the block; a named error, or a store failure named by ``named_error``, is shown as an ``st.error`` in
    place of the rest of the block (app.py runs every page inside it, so no page shows a raw exception box for a
    damaged store). Other errors go on up."""
    try:
        yield
    except Exception as error:
        shown = named_error(error)
        if shown is None:
            raise
        show_error(shown)


@contextmanager
def stop_on_error() -> Iterator[None]:
    """Run the block; on a named judgebias error (or a store failure) show its message and end this page's run."""
    completed = False
    with shown_store_failures():
        yield
        completed = True
    if not completed:  # the block raised a named error, shown above
        st.stop()


def load_or_stop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``cached(fn, *args, **kwargs)``, or the named error's message and the end of this page's run."""
    with stop_on_error():
        return cached(fn, *args, **kwargs)
    raise AssertionError("unreachable: stop_on_error ends the run")  # st.stop() raises
