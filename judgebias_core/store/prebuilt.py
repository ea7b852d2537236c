"""The first-launch store, pre-built: every table as a Parquet file in data/prebuilt/, loaded by DuckDB directly.

scripts/build_prebuilt.py builds a store the slow way (the bundled gz sources parsed by sources/bundled.py, then the
first-launch steps such as the simulated demo runs) and writes each table here with a manifest: the sha256 of every
source file and of every Parquet file, the schema version, and the latest timestamp in the snapshot. A first launch
loads the snapshot only while the manifest matches the sources on disk and the schema this code knows; otherwise it
takes the slow way. tests/test_prebuilt.py rebuilds the snapshot from the sources and compares every table row for
row, so the files cannot drift from what the code produces.

Timestamps (when a row was imported, when a demo run finished) are shifted on load so the latest one is the load
time: the store reads as if the slow import had just finished, with the same order and gaps between rows.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from judgebias_core.store.connection import PROJECT_ROOT, connect, scalar
from judgebias_core.store.handle import Store
from judgebias_core.store.schema import SCHEMA_VERSION

PREBUILT_DIR = PROJECT_ROOT / "data" / "prebuilt"
MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
# Tables the schema keeps for itself, not part of the snapshot (each store makes its own identity when migrated).
_SKIPPED_TABLES = ("schema_version", "store_identity")


@dataclass(frozen=True)
class PrebuiltStatus:
    """Whether the snapshot in a folder can be loaded, and if not why."""

    usable: bool
    reason: str


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_files(data_dir: Path) -> list[Path]:
    """The bundled gz sources the snapshot is built from (everything under data/ but the snapshot itself)."""
    return sorted(p for p in data_dir.rglob("*.gz") if PREBUILT_DIR.name not in p.relative_to(data_dir).parts)


def source_digests(data_dir: Path) -> dict[str, str]:
    return {p.relative_to(data_dir).as_posix(): _sha256(p) for p in source_files(data_dir)}


def store_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The store's tables in creation order (parents before the tables that refer to them)."""
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' "
        "AND NOT temporary ORDER BY table_oid"
    ).fetchall()
    return [name for (name,) in rows if name not in _SKIPPED_TABLES]


def timestamp_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? "
        "AND data_type = 'TIMESTAMP' ORDER BY ordinal_position", [table],
    ).fetchall()
    return [name for (name,) in rows]


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def write_prebuilt(store: str | os.PathLike[str], out_dir: Path, data_dir: Path) -> dict[str, object]:
    """Write every table of ``store`` (a store built from the sources in ``data_dir``) to ``out_dir`` as Parquet,
    rows in insertion order, with the manifest; returns the manifest."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.parquet"):
        old.unlink()
    tables: dict[str, dict[str, object]] = {}
    latest: object = None
    with connect(store, read_only=True) as con:
        con.execute("SET enable_progress_bar = false")
        for table in store_tables(con):
            file = out_dir / f"{table}.parquet"
            con.execute(f"COPY (SELECT * FROM {table} ORDER BY rowid) TO {_quoted(file)} "
                        "(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 19)")
            tables[table] = {"file": file.name, "rows": int(scalar(con, f"SELECT count(*) FROM {table}")),  # type: ignore[call-overload]
                             "sha256": _sha256(file)}
            for column in timestamp_columns(con, table):
                value = scalar(con, f"SELECT max({column}) FROM {table}")
                if value is not None and (latest is None or value > latest):  # type: ignore[operator]
                    latest = value
    manifest: dict[str, object] = {
        "format": MANIFEST_FORMAT, "schema_version": SCHEMA_VERSION,
        "latest_timestamp": latest.isoformat(sep=" ") if latest is not None else None,  # type: ignore[attr-defined]
        "sources": source_digests(data_dir), "tables": tables,
    }
    (out_dir / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def _manifest(folder: Path) -> dict[str, object] | None:
    try:
        value = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def prebuilt_status(folder: Path = PREBUILT_DIR, data_dir: Path | None = None) -> PrebuiltStatus:
    """Whether the snapshot in ``folder`` matches the sources in ``data_dir`` (default: its parent) and this
    schema, and its Parquet files are the ones the manifest names."""
    data_dir = data_dir or folder.parent
    manifest = _manifest(folder)
    if manifest is None:
        return PrebuiltStatus(False, f"no readable {MANIFEST_NAME} in {folder}")
    if manifest.get("format") != MANIFEST_FORMAT or manifest.get("schema_version") != SCHEMA_VERSION:
        return PrebuiltStatus(False, f"snapshot is for schema {manifest.get('schema_version')}, "
                                     f"this code is at {SCHEMA_VERSION}")
    if manifest.get("sources") != source_digests(data_dir):
        return PrebuiltStatus(False, "the bundled sources differ from those the snapshot was built from")
    tables = manifest.get("tables")
    if not isinstance(tables, dict) or not tables:
        return PrebuiltStatus(False, "the manifest lists no tables")
    for table, entry in tables.items():
        file = folder / str(entry.get("file"))
        if not file.is_file() or _sha256(file) != entry.get("sha256"):
            return PrebuiltStatus(False, f"{file.name} is missing or differs from the manifest ({table})")
    return PrebuiltStatus(True, "snapshot matches the sources")


def load_prebuilt(store: Store, folder: Path = PREBUILT_DIR) -> bool:
    """Load the snapshot into the empty store at ``path`` in one transaction. Returns False (and writes nothing)
    when the store already holds a dataset. Check ``prebuilt_status`` first."""
    manifest = _manifest(folder) or {}
    tables: dict[str, dict[str, object]] = manifest.get("tables", {})  # type: ignore[assignment]
    latest = manifest.get("latest_timestamp")
    with store.writer() as con:
        con.execute("SET enable_progress_bar = false")
        if scalar(con, "SELECT count(*) FROM datasets"):
            return False
        for table in store_tables(con):
            if table not in tables:
                continue
            shifted = [f"{c} + (current_timestamp::TIMESTAMP - $latest::TIMESTAMP) AS {c}"
                       for c in timestamp_columns(con, table)]
            replace = f" REPLACE ({', '.join(shifted)})" if shifted and latest else ""
            source = _quoted(folder / str(tables[table]["file"]))
            con.execute(f"INSERT INTO {table} BY NAME SELECT *{replace} FROM read_parquet({source})",
                        {"latest": latest} if replace else {})
    return True
