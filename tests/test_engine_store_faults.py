"""Issue 27: a run that says complete has every judgment. Store errors injected into the run's writer (a non-busy
StoreError, a disk-full IOException) against the loopback provider: retried while the run waits, or the run stops
interrupted with a named error and a resume stores every judgment exactly once without sending it again."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from judgebias_core.engine import start_run
from judgebias_core.engine import writer as writer_module
from judgebias_core.engine.in_flight import SendLedger, sent_path, settle_unanswered_sends, unanswered
from judgebias_core.engine.journal import journal_path, read_journal
from judgebias_core.engine.overview import runs_overview
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.errors import StoreBusyError, StoreError, StoreWriteError
from judgebias_core.judges.prices import Price
from judgebias_core.models import status_summary
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.store import connection
from judgebias_core.store.handle import Store
from judgebias_core.store.run_queries import run_counts
from judgebias_core.store.writes import StoreBatch
from tests.engine_helpers import QUICK, SECRET, calls_of, query, rubric_spec
from tests.fake_provider import FakeProvider

DISK_FULL = duckdb.IOException('IO Error: Could not write file "engine.duckdb.wal": No space left on device')
DAMAGED = StoreError("the store cannot be opened (IO Error: Corrupt database file): restore it from a backup")


@pytest.fixture(scope="module")
def store(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One writable copy of the first-launch store for this module (each test has its own run id and model)."""
    path = tmp_path_factory.mktemp("faults") / "engine.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    yield


def _inject(monkeypatch: pytest.MonkeyPatch, refuse: Callable[[int], Exception | None]) -> list[int]:
    """Make the run writer's store writes fail when ``refuse(n)`` (n = 1, 2, ... per attempt) names an error;
    returns the attempt counter."""
    attempts = [0]
    real = writer_module.write_batch

    def flaky(path: object, batch: StoreBatch) -> object:
        attempts[0] += 1
        error = refuse(attempts[0])
        if error is not None:
            raise error
        return real(path, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(writer_module, "write_batch", flaky)
    return attempts


def _stored_once(db: Path, run_id: str, planned: int) -> None:
    calls = calls_of(db, run_id)
    assert len(calls) == planned and calls["call_id"].is_unique and (calls["parse_status"] == "ok").all()


def _status(db: Path, run_id: str) -> str:
    return str(query(db, "SELECT status FROM runs WHERE run_id = ?", [run_id])[0][0])


def test_refused_writes_are_retried_while_the_run_waits(store: Path, fake_provider: FakeProvider,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    schedule = {1: DAMAGED, 2: DISK_FULL, 3: DAMAGED}
    attempts = _inject(monkeypatch, lambda n: schedule.get(n))
    spec = rubric_spec(fake_provider, "fault-transient", limit_items=3)
    outcome = start_run(Store.open(store), spec, QUICK, run_id="fault-transient")
    assert (outcome.status, outcome.completed, outcome.failed, outcome.planned) == ("complete", 30, 0, 30)
    assert attempts[0] >= 4 and outcome.summary == "complete"  # three refusals, then the writes that took
    _stored_once(store, "fault-transient", 30)
    assert _status(store, "fault-transient") == "complete"


def test_a_store_that_stays_full_stops_the_run_interrupted_and_a_resume_stores_everything_once(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write_batch = writer_module.write_batch
    attempts = _inject(monkeypatch, lambda n: None if n == 1 else DISK_FULL)
    settings = QUICK.model_copy(update={"store_retry_s": 0.6, "concurrency": 2, "flush_every": 4})
    with FakeProvider(latency_s=0.02) as fake:
        spec = rubric_spec(fake, "fault-full", limit_items=6)
        with pytest.raises(StoreWriteError, match=r"refused to write .*No space left on device.*journal"):
            start_run(Store.open(store), spec, settings, run_id="fault-full")
        assert attempts[0] > 2
        stored = len(calls_of(store, "fault-full"))
        journaled = {cid for cid, r in read_journal(journal_path(Store(store), "fault-full")).items() if r.text is not None}
        assert 0 < stored < len(journaled) < 60  # the run waited, then stopped instead of sending all 60
        assert _status(store, "fault-full") == "interrupted"
        row = Store(store).read(runs_overview).set_index("run_id").loc["fault-full"]
        assert (row["status"], row["summary"], bool(row["resumable"])) == ("interrupted", "interrupted", True)

        monkeypatch.setattr(writer_module, "write_batch", real_write_batch)  # the disk has room again
        sent_before = fake.request_count
        outcome = start_run(Store.open(store), spec, settings, run_id="fault-full")
        assert (outcome.status, outcome.completed, outcome.planned) == ("complete", 60, 60)
        assert outcome.replayed_from_journal == len(journaled) - stored
        assert outcome.sent_this_session == 60 - len(journaled) == fake.request_count - sent_before
    _stored_once(store, "fault-full", 60)
    assert _status(store, "fault-full") == "complete"


def test_a_batch_lost_without_an_error_never_reads_complete(store: Path, fake_provider: FakeProvider,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The final status comes from the store: a writer that drops a batch silently (the old failure) leaves the
    run interrupted, not complete, and the resume replays the journal."""
    real_write = writer_module.StoreWriter.write
    dropped: list[str] = []

    def drop_first_batch(self: writer_module.StoreWriter, records: list[ReplyRecord]) -> None:
        if records and not dropped:
            dropped.extend(r.call_id for r in records)
            return
        real_write(self, records)

    monkeypatch.setattr(writer_module.StoreWriter, "write", drop_first_batch)
    spec = rubric_spec(fake_provider, "fault-silent", limit_items=2)
    outcome = start_run(Store.open(store), spec, QUICK, run_id="fault-silent")
    assert outcome.status == "interrupted" and outcome.completed == 20 - len(dropped) and dropped
    assert _status(store, "fault-silent") == "interrupted"
    monkeypatch.setattr(writer_module.StoreWriter, "write", real_write)
    sent_before = fake_provider.request_count
    outcome = start_run(Store.open(store), spec, QUICK, run_id="fault-silent")
    assert (outcome.status, outcome.replayed_from_journal, outcome.sent_this_session) == ("complete", len(dropped), 0)
    assert fake_provider.request_count == sent_before
    _stored_once(store, "fault-silent", 20)


def test_a_run_marked_complete_short_of_its_plan_reads_incomplete_and_resumes(store: Path,
                                                                              fake_provider: FakeProvider) -> None:
    """A run an earlier version marked complete with a batch missing from the store (issue 27: 2,346 of 2,400)."""
    spec = rubric_spec(fake_provider, "fault-old", limit_items=2)
    start_run(Store.open(store), spec, QUICK, run_id="fault-old")
    with duckdb.connect(str(store)) as con:
        con.execute("DELETE FROM judge_calls WHERE run_id = 'fault-old' AND call_id IN (SELECT call_id FROM "
                    "judge_calls WHERE run_id = 'fault-old' ORDER BY call_id LIMIT 7)")
    row = Store(store).read(runs_overview).set_index("run_id").loc["fault-old"]
    assert (row["status"], row["summary"], bool(row["resumable"])) == ("complete", "incomplete, 7 of 20 not stored",
                                                                      True)
    sent_before = fake_provider.request_count
    outcome = start_run(Store.open(store), spec, QUICK, run_id="fault-old")
    assert (outcome.status, outcome.replayed_from_journal, outcome.sent_this_session) == ("complete", 7, 0)
    assert fake_provider.request_count == sent_before
    _stored_once(store, "fault-old", 20)
    row = Store(store).read(runs_overview).set_index("run_id").loc["fault-old"]
    assert (row["summary"], bool(row["resumable"])) == ("complete", False)


def test_failed_calls_are_said_beside_complete() -> None:
    assert status_summary("complete", 2400, 2398, 2) == "complete, 2 failed"
    assert status_summary("complete", 2400, 2346, 0) == "incomplete, 54 of 2,400 not stored"
    assert status_summary("complete", 20, 20, 0) == "complete"
    assert status_summary("cancelled", 20, 4, 1) == "cancelled, 1 failed"
    assert status_summary("complete", None, 5, 0) == "complete"  # bundled studies plan nothing


def test_sends_a_kill_cut_off_are_costed_as_an_estimate(store: Path, fake_provider: FakeProvider) -> None:
    """A ledger line with no journal line after it is a request that was paid for and never answered."""
    spec: RunSpec = rubric_spec(fake_provider, "gpt-4o-mini", limit_items=1)
    run_id = "fault-ledger"
    plan = Store(store).read(build_plan, spec, run_id)
    first, second, third = (c.call_id for c in plan.calls[:3])
    ledger = SendLedger(sent_path(Store(store), run_id))
    for call_id in (first, second, third):
        ledger.append(call_id)
    ledger.close()
    now = time.time()
    journal = {first: ReplyRecord(first, "[RESULT] 3", 100, 20, at=now + 5),  # answered after its send
               third: ReplyRecord(third, None, error="timeout", at=now - 60)}  # a line from before it was resent
    assert [c for c, _ in unanswered([(first, now), (second, now), (third, now)], journal)] == [second, third]
    price = Price(1.0, 2.0)
    calls = {c.call_id: c for c in plan.calls}
    assert settle_unanswered_sends(Store.open(store), run_id, calls, journal, price, spec.max_tokens) == 2
    assert not sent_path(Store(store), run_id).exists()
    rows = query(store, "SELECT call_id, output_tokens_estimate, cost_usd_estimate FROM unanswered_sends "
                        "WHERE run_id = ? ORDER BY call_id", [run_id])
    assert sorted(r[0] for r in rows) == sorted([second, third]) and {r[1] for r in rows} == {20}
    counts = Store(store).read(run_counts, run_id)
    assert counts["unanswered_sends"] == 2 and counts["cost_estimated_usd"] == pytest.approx(sum(r[2] for r in rows))
    assert counts["cost_usd"] == pytest.approx(counts["cost_estimated_usd"]) and counts["cost_usd"] > 0
    # The same ledger settled again (a kill between the store write and the unlink) stores nothing twice.
    sent_at = query(store, "SELECT call_id, sent_at FROM unanswered_sends WHERE run_id = ?", [run_id])
    sent_path(Store(store), run_id).write_text("".join(json.dumps({"call_id": c, "at": a}) + "\n" for c, a in sent_at))
    settle_unanswered_sends(Store.open(store), run_id, calls, journal, price, spec.max_tokens)
    assert Store(store).read(run_counts, run_id)["unanswered_sends"] == 2


_HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


def test_a_lock_the_probe_misses_is_busy_not_damaged(fresh_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A holder writing in bursts may let go between DuckDB's refusal and the probe: DuckDB's own lock message
    decides (two missed probes used to raise StoreError, which the run writer did not retry)."""
    monkeypatch.setattr(connection, "_held_by_another_process", lambda path, read_only: False)
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(fresh_db), "2.0"], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        with pytest.raises(StoreBusyError, match="stayed busy"), connection.connect(fresh_db, busy_timeout_s=0.3):
            pass
        with connection.connect(fresh_db, busy_timeout_s=30) as con:  # waits for the holder to let go
            assert connection.scalar(con, "SELECT count(*) FROM store_identity") == 1
    finally:
        holder.wait(timeout=30)
