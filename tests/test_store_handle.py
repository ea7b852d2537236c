"""Store(path).reader(): one read-only snapshot per unit of work; a held lock is told apart by exception type."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

from judgebias_core.errors import StoreBusyError, StoreError
from judgebias_core.store.connection import connect
from judgebias_core.store.handle import Store


def _hold_for_writing(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, time
        con = duckdb.connect({str(path)!r})
        print('holding', flush=True)
        time.sleep({seconds})
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


def test_a_reader_reads_and_cannot_write(fresh_db: Path) -> None:
    with Store(fresh_db).reader() as reader:
        assert reader.scalar("SELECT count(*) FROM datasets") == 0
        assert reader.frame("SELECT ? AS x", [3])["x"].tolist() == [3]
        assert reader.rows("SELECT 1, 'a'") == [(1, "a")]
        with pytest.raises(duckdb.Error):
            reader.con.execute("INSERT INTO datasets (dataset_id, name, kind, source, licence) "
                               "VALUES ('x', 'x', 'pairwise', 's', 'l')")


def test_the_writer_commits_everything_or_nothing(fresh_db: Path) -> None:
    insert = ("INSERT INTO datasets (dataset_id, name, kind, source, licence) "
              "VALUES (?, 'n', 'pairwise', 's', 'l')")
    with Store(fresh_db).writer() as con:
        con.execute(insert, ["kept"])
    with pytest.raises(RuntimeError), Store(fresh_db).writer() as con:
        con.execute(insert, ["dropped"])
        raise RuntimeError("abort")
    with Store(fresh_db).reader() as reader:
        assert reader.rows("SELECT dataset_id FROM datasets") == [("kept",)]


def test_a_missing_file_is_an_error_at_once_not_a_busy_store(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError, match="cannot be opened"), connect(tmp_path / "absent.duckdb", read_only=True, busy_timeout_s=5):
        pass
    assert time.monotonic() - started < 2  # not retried for the busy timeout


def test_a_lock_held_by_another_process_is_busy(fresh_db: Path) -> None:
    holder = _hold_for_writing(fresh_db, 5)
    try:
        started = time.monotonic()
        with pytest.raises(StoreBusyError), Store(fresh_db).reader(busy_timeout_s=0.5):
            pass
        assert time.monotonic() - started >= 0.5  # it retried before giving up
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with Store(fresh_db).reader() as reader:  # free again once the holder is gone
        assert reader.scalar("SELECT count(*) FROM datasets") == 0
