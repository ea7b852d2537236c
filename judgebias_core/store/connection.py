"""Short-lived DuckDB connections with retry while another process holds the file.

DuckDB lets one process hold a database file for writing, and that lock keeps other
processes out entirely. So no process keeps the file open: every unit of work opens a
connection, does its work and closes it (see docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from judgebias_core.errors import StoreBusyError, StoreError, StoreReadOnlyError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DB_PATH = PROJECT_ROOT / "data" / "judgebias.duckdb"
DB_ENV_VAR = "JUDGEBIAS_DB"
STORE_HELP = "restore it from a backup, or choose another store file with --db (or $JUDGEBIAS_DB)"
# DuckDB never fetches or loads an extension on its own: given a SQLite file it would download sqlite_scanner over
# HTTP to open it. The extensions judgebias uses (json, parquet, icu) are built into the Python package.
CONNECTION_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoload_known_extensions": False, "autoinstall_known_extensions": False}
# A DuckDB file starts with an 8-byte checksum and this magic; other files are told apart by their own start.
DUCKDB_MAGIC = (8, b"DUCK")
FOREIGN_FILE_KINDS: tuple[tuple[bytes, str], ...] = (
    (b"SQLite format 3\x00", "a SQLite database"), (b"PAR1", "a Parquet file"),
    (b"PK\x03\x04", "a ZIP archive (an XLSX workbook?)"), (b"\x1f\x8b", "a gzip file"),
)


def foreign_file_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the file at ``path`` is not a DuckDB database, read from its first bytes before DuckDB opens it (DuckDB
    would try an extension for some kinds); None for a DuckDB file, an empty file or one that cannot be read."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:  # missing or unreadable: DuckDB's own error says which
        return None
    offset, magic = DUCKDB_MAGIC
    if not head or head[offset:offset + len(magic)] == magic:
        return None
    kind = next((name for start, name in FOREIGN_FILE_KINDS if head.startswith(start)), None)
    return f"it is {kind}, not a DuckDB database" if kind else "it is not a DuckDB database (no DuckDB header)"


def read_only_problem(path: Path) -> str | None:
    """Why this process may not write the existing file at ``path`` (no write permission, a read-only disk), or
    None. Asked only after DuckDB refused to open it for writing."""
    try:
        with open(path, "r+b"):
            return None
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return error.strerror or "no write permission"
        return None


def read_only_error(path: str | os.PathLike[str], reason: str) -> StoreReadOnlyError:
    return StoreReadOnlyError(f"the store {path} is read-only here ({reason}): it can be read but not written; "
                              "give this user write permission to it, or choose another store file with --db "
                              "(or $JUDGEBIAS_DB)")


def resolve_db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The store file: an explicit path, else $JUDGEBIAS_DB, else data/judgebias.duckdb."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(DB_ENV_VAR)
    return Path(from_env) if from_env else DEFAULT_DB_PATH


def _held_by_another_process(path: Path, read_only: bool) -> bool:
    """Whether another process holds a lock on the file that keeps this mode out.

    DuckDB reports a held lock and, say, a missing or unreadable file with the same exception type
    (``duckdb.IOException``), so the lock itself is probed: DuckDB takes POSIX record locks (shared to read,
    exclusive to write) and ``fcntl.lockf`` with ``LOCK_NB`` raises ``BlockingIOError`` when one is held. The probe
    is released at once. It runs only after DuckDB failed to open the file, when this process holds no DuckDB lock
    on it (closing the probe's descriptor would otherwise drop that lock).
    """
    try:
        import fcntl  # noqa: PLC0415 - POSIX only
    except ImportError:  # no POSIX locks to probe: an existing file that DuckDB cannot open is taken as busy
        return path.exists()
    try:
        with open(path, "rb" if read_only else "r+b") as handle:
            try:
                fcntl.lockf(handle, (fcntl.LOCK_SH if read_only else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: a conflicting lock is held
                return True
            fcntl.lockf(handle, fcntl.LOCK_UN)
    except OSError:  # the file is missing or unreadable: not a lock
        return False
    return False


# DuckDB's own words for a lock another process holds ("Could not set lock on file ...: Conflicting lock is held").
_LOCK_MESSAGE = "could not set lock on file"


def _is_lock_error(error: duckdb.Error, path: Path, read_only: bool) -> bool:
    """A lock held by another process: DuckDB says so, or the probe finds one. The message alone decides when it is
    there: a holder writing in short bursts may have let go by the time the probe runs, and a busy store must not
    be mistaken for a damaged one (issue 27: two missed probes in a row used to raise ``StoreError``)."""
    if not isinstance(error, duckdb.IOException):
        return False
    return _LOCK_MESSAGE in str(error).lower() or _held_by_another_process(path, read_only)


@contextmanager
def connect(
    path: str | os.PathLike[str],
    read_only: bool = False,
    busy_timeout_s: float = 30.0,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the store for one unit of work, retrying with backoff while the file is locked."""
    db_path = Path(path)
    if not read_only:
        db_path.parent.mkdir(parents=True, exist_ok=True)
    foreign = foreign_file_problem(db_path)
    if foreign:
        raise StoreError(f"the store {db_path} cannot be opened ({foreign}): {STORE_HELP}")
    deadline = time.monotonic() + busy_timeout_s
    delay = 0.02
    retried_unlocked = False
    while True:
        try:
            con = duckdb.connect(str(db_path), read_only=read_only, config=CONNECTION_CONFIG)
            break
        except duckdb.Error as error:
            refused = None if read_only else read_only_problem(db_path)
            if refused:
                raise read_only_error(db_path, refused) from error
            locked = _is_lock_error(error, db_path, read_only)
            if not locked and isinstance(error, duckdb.IOException) and not retried_unlocked:
                retried_unlocked = True  # the holder may have let go between DuckDB's attempt and the probe
                continue
            if not locked or time.monotonic() > deadline:
                if locked:
                    raise StoreBusyError(
                        f"the store {db_path} stayed busy for {busy_timeout_s:.0f} s (another process is writing)"
                    ) from error
                if isinstance(error, duckdb.IOException | duckdb.InvalidInputException | duckdb.SerializationException):
                    raise StoreError(f"the store {db_path} cannot be opened ({str(error).splitlines()[0]}): "
                                     f"{STORE_HELP}") from error
                raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.5)
    try:
        yield con
    finally:
        con.close()


@contextmanager
def transaction(path: str | os.PathLike[str], busy_timeout_s: float = 60.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A write connection inside one transaction: everything or nothing is written."""
    with connect(path, read_only=False, busy_timeout_s=busy_timeout_s) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException:
            # A fatal error (a damaged block, a full disk) ended the transaction already: the error that did it is the
            # one to report, not "no transaction is active".
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> object:
    """The single value of a one-row query. Fetches the whole result (DuckDB 2 keeps unfinished results open)."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0][0] if rows else None


def int_scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> int:
    """A one-row count or integer aggregate as an int (0 when there is no row or the value is NULL)."""
    value = scalar(con, sql, params)
    if value is None:
        return 0
    if not isinstance(value, int | float):
        raise TypeError(f"expected a number from {sql!r}, got {type(value).__name__}")
    return int(value)
