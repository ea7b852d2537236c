"""Batch mode against the fake batch endpoints: submit, poll, map back, retries, cache, limits, kill and resume."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.engine import read_progress, start_run
from judgebias_core.engine.batch import BatchSettings, batch_cost, describe_batches, start_batch_run
from judgebias_core.engine.preview import preview_run
from judgebias_core.engine.progress import read_batch_line
from judgebias_core.errors import InvalidArgument
from judgebias_core.judges.prices import price_of
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.store.batch_queries import run_batches
from judgebias_core.store.connection import transaction
from judgebias_core.store.handle import Store
from tests.engine_helpers import QUICK, SECRET, calls_of, query, rubric_spec
from tests.fake_provider import Fault
from tests.fake_provider_batch import BatchFakeProvider

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FAST = BatchSettings(poll_interval_s=0.01)
QUICK = QUICK.model_copy(update={"flush_every": 100, "flush_interval_s": 0.5})  # fewer store writes per run
OPENAI_MODEL, ANTHROPIC_MODEL = "gpt-4o-mini", "claude-3-5-haiku-latest"


@pytest.fixture(scope="module")
def batch_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch") / "batch.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture
def fake() -> Iterator[BatchFakeProvider]:
    with BatchFakeProvider(polls_needed=3) as provider:
        yield provider


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    yield


def _paths(fake: BatchFakeProvider) -> list[str]:
    return [f"{r.method} {r.path}" for r in fake.requests]


def test_openai_batch_run_maps_results_back_by_custom_id(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=11)
    seen: list[str] = []
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-openai",
                              on_batches=lambda states: seen.append(describe_batches(states)))
    assert (outcome.status, outcome.planned, outcome.completed, outcome.failed) == ("complete", 20, 20, 0)
    [batch] = fake.created
    calls = calls_of(batch_db, "b-openai")
    assert sorted(custom_id for custom_id, _ in batch.requests) == sorted(calls["call_id"])
    assert set(calls["parse_status"]) == {"ok"} and set(calls["score"]) == {4}
    price = price_of(OPENAI_MODEL)
    expected = [price.cost(i, o) / 2 for i, o in zip(calls["input_tokens"], calls["output_tokens"], strict=True)]
    assert calls["cost_usd"].tolist() == pytest.approx(expected)
    paths = _paths(fake)
    assert paths.count("POST /v1/files") == 1 and paths.count(f"GET /v1/batches/{batch.batch_id}") >= 3
    assert "POST /v1/chat/completions" not in paths
    assert f"1 batch(es), 10/20 requests done at the provider: {batch.batch_id} in_progress 10/20" in seen
    assert [(b.batch_id, b.status, b.round) for b in Store(batch_db).read(run_batches, "b-openai")] == [
        (batch.batch_id, "collected", 1)]


def test_anthropic_errored_requests_go_into_a_second_batch(batch_db: Path, fake: BatchFakeProvider) -> None:
    fake.fail_next("errored", 3)
    spec = rubric_spec(fake, ANTHROPIC_MODEL, provider="anthropic", seed=12)
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-anthropic")
    assert (outcome.status, outcome.completed, outcome.failed) == ("complete", 20, 0)
    first, second = fake.created
    assert [c for c, _ in second.requests] == [c for c, _ in first.requests[:3]]
    assert "temperature" in first.requests[0][1] and "extra_body" not in first.requests[0][1]
    assert [b.round for b in Store(batch_db).read(run_batches, "b-anthropic")] == [1, 2]


def test_expired_requests_without_retries_are_failures_a_resume_sends_again(batch_db: Path,
                                                                           fake: BatchFakeProvider) -> None:
    fake.fail_next("expired", 2)
    spec = rubric_spec(fake, OPENAI_MODEL, seed=13)
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, BatchSettings(poll_interval_s=0.01, retry_rounds=0),
                              run_id="b-expired")
    assert (outcome.completed, outcome.failed) == (18, 2)
    calls = calls_of(batch_db, "b-expired")
    assert calls.loc[calls["parse_status"] == "no_reply", "error"].str.contains("batch_expired").all()
    first_line = read_batch_line(Store(batch_db), "b-expired")
    assert first_line is not None and first_line.startswith("1 batch(es), 20/20 requests done")
    again = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-expired")
    assert (again.completed, again.failed, again.sent_this_session) == (20, 0, 2)
    assert len(fake.created) == 2 and len(calls_of(batch_db, "b-expired")) == 20
    # The Runs page shows the resumed session's batch, not the first session's line.
    assert read_batch_line(Store(batch_db), "b-expired") == (
        f"1 batch(es), 2/2 requests done at the provider: {fake.created[1].batch_id} completed 2/2")
    assert start_run(Store.open(batch_db), spec, QUICK, run_id="b-expired").sent_this_session == 0  # a live session
    assert read_batch_line(Store(batch_db), "b-expired") is None


def test_pairwise_batch_results_are_classified_into_pairs(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="anthropic", model=ANTHROPIC_MODEL,
                   base_url=fake.anthropic_url, limit_items=1, max_tokens=50, seed=20)
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-pairs")
    assert (outcome.completed, outcome.planned) == (60, 60)  # 30 candidates against the baseline, both orders
    classes = query(batch_db, "SELECT classification, count(*) FROM pair_outcomes WHERE study = 'b-pairs' GROUP BY ALL")
    assert classes == [("primacy", 30)]  # the fake always answers [[A]]


def test_a_poll_that_fails_in_transit_is_asked_again(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=19)
    fake.inject(Fault("500"), Fault("500"))
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-poll-fault")
    assert (outcome.status, outcome.completed) == ("complete", 20) and len(fake.created) == 1


def test_retries_can_go_live(batch_db: Path, fake: BatchFakeProvider) -> None:
    fake.fail_next("errored", 2)
    spec = rubric_spec(fake, OPENAI_MODEL, seed=14)
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, BatchSettings(poll_interval_s=0.01, retry_rounds=0, retry_live=True),
                              run_id="b-live")
    assert (outcome.completed, outcome.failed) == (20, 0)
    assert _paths(fake).count("POST /v1/chat/completions") == 2 and len(fake.created) == 1


def test_cached_replies_are_not_sent_again(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=15)
    start_run(Store.open(batch_db), spec, QUICK, run_id="b-cache-live")
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-cache-batch")
    assert (outcome.completed, outcome.sent_this_session) == (20, 0) and fake.created == []
    assert calls_of(batch_db, "b-cache-batch")["cached"].all()


def test_batches_are_split_to_the_limit(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=16)
    start_batch_run(Store.open(batch_db), spec, QUICK, BatchSettings(poll_interval_s=0.01, max_requests_per_batch=8),
                    run_id="b-split")
    assert [len(b.requests) for b in fake.created] == [8, 8, 4]


def test_plan_shows_the_batch_price_and_other_providers_are_refused(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=17)
    estimate = Store(batch_db).read(preview_run, spec, QUICK).estimate
    assert batch_cost(estimate) == pytest.approx(estimate.cost_usd / 2)
    with pytest.raises(InvalidArgument, match="batch mode"):
        start_batch_run(Store.open(batch_db), spec.model_copy(update={"provider": "simulated"}), QUICK, FAST)


def test_a_batch_collected_just_before_a_crash_is_not_counted_twice(batch_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=21)
    start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-recollect")
    with transaction(batch_db) as con:  # as if the process died between storing the replies and marking the batch
        con.execute("UPDATE run_batches SET status = 'submitted' WHERE run_id = 'b-recollect'")
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-recollect")
    assert (outcome.completed, outcome.sent_this_session, len(fake.created)) == (20, 0, 1)
    assert read_progress(Store(batch_db), "b-recollect").completed == 20
    assert [b.status for b in Store(batch_db).read(run_batches, "b-recollect")] == ["collected"]


KILLED_RUN = """
import sys
from judgebias_core.engine.batch import BatchSettings, start_batch_run
from judgebias_core.store.handle import Store
from tests.engine_helpers import QUICK
from judgebias_core.protocols.spec import RunSpec
spec = RunSpec.model_validate_json(sys.argv[2])
start_batch_run(Store.open(sys.argv[1]), spec, QUICK, BatchSettings(poll_interval_s=0.05), run_id="b-killed")
"""


def test_a_killed_process_resumes_its_batch_in_flight(batch_db: Path, fake: BatchFakeProvider) -> None:
    fake.polls_needed = 10**6  # the batch stays in progress until the test lets it end
    spec = rubric_spec(fake, OPENAI_MODEL, seed=18)
    child = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(batch_db), spec.model_dump_json()],
                             cwd=PROJECT_ROOT, env=os.environ | {"PYTHONPATH": str(PROJECT_ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not (fake.created and fake.created[0].polls_left < 10**6 - 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.created, "the child never submitted its batch"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    [batch] = fake.created
    assert [b.status for b in Store(batch_db).read(run_batches, "b-killed")] == ["submitted"]
    batch.polls_left = 2
    outcome = start_batch_run(Store.open(batch_db), spec, QUICK, FAST, run_id="b-killed")
    assert (outcome.status, outcome.completed, outcome.sent_this_session) == ("complete", 20, 0)
    assert len(fake.created) == 1 and _paths(fake).count("POST /v1/batches") == 1
    assert len(calls_of(batch_db, "b-killed")) == 20
