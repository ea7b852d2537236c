"""DuckDB's in-process instance race ("pandas_scan does not exist") is said as a busy store by the store, and the
run writer keeps a batch the store refuses (busy or any other way) and writes it at a later flush; past its retry
budget it raises a named error with the batch still pending."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from judgebias_core.engine.records import ReplyRecord, RunContext
from judgebias_core.engine.writer import StoreWriter
from judgebias_core.errors import StoreBusyError, StoreError, StoreWriteError
from judgebias_core.store import writes
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch

RACE = "Catalog Error: Table Function with name pandas_scan does not exist!"


class _FlakyWriter(StoreWriter):
    def __init__(self, failures: list[Exception]) -> None:
        super().__init__(Store("unused.duckdb"), {}, RunContext("r", "j", "t", "prometheus"), "openai", "m", set())
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


def test_any_other_refusal_is_kept_and_retried_too() -> None:
    """Issue 27: a damaged table or a full disk used to end the writer thread with the batch in it."""
    writer = _FlakyWriter([duckdb.CatalogException("Catalog Error: Table with name judge_calls does not exist!"),
                           duckdb.IOException("IO Error: Could not write file: No space left on device")])
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    writer._take()
    assert writer.flush() is False and writer.stalled and "judge_calls" in (writer.last_error or "")
    assert writer.flush() is False and "No space left" in (writer.last_error or "")
    writer.put(ReplyRecord("c2", "[RESULT] 3"))
    writer.close()  # retries with backoff until the store takes the batch
    assert [r.call_id for r in writer.stored] == ["c1", "c2"] and not writer.stalled and writer.failure is None


def test_a_batch_refused_past_the_budget_is_a_named_error_and_stays_pending() -> None:
    writer = _FlakyWriter([StoreError("the store cannot be opened")] * 1000)
    writer.retry_s = 0.2
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    with pytest.raises(StoreWriteError, match="refused to write 1 reply .*journal"):
        writer.close()
    assert writer.stored == [] and [r.call_id for r in writer._pending] == ["c1"]
    assert isinstance(writer.failure, StoreWriteError) and isinstance(writer.failure.__cause__, StoreError)


def test_the_store_says_the_instance_race_is_busy_and_passes_other_catalog_errors(
        fresh_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def racing(path: object, batch: object) -> None:
        raise duckdb.CatalogException(RACE)

    monkeypatch.setattr(writes, "_write_batch", racing)
    with pytest.raises(StoreBusyError, match="another thread"):
        write_batch(Store.open(fresh_db), StoreBatch())

    def missing(path: object, batch: object) -> None:
        raise duckdb.CatalogException("Catalog Error: Table with name nope does not exist!")

    monkeypatch.setattr(writes, "_write_batch", missing)
    with pytest.raises(duckdb.CatalogException, match="nope"):
        write_batch(Store.open(fresh_db), StoreBatch())
