"""``sent_this_session`` counts what reached the provider, checked against the fake's own request count: a
spending-cap stop used to report every pending call as sent (50 while the provider received 3)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.engine import start_run
from judgebias_core.engine.batch import BatchSettings, start_batch_run
from judgebias_core.store.handle import Store
from tests.engine_helpers import QUICK, SECRET, rubric_spec
from tests.fake_provider_batch import BatchFakeProvider

LIVE_PATHS = ("/v1/chat/completions", "/v1/messages")


@pytest.fixture(scope="module")
def count_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sent") / "sent.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture
def fake() -> Iterator[BatchFakeProvider]:
    with BatchFakeProvider(polls_needed=1) as provider:
        yield provider


@pytest.fixture(autouse=True)
def _pricey(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"pricey": [1000.0, 1000.0]}))  # USD per million tokens
    monkeypatch.setenv("JUDGEBIAS_PRICES", str(prices))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def _live_requests(fake: BatchFakeProvider) -> int:
    return sum(r.path in LIVE_PATHS for r in fake.requests)


def test_a_capped_live_session_counts_only_the_calls_it_sent(count_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, "pricey", limit_items=5)
    capped = QUICK.model_copy(update={"max_cost_usd": 4.0, "concurrency": 2})
    outcome = start_run(Store.open(count_db), spec, capped, run_id="sent-cap")
    assert outcome.status == "stopped: spending cap" and outcome.planned == 50
    assert 0 < outcome.sent_this_session == _live_requests(fake) < 50
    before = _live_requests(fake)
    resumed = start_run(Store.open(count_db), spec, QUICK, run_id="sent-cap")  # no cap: the rest goes out
    assert resumed.status == "complete"
    assert resumed.sent_this_session == _live_requests(fake) - before == 50 - outcome.sent_this_session
    assert start_run(Store.open(count_db), spec, QUICK, run_id="sent-cap").sent_this_session == 0


def test_a_capped_batch_session_counts_the_requests_in_its_batches(count_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, "pricey", limit_items=5, seed=3)
    capped = QUICK.model_copy(update={"max_cost_usd": 4.0})
    outcome = start_batch_run(Store.open(count_db), spec, capped, BatchSettings(poll_interval_s=0.01), run_id="sent-batch-cap")
    assert outcome.status == "stopped: spending cap"
    [batch] = fake.created
    assert 0 < outcome.sent_this_session == len(batch.requests) < 50 and _live_requests(fake) == 0
    assert outcome.left_without_reply == (("not sent: spending cap", 50 - len(batch.requests)),)


def test_retry_rounds_then_live_and_what_is_left(count_db: Path, fake: BatchFakeProvider) -> None:
    fake.fail_fraction(1.0, seed=1)  # every batch entry errors or expires
    spec = rubric_spec(fake, "gpt-4o-mini", seed=4)
    live = start_batch_run(Store.open(count_db), spec, QUICK, BatchSettings(poll_interval_s=0.01, retry_rounds=2,
                                                                retry_live=True), run_id="sent-live-after")
    assert (live.completed, live.failed, len(fake.created)) == (20, 0, 3)  # first round and two retry rounds
    assert live.sent_this_session == 3 * 20 + _live_requests(fake) and _live_requests(fake) == 20
    left = start_batch_run(Store.open(count_db), spec.model_copy(update={"seed": 5}), QUICK,
                           BatchSettings(poll_interval_s=0.01, retry_rounds=1), run_id="sent-left")
    assert (left.completed, left.failed) == (0, 20)
    last = fake.created[-1].outcomes
    assert dict(left.left_without_reply) == {kind: last.count(kind) for kind in ("errored", "expired") if
                                             kind in last}
