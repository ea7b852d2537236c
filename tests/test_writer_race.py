"""The store writer keeps a batch DuckDB refused in its instance race and writes it at the next flush."""

from __future__ import annotations

import duckdb
import pytest

from judgebias_core.engine.records import ReplyRecord, RunContext
from judgebias_core.engine.writer import StoreWriter

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


def test_a_batch_refused_by_the_instance_race_is_kept_and_written_next_time() -> None:
    writer = _FlakyWriter([duckdb.CatalogException(RACE)])
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    writer._take()
    writer.flush()
    assert writer.stored == [] and [r.call_id for r in writer._pending] == ["c1"] and RACE in (writer.last_error or "")
    writer.flush()
    assert [r.call_id for r in writer.stored] == ["c1"] and writer._pending == []


def test_any_other_catalog_error_is_raised() -> None:
    writer = _FlakyWriter([duckdb.CatalogException("Catalog Error: Table with name judge_calls does not exist!")])
    writer.put(ReplyRecord("c1", "[RESULT] 4"))
    writer._take()
    with pytest.raises(duckdb.CatalogException):
        writer.flush()
