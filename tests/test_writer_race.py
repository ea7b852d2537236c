"""DuckDB's in-process instance race ("pandas_scan does not exist") is said as a busy store by the store, and the
run writer keeps a batch refused as busy and writes it at the next flush."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from judgebias_core.engine.records import ReplyRecord, RunContext
from judgebias_core.engine.writer import StoreWriter
from judgebias_core.errors import StoreBusyError
from judgebias_core.store import writes
from judgebias_core.store.writes import StoreBatch, write_batch

RACE = "Catalog Error: Table Function with name pandas_scan does not exist!"


class _FlakyWriter(StoreWriter):
    def __init__(self, failures: list[Exception]) -> None:
        super().__init__("unused.duckdb", {}, RunContext("r", "j", "t", "prometheus"), "openai", "m", set())
        self.failures = failures
        self.stored: list[ReplyRecord] = []

    def write(self, records: list[ReplyRecord]) -> None:
        if self.failures:
            raise self.failures.pop(0)
        self.stored += records


def test_a_batch_refused_as_busy_is_kept_and_written_next_time() -> None:
    writer = _FlakyWriter([StoreBusyError(f"the store was being opened by another thread ({RACE})")])
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    writer._take()
    writer.flush()
    assert writer.stored == [] and [r.call_id for r in writer._pending] == ["c1"] and RACE in (writer.last_error or "")
    writer.flush()
    assert [r.call_id for r in writer.stored] == ["c1"] and writer._pending == []


def test_any_other_error_is_raised() -> None:
    writer = _FlakyWriter([duckdb.CatalogException("Catalog Error: Table with name judge_calls does not exist!")])
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    writer._take()
    with pytest.raises(duckdb.CatalogException):
        writer.flush()


def test_the_store_says_the_instance_race_is_busy_and_passes_other_catalog_errors(
        fresh_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def racing(path: object, batch: object) -> None:
        raise duckdb.CatalogException(RACE)

    monkeypatch.setattr(writes, "_write_batch", racing)
    with pytest.raises(StoreBusyError, match="another thread"):
        write_batch(fresh_db, StoreBatch())

    def missing(path: object, batch: object) -> None:
        raise duckdb.CatalogException("Catalog Error: Table with name nope does not exist!")

    monkeypatch.setattr(writes, "_write_batch", missing)
    with pytest.raises(duckdb.CatalogException, match="nope"):
        write_batch(fresh_db, StoreBatch())
