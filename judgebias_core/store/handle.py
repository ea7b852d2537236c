"""The store handle, the one way into a store below the interfaces: ``Store.open(path)`` brings the file to the
latest schema once (a file already there is only read: no write lock is taken), ``reader()`` gives one consistent
read of a whole unit of work, ``writer()`` one write transaction, ``run_folder`` where the runs' journals live.

No process keeps the file open (see ``connection.py``): a reader is one read-only connection inside one read
transaction, held for one unit of work (an analysis, a page's read, a report) and closed when it ends. While it is
open, DuckDB's shared file lock keeps writers of other processes waiting (they retry with backoff), and the read
transaction keeps every query of the analysis on one snapshot.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb

if TYPE_CHECKING:  # pandas only in annotations: the CLI's --help opens no store and must not import it
    import pandas as pd

from judgebias_core.store.blocks import refuse_truncated
from judgebias_core.store.connection import connect, scalar, transaction
from judgebias_core.store.schema import SCHEMA_VERSION, checked_version, migrate

T = TypeVar("T")
# A store's run journals, progress and cancel files: ``<store dir>/runs/<store name>/``.
RUNS_FOLDER = "runs"


@dataclass(frozen=True)
class StoreReader:
    """One read-only connection on one snapshot. The ``store/*_queries.py`` functions take it as first argument."""

    con: duckdb.DuckDBPyConnection
    path: Path

    def frame(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> pd.DataFrame:
        """The whole result as a DataFrame; ``params`` positional (``?``) or named (``$name``, a dict)."""
        return self.con.execute(sql, params if isinstance(params, dict) else list(params)).df()

    def rows(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> list[tuple]:
        """The whole result as tuples; ``params`` positional (``?``) or named (``$name``, a dict)."""
        return self.con.execute(sql, params if isinstance(params, dict) else list(params)).fetchall()

    def frame_via_arrow(self, sql: str, params: Sequence[object] = ()) -> pd.DataFrame:
        """The whole result as a DataFrame built from Arrow (faster than ``frame`` for long list columns)."""
        return self.con.sql(sql, params=list(params)).to_arrow_table().to_pandas()

    def scalar(self, sql: str, params: Sequence[object] = ()) -> object:
        """The single value of a one-row query (None when there is no row)."""
        return scalar(self.con, sql, list(params))

    @property
    def store(self) -> Store:
        """The store this reader reads (for what lives beside it, such as its run folder)."""
        return Store(self.path)


@dataclass(frozen=True)
class Store:
    """A DuckDB store file at the latest schema. Holds no connection: each ``reader()`` / ``writer()`` opens one
    for its block. Get one from ``Store.open`` (which migrates); ``Store(path)`` alone is a handle on a file known
    to be migrated already (a child process of a run, a copy of an opened store)."""

    path: Path

    def __init__(self, path: str | os.PathLike[str]) -> None:
        object.__setattr__(self, "path", Path(path))

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Store:
        """The store at ``path``, migrated to the latest schema (created when there is no file). A store already at
        the latest schema is checked through a read-only connection and not written; a newer or damaged one is
        refused (``SchemaError``, ``StoreError``)."""
        store = cls(path)
        if store.path.is_file() and store.path.stat().st_size > 0:
            with connect(store.path, read_only=True) as con:
                if checked_version(con, store.path) == SCHEMA_VERSION:
                    return store
        migrate(store.path)
        return store

    @property
    def run_folder(self) -> Path:
        """Where this store's run journals, progress and cancel files live: ``<store dir>/runs/<store name>/``."""
        return self.path.parent / RUNS_FOLDER / self.path.stem

    @contextmanager
    def reader(self, busy_timeout_s: float = 30.0) -> Iterator[StoreReader]:
        """One read-only connection and one read transaction for the whole block."""
        with connect(self.path, read_only=True, busy_timeout_s=busy_timeout_s) as con:
            refuse_truncated(con, self.path)
            con.execute("BEGIN TRANSACTION")
            try:
                yield StoreReader(con=con, path=self.path)
            except BaseException:
                with contextlib.suppress(duckdb.Error):  # a fatal read error ended the transaction: report that one
                    con.execute("ROLLBACK")
                raise
            con.execute("ROLLBACK")

    def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(reader, *args, **kwargs)`` on one snapshot: a read function that takes a ``StoreReader`` first,
        called as one unit of work."""
        with self.reader() as reader:
            return fn(reader, *args, **kwargs)

    @contextmanager
    def writer(self, busy_timeout_s: float = 60.0) -> Iterator[duckdb.DuckDBPyConnection]:
        """A write connection inside one transaction: everything in the block or nothing is written."""
        with transaction(self.path, busy_timeout_s=busy_timeout_s) as con:
            yield con
