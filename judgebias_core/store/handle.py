"""The store handle: ``Store(path).reader()`` for one consistent read of a whole analysis, ``writer()`` to write.

No process keeps the file open (see ``connection.py``): a reader is one read-only connection inside one read
transaction, held for one unit of work (an analysis, a page's read, a report) and closed when it ends. While it is
open, DuckDB's shared file lock keeps writers of other processes waiting (they retry with backoff), and the read
transaction keeps every query of the analysis on one snapshot.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

from judgebias_core.store.blocks import refuse_truncated
from judgebias_core.store.connection import connect, scalar, transaction


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


@dataclass(frozen=True)
class Store:
    """A DuckDB store file. Holds no connection: each ``reader()`` / ``writer()`` opens one for its block."""

    path: Path

    def __init__(self, path: str | os.PathLike[str]) -> None:
        object.__setattr__(self, "path", Path(path))

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

    @contextmanager
    def writer(self, busy_timeout_s: float = 60.0) -> Iterator[duckdb.DuckDBPyConnection]:
        """A write connection inside one transaction: everything in the block or nothing is written."""
        with transaction(self.path, busy_timeout_s=busy_timeout_s) as con:
            yield con
