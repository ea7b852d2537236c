"""What a DuckDB or OS error raised while using the store means for the person using it, as a named ``StoreError``.

The CLI's ``main`` and the dashboard's page wrapper hand every error that is not already a named one to
``store_failure``: a damaged block, a missing table, a full disk or a read-only file becomes one line that says what
is wrong and what to do; anything else is left as it is (a bug shows its traceback).
"""

from __future__ import annotations

import errno
import os
import re

import duckdb

from judgebias_core.errors import StoreDiskFullError, StoreError
from judgebias_core.store.connection import STORE_HELP, read_only_error
from judgebias_core.store.schema import SCHEMA_TABLES

# Texts of DuckDB errors that mean the file's bytes are not what DuckDB wrote (a checksum, a short read).
DAMAGE_MARKERS = ("Corrupt database file", "checksum", "Could not read enough bytes", "not a valid DuckDB database",
                  "database has been invalidated")
DISK_FULL_MARKERS = ("No space left on device", "Disk quota exceeded", "File too large")
READ_ONLY_MARKERS = ("Permission denied", "Read-only file system")
_MISSING_TABLE = re.compile(r"Table with name (\w+) does not exist")
# How far along an error's causes (``raise ... from``) and contexts (an error raised while handling another) to look.
_CHAIN_DEPTH = 6


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _chain(error: BaseException) -> list[BaseException]:
    """The error and the ones it was raised from or while handling, nearest first (a DuckDB ``ROLLBACK`` or
    ``unregister`` refused after a fatal error hides the error that caused it)."""
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(found) < _CHAIN_DEPTH and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _one(error: BaseException, path: str | os.PathLike[str]) -> StoreError | None:
    text = str(error)
    if isinstance(error, StoreError):
        return error
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or (
            isinstance(error, duckdb.Error) and any(m in text for m in DISK_FULL_MARKERS)):
        return StoreDiskFullError(f"the disk holding the store {path} is full ({first_line(error)}): the write was "
                                  "rolled back; free some space and try again")
    if not isinstance(error, duckdb.Error):
        return None
    if isinstance(error, duckdb.IOException) and any(m in text for m in READ_ONLY_MARKERS):
        return read_only_error(path, first_line(error))
    missing = _MISSING_TABLE.search(text)
    if isinstance(error, duckdb.CatalogException) and missing and missing.group(1) in SCHEMA_TABLES:
        return StoreError(f"the store {path} lacks the table {missing.group(1)} (dropped, or the file was edited): "
                          f"run check-store; {STORE_HELP}")
    if isinstance(error, duckdb.IOException | duckdb.SerializationException | duckdb.FatalException) or any(
            m in text for m in DAMAGE_MARKERS):
        return StoreError(f"the store {path} is damaged ({first_line(error)}): run check-store; {STORE_HELP}")
    return None


def store_failure(error: BaseException, path: str | os.PathLike[str]) -> StoreError | None:
    """The named ``StoreError`` an error raised while using the store at ``path`` stands for, or None when it is
    not about the store (it stays as it is). Looks through the errors it was raised while handling, since the
    first one is the cause to report."""
    for link in _chain(error):
        found = _one(link, path)
        if found is not None:
            return found
    return None
