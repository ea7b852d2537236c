"""The pre-built first-launch snapshot (data/prebuilt/) holds exactly what building from the sources gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from judgebias_core.bootstrap import build_from_sources
from judgebias_core.sources.bundled import BUNDLED_DATA_DIR
from judgebias_core.store.handle import Store
from judgebias_core.store.prebuilt import (
    PREBUILT_DIR,
    load_prebuilt,
    prebuilt_status,
    store_tables,
    timestamp_columns,
    write_prebuilt,
)

# Measured, not derived: the simulated demo judge's wall time per call differs from build to build.
_MEASURED_COLUMNS = {"latency_ms"}


def _differences(left: Path, right: Path) -> dict[str, str]:
    """Per table, what differs between two stores: columns, row counts, or rows (as multisets, timestamps and
    measured latencies left out), and the order of datasets and runs by their timestamps."""
    con = duckdb.connect()
    con.execute(f"ATTACH '{left}' AS l (READ_ONLY)")
    con.execute(f"ATTACH '{right}' AS r (READ_ONLY)")
    problems: dict[str, str] = {}
    con.execute("USE l")
    tables = store_tables(con)
    con.execute("USE r")
    if store_tables(con) != tables:
        return {"tables": f"{tables} vs {store_tables(con)}"}
    for table in tables:
        columns = [c for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_catalog = 'r' AND table_name = ? "
            "ORDER BY ordinal_position", [table]).fetchall()]
        compared = [c for c in columns if c not in timestamp_columns(con, table) and c not in _MEASURED_COLUMNS]
        select = ", ".join(compared)
        counts = [con.execute(f"SELECT count(*) FROM {db}.{table}").fetchall()[0][0] for db in ("l", "r")]
        only = [con.execute(f"SELECT count(*) FROM (SELECT {select} FROM {a}.{table} EXCEPT ALL "
                            f"SELECT {select} FROM {b}.{table})").fetchall()[0][0] for a, b in (("l", "r"), ("r", "l"))]
        if counts[0] != counts[1] or any(only):
            problems[table] = f"rows {counts}, only in one side {only}"
    for table, key in (("datasets", "dataset_id"), ("runs", "run_id")):
        orders = [con.execute(f"SELECT list({key} ORDER BY created_at, {key}) FROM {db}.{table}").fetchall()[0][0]
                  for db in ("l", "r")]
        if orders[0] != orders[1]:
            problems[f"{table} order"] = f"{orders[0]} vs {orders[1]}"
    return problems


def test_committed_snapshot_matches_the_sources() -> None:
    assert prebuilt_status().usable, prebuilt_status().reason


def test_snapshot_store_equals_a_store_built_from_the_sources(tmp_path: Path) -> None:
    from_sources = tmp_path / "from-sources.duckdb"
    build_from_sources(Store.open(from_sources))
    from_snapshot = tmp_path / "from-snapshot.duckdb"
    assert load_prebuilt(Store.open(from_snapshot))
    assert _differences(from_sources, from_snapshot) == {}
    # and the snapshot written from this fresh build loads into the same store again
    rebuilt = tmp_path / "rebuilt"
    write_prebuilt(from_sources, rebuilt, BUNDLED_DATA_DIR)
    assert prebuilt_status(rebuilt, BUNDLED_DATA_DIR).usable
    again = tmp_path / "again.duckdb"
    assert load_prebuilt(Store.open(again), rebuilt)
    assert _differences(from_sources, again) == {}
    assert not load_prebuilt(Store.open(again), rebuilt), "a store holding data is never loaded into twice"


def test_loaded_timestamps_end_at_the_load_time(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    load_prebuilt(Store.open(store))
    con = duckdb.connect(str(store), read_only=True)
    latest, now = con.execute("SELECT max(created_at), current_timestamp::TIMESTAMP FROM runs").fetchall()[0]
    assert 0 <= (now - latest).total_seconds() < 600


def _copy_of_data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(BUNDLED_DATA_DIR, data, ignore=shutil.ignore_patterns("*.duckdb", "runs"))
    return data


@pytest.mark.parametrize("change", ["source", "parquet", "schema"])
def test_a_snapshot_that_no_longer_matches_is_not_used(tmp_path: Path, change: str) -> None:
    data = _copy_of_data(tmp_path)
    folder = data / PREBUILT_DIR.name
    assert prebuilt_status(folder, data).usable
    if change == "source":
        target = data / "summeval" / "expert_annotations.jsonl.gz"
        target.write_bytes(target.read_bytes() + b"\0")
    elif change == "parquet":
        (folder / "items.parquet").write_bytes(b"PAR1")
    else:
        manifest = folder / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"schema_version": ', '"schema_version": 9'))
    status = prebuilt_status(folder, data)
    assert not status.usable and status.reason
