"""Integrity of a store file: DuckDB's own checks (every block read back against its checksum) and the schema's
invariants (version, tables and columns, unique primary keys, references between tables).

Read-only: a check never writes, so a damaged file is left as it was for a restore.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from judgebias_core.errors import StoreError
from judgebias_core.store.blocks import block_layout, block_problems
from judgebias_core.store.connection import connect, scalar
from judgebias_core.store.failures import first_line
from judgebias_core.store.schema import MIGRATIONS, SCHEMA_VERSION

# Rows that must have a partner in another table: (what, SQL counting the rows without one).
REFERENCES: tuple[tuple[str, str], ...] = (
    ("items of a dataset that is not stored",
     "SELECT count(*) FROM items i ANTI JOIN datasets d USING (dataset_id)"),
    ("answers to an item that is not stored",
     "SELECT count(*) FROM answers a ANTI JOIN items i USING (dataset_id, item_id)"),
    ("rubric levels of a rubric that is not stored",
     "SELECT count(*) FROM rubric_levels l ANTI JOIN rubrics r USING (rubric_id)"),
    ("rubrics whose k differs from their number of levels",
     "SELECT count(*) FROM rubrics r LEFT JOIN (SELECT rubric_id, count(*) AS n FROM rubric_levels GROUP BY 1) l "
     "USING (rubric_id) WHERE r.k <> coalesce(l.n, 0)"),
    ("judge calls of a run that is not stored",
     "SELECT count(*) FROM judge_calls c ANTI JOIN runs r USING (run_id)"),
    ("pair outcomes whose original call is not stored",
     "SELECT count(*) FROM pair_outcomes p ANTI JOIN judge_calls c ON c.call_id = p.original_call_id"),
    ("pair outcomes whose swapped call is not stored",
     "SELECT count(*) FROM pair_outcomes p ANTI JOIN judge_calls c ON c.call_id = p.swapped_call_id"),
    ("pair outcomes whose calls belong to another judge, item, run or repetition",
     "SELECT count(*) FROM pair_outcomes p JOIN judge_calls o ON o.call_id = p.original_call_id "
     "JOIN judge_calls s ON s.call_id = p.swapped_call_id WHERE o.judge <> p.judge OR s.judge <> p.judge "
     "OR o.item_id <> p.item_id OR s.item_id <> p.item_id OR o.run_id <> p.run_id OR s.run_id <> p.run_id "
     "OR o.repetition <> p.repetition OR s.repetition <> p.repetition"),
)


@dataclass(frozen=True)
class StoreCheck:
    """What ``check_store`` found: the file's schema version, rows per table, and every problem (empty = fine)."""

    path: str
    schema_version: int | None
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class _Expected:
    columns: dict[str, list[str]]  # table -> column names
    primary_keys: dict[str, list[str]]  # table -> key columns


def _expected_schema() -> _Expected:
    """Tables, columns and primary keys of a store at the latest schema (the migrations applied in memory)."""
    con = duckdb.connect(":memory:")
    try:
        for sql in MIGRATIONS:
            con.execute(sql)
        columns: dict[str, list[str]] = {}
        for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                         "ORDER BY table_name, ordinal_position").fetchall():
            columns.setdefault(table, []).append(column)
        keys = {table: list(key) for table, key in con.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
            "WHERE constraint_type = 'PRIMARY KEY'").fetchall()}
    finally:
        con.close()
    return _Expected(columns=columns, primary_keys=keys)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _read_fully(con: duckdb.DuckDBPyConnection, table: str, columns: list[str]) -> tuple[int, int]:
    """Rows and a digest of every value of ``table``: every block of it is read and its checksum verified."""
    hashed = ", ".join(_quoted(c) for c in columns)
    rows, digest = con.execute(f"SELECT count(*), coalesce(sum(hash({hashed})::HUGEINT), 0) "
                               f"FROM {_quoted(table)}").fetchall()[0]
    return int(rows), int(digest)


def _stored_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    stored: dict[str, list[str]] = {}
    for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                     "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
        stored.setdefault(table, []).append(column)
    return stored


def table_digests(path: str | os.PathLike[str]) -> dict[str, tuple[int, int]]:
    """(rows, digest of every value) per table: equal before and after means the contents are unchanged."""
    with connect(path, read_only=True) as con:
        return {table: _read_fully(con, table, columns) for table, columns in _stored_columns(con).items()}


def _schema_problems(con: duckdb.DuckDBPyConnection, stored: dict[str, list[str]],
                     expected: _Expected) -> tuple[int | None, list[str]]:
    if "schema_version" not in stored:
        return None, ["no schema_version table: this is not a judgebias store"]
    version_value = scalar(con, "SELECT max(version) FROM schema_version")
    version = int(str(version_value)) if version_value is not None else 0
    if version > SCHEMA_VERSION:
        return version, [f"schema version {version} is newer than this judgebias knows ({SCHEMA_VERSION})"]
    if version < SCHEMA_VERSION:  # opening the store with judgebias migrates it; nothing more to check here
        return version, []
    problems = [f"table {table} is missing" for table in expected.columns if table not in stored]
    problems += [f"table {table} lacks column {column}" for table, columns in expected.columns.items()
                 if table in stored for column in columns if column not in stored[table]]
    return version, problems


def _key_problems(con: duckdb.DuckDBPyConnection, stored: dict[str, list[str]], expected: _Expected) -> list[str]:
    problems = []
    for table, key in expected.primary_keys.items():
        if table not in stored or any(column not in stored[table] for column in key):
            continue
        columns = ", ".join(_quoted(c) for c in key)
        repeated = scalar(con, f"SELECT count(*) FROM (SELECT {columns} FROM {_quoted(table)} GROUP BY ALL "
                               "HAVING count(*) > 1)")
        if repeated:
            problems.append(f"table {table}: {repeated} primary key value(s) ({', '.join(key)}) appear more than once")
    return problems


def _reference_problems(con: duckdb.DuckDBPyConnection) -> list[str]:
    problems = []
    for what, sql in REFERENCES:
        count = int(str(scalar(con, sql) or 0))
        if count:
            problems.append(f"{count} {what}")
    return problems


def check_store(path: str | os.PathLike[str]) -> StoreCheck:
    """Every problem of the store at ``path``: unreadable file, truncation, blocks failing their checksum, unreadable
    tables, schema, keys, references."""
    where = str(path)
    if not Path(path).exists():
        return StoreCheck(where, None, problems=[f"there is no store at {where}"])
    try:
        with connect(path, read_only=True) as con:
            stored = _stored_columns(con)
            rows: dict[str, int] = {}
            problems: list[str] = block_problems(path, block_layout(con))
            for table, columns in stored.items():
                try:
                    rows[table] = _read_fully(con, table, columns)[0]
                except duckdb.Error as error:
                    problems.append(f"table {table} cannot be read: {first_line(error)}")
            if problems:  # damaged blocks: the invariants below would only fail on them again
                return StoreCheck(where, None, rows, problems)
            version, problems = _schema_problems(con, stored, _expected_schema())
            if version == SCHEMA_VERSION and not problems:
                problems = _key_problems(con, stored, _expected_schema()) + _reference_problems(con)
            return StoreCheck(where, version, rows, problems)
    except StoreError as error:
        return StoreCheck(where, None, problems=[str(error)])
    except duckdb.Error as error:
        return StoreCheck(where, None, problems=[f"the store cannot be read: {first_line(error)}"])
