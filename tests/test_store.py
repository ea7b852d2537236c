"""The DuckDB store: migrations, transactional idempotent writes, pair classification, short connections."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgebias_core.errors import SchemaError
from judgebias_core.store.connection import connect, resolve_db_path, scalar
from judgebias_core.store.handle import Store
from judgebias_core.store.schema import SCHEMA_VERSION, migrate
from judgebias_core.store.writes import StoreBatch, write_batch


def test_migrate_is_idempotent_and_versioned(fresh_db: Path) -> None:
    assert migrate(fresh_db) == SCHEMA_VERSION
    assert migrate(fresh_db) == SCHEMA_VERSION
    with connect(fresh_db, read_only=True) as con:
        versions = [row[0] for row in con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]
    assert versions == list(range(1, SCHEMA_VERSION + 1))


def test_a_newer_store_is_refused(fresh_db: Path) -> None:
    with connect(fresh_db) as con:
        con.execute("INSERT INTO schema_version (version) VALUES (?)", [SCHEMA_VERSION + 1])
    with pytest.raises(SchemaError):
        migrate(fresh_db)


def test_db_path_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(tmp_path / "env.duckdb"))
    assert resolve_db_path(None) == tmp_path / "env.duckdb"
    assert resolve_db_path(tmp_path / "x.duckdb") == tmp_path / "x.duckdb"
    monkeypatch.delenv("JUDGEBIAS_DB")
    assert resolve_db_path(None).name == "judgebias.duckdb"


def _call(call_id: str, item: str, first: str, second: str, order: str, verdict: str | None, status: str = "ok",
          judge: str = "j", study: str = "s") -> dict[str, object]:
    return {
        "call_id": call_id, "run_id": "r", "dataset_id": "d", "study": study, "judge": judge, "item_id": item,
        "kind": "pairwise", "repetition": 1, "options": 3, "slots": [first, second], "first_candidate": first,
        "second_candidate": second, "order_label": order, "raw_output": f"[[{verdict}]]" if verdict else "??",
        "verdict": verdict, "parse_status": status, "parser": "mtbench",
    }


def _dataset() -> StoreBatch:
    return StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": "d", "name": "d", "kind": "pairwise", "source": "test",
                                "licence": "none", "baseline_candidate": "base"}]),
        items=pd.DataFrame([{"dataset_id": "d", "item_id": f"i{n}", "seq": n, "task": "t", "question": "q"}
                            for n in range(4)]),
        runs=pd.DataFrame([{"run_id": "r", "dataset_id": "d", "study": "s", "origin": "engine",
                            "protocol": "pairwise-swap", "provider": "simulated", "status": "complete"}]),
    )


VERDICT_CLASSES = {
    ("A", "B"): "consistent", ("B", "A"): "consistent", ("C", "C"): "consistent",
    ("A", "A"): "primacy", ("A", "C"): "primacy", ("C", "A"): "primacy",
    ("B", "B"): "recency", ("B", "C"): "recency", ("C", "B"): "recency",
}


@pytest.mark.parametrize(("verdicts", "expected"), list(VERDICT_CLASSES.items()))
def test_pairs_are_classified_by_their_two_verdicts(fresh_db: Path, verdicts: tuple[str, str], expected: str) -> None:
    batch = _dataset()
    batch.judge_calls = pd.DataFrame([
        _call("o", "i0", "base", "x", "original", verdicts[0]),
        _call("s", "i0", "x", "base", "swapped", verdicts[1]),
    ])
    write_batch(Store.open(fresh_db), batch)
    with connect(fresh_db, read_only=True) as con:
        rows = con.execute("SELECT classification, winner, candidate, opponent FROM pair_outcomes").fetchall()
    assert len(rows) == 1
    classification, winner, candidate, opponent = rows[0]
    assert (classification, candidate, opponent) == (expected, "x", "base")
    expected_winner = {("A", "B"): "base", ("B", "A"): "x", ("C", "C"): "tie"}.get(verdicts)
    assert winner == expected_winner


def test_a_failed_parse_on_either_side_makes_a_failed_pair(fresh_db: Path) -> None:
    batch = _dataset()
    batch.judge_calls = pd.DataFrame([
        _call("o", "i0", "base", "x", "original", None, status="failed"),
        _call("s", "i0", "x", "base", "swapped", "A"),
    ])
    write_batch(Store.open(fresh_db), batch)
    with connect(fresh_db, read_only=True) as con:
        assert con.execute("SELECT classification FROM pair_outcomes").fetchall() == [("failed",)]
        assert scalar(con, "SELECT count(*) FROM judge_calls WHERE raw_output = '??'") == 1


def test_a_failing_batch_writes_nothing(fresh_db: Path) -> None:
    batch = _dataset()
    bad = _call("o", "i0", "base", "x", "original", "A")
    bad["parse_status"] = "not-a-status"  # violates the CHECK constraint after the other tables were written
    batch.judge_calls = pd.DataFrame([bad])
    with pytest.raises(duckdb.Error):
        write_batch(Store.open(fresh_db), batch)
    with connect(fresh_db, read_only=True) as con:
        assert scalar(con, "SELECT count(*) FROM datasets") == 0
        assert scalar(con, "SELECT count(*) FROM items") == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C"]), st.sampled_from(["A", "B", "C"])), min_size=1, max_size=4))
def test_write_read_round_trip_and_idempotence(tmp_path_factory: pytest.TempPathFactory,
                                               verdict_pairs: list[tuple[str, str]]) -> None:
    path = tmp_path_factory.mktemp("rt") / "rt.duckdb"
    batch = _dataset()
    rows = []
    for n, (first, second) in enumerate(verdict_pairs):
        rows.append(_call(f"o{n}", f"i{n}", "base", "x", "original", first))
        rows.append(_call(f"s{n}", f"i{n}", "x", "base", "swapped", second))
    batch.judge_calls = pd.DataFrame(rows)
    first_write = write_batch(Store.open(path), batch)
    second_write = write_batch(Store.open(path), batch)
    assert first_write.inserted["judge_calls"] == len(rows)
    assert second_write.total == 0
    with connect(path, read_only=True) as con:
        stored = con.execute("SELECT call_id, verdict FROM judge_calls ORDER BY call_id").fetchall()
        classes = con.execute("SELECT item_id, classification FROM pair_outcomes ORDER BY item_id").fetchall()
    assert stored == sorted((r["call_id"], r["verdict"]) for r in rows)
    assert classes == [(f"i{n}", VERDICT_CLASSES[pair]) for n, pair in enumerate(verdict_pairs)]


def test_readers_wait_for_a_writer_of_another_process(fresh_db: Path) -> None:
    """A process holding the file for writing blocks others; connect() retries until it is free."""
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import duckdb, time, sys
            con = duckdb.connect({str(fresh_db)!r})
            con.execute("INSERT INTO datasets (dataset_id, name, kind, source, licence) VALUES ('late', 'late', 'pairwise', 's', 'l')")
            print('holding', flush=True)
            time.sleep(1.5)
            con.close()
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    started = time.monotonic()
    with connect(fresh_db, read_only=True, busy_timeout_s=30) as con:
        count = scalar(con, "SELECT count(*) FROM datasets WHERE dataset_id = 'late'")
    holder.wait(timeout=30)
    assert count == 1
    assert time.monotonic() - started > 0.3  # it really had to wait for the other process
