"""Store location, cached reads and error display for the dashboard pages."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import streamlit as st

from judgebias_core.errors import JudgebiasError, StoreBusyError, ValidationFailed
from judgebias_core.store.connection import resolve_db_path
from judgebias_core.store.handle import Store

T = TypeVar("T")


def db_path() -> Path:
    """The store file: $JUDGEBIAS_DB or data/judgebias.duckdb (secrets may set JUDGEBIAS_DB too)."""
    return resolve_db_path(None)


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


@functools.cache
def _takes_reader(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s first parameter is a ``StoreReader`` (named ``reader``) rather than the store path."""
    return next(iter(inspect.signature(fn).parameters), None) == "reader"


@st.cache_data(show_spinner=False, max_entries=256)
def _cached_call(_fn: Callable[..., Any], fn_key: str, path: str, stamp: tuple[float, int], args: tuple[Any, ...],
                 kwargs_items: tuple[tuple[str, Any], ...]) -> Any:
    if _takes_reader(_fn):
        with Store(path).reader() as reader:  # one snapshot for the whole call, closed when it returns
            return _fn(reader, *args, **dict(kwargs_items))
    return _fn(path, *args, **dict(kwargs_items))


def cached(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call a core read function, cached until the store changes: an analysis or query that takes a ``reader``
    gets one read-only snapshot of the store, any other core function the store path, as first argument."""
    path = db_path()
    key = f"{fn.__module__}.{fn.__qualname__}"
    return _cached_call(fn, key, str(path), store_stamp(path), args, tuple(sorted(kwargs.items())))


def show_error(error: Exception) -> None:
    """Turn a named judgebias error into a message a person can act on."""
    from ui.share import escape_markdown  # noqa: PLC0415 - ui.share imports this module

    if isinstance(error, ValidationFailed):
        st.error(f"Nothing was written: the file has {len(error.problems)} problem(s). Fix them and upload again.")
        st.dataframe(
            [{"row": p.row, "column": p.column, "problem": p.reason} for p in error.problems],
            hide_index=True, width="stretch",
        )
    elif isinstance(error, StoreBusyError):
        st.error(f"The store is busy: {escape_markdown(str(error))}. Try again in a moment.")
    elif isinstance(error, JudgebiasError):
        st.error(escape_markdown(str(error)))
    else:
        raise error

