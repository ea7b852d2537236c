"""Adopt before you create: a batch run killed right after the provider accepted its batch never pays for it twice.

The child processes are SIGKILLed from a hook placed right after the backend's ``create`` returned, before the
batch id reaches the store: the exact window where the old engine submitted everything again on resume.
"""

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

from judgebias_core.engine.batch import BatchSettings, start_batch_run
from judgebias_core.errors import BatchAdoptionError
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.store.batch_queries import BatchIntent, pending_intents, record_intent, run_batches
from judgebias_core.store.handle import Store
from tests.engine_helpers import QUICK, SECRET, calls_of, query, rubric_spec
from tests.fake_provider_batch import BatchFakeProvider

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FAST = BatchSettings(poll_interval_s=0.01)
OPENAI_MODEL, ANTHROPIC_MODEL = "gpt-4o-mini", "claude-3-5-haiku-latest"

KILL_AFTER_CREATE = """
import os, signal, sys
from judgebias_core.engine import batch_anthropic, batch_openai
from judgebias_core.engine.batch import BatchSettings, start_batch_run
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.store.handle import Store
from tests.engine_helpers import QUICK

backend = batch_openai.OpenAIBatches if sys.argv[3] == "openai" else batch_anthropic.AnthropicBatches
real_create = backend.create

async def create_then_die(self, *args, **kwargs):
    await real_create(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # the provider holds the batch; the store only its intent

backend.create = create_then_die
start_batch_run(Store.open(sys.argv[1]), RunSpec.model_validate_json(sys.argv[2]), QUICK, BatchSettings(poll_interval_s=0.05),
                run_id=sys.argv[4])
"""


@pytest.fixture(scope="module")
def adopt_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("adopt") / "adopt.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture
def fake() -> Iterator[BatchFakeProvider]:
    with BatchFakeProvider(polls_needed=2) as provider:
        yield provider


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


def _kill_after_create(db: Path, spec: RunSpec, run_id: str) -> None:
    child = subprocess.run([sys.executable, "-c", KILL_AFTER_CREATE, str(db), spec.model_dump_json(), spec.provider,
                            run_id], cwd=PROJECT_ROOT, env=os.environ | {"PYTHONPATH": str(PROJECT_ROOT)},
                           timeout=180, check=False)
    assert child.returncode == -signal.SIGKILL


def _creates(fake: BatchFakeProvider) -> int:
    return sum(r.method == "POST" and r.path in ("/v1/batches", "/v1/messages/batches") for r in fake.requests)


def _resubmitted_without_failing(fake: BatchFakeProvider) -> list[str]:
    """Custom ids that went into another batch although their entry in an earlier batch had succeeded."""
    seen: dict[str, str] = {}
    wrong = []
    for batch in fake.created:
        for (custom_id, _), outcome in zip(batch.requests, batch.outcomes, strict=True):
            if seen.get(custom_id) == "succeeded":
                wrong.append(custom_id)
            seen[custom_id] = outcome
    return wrong


def test_a_run_killed_after_create_adopts_its_batch_and_retries_until_every_judgment_is_in(
        adopt_db: Path, fake: BatchFakeProvider) -> None:
    fake.fail_fraction(0.1, seed=3)  # 10% of every batch's entries come back errored or expired
    openai_spec = rubric_spec(fake, OPENAI_MODEL, seed=31, limit_items=20)
    _kill_after_create(adopt_db, openai_spec, "adopt-openai")
    [first] = fake.created
    assert len(first.requests) == 200 and first.metadata is not None
    assert first.metadata["judgebias_run"] == "adopt-openai"
    assert Store(adopt_db).read(run_batches, "adopt-openai") == []  # the kill came before the batch id was stored
    [intent] = Store(adopt_db).read(pending_intents, "adopt-openai")
    assert (intent.input_file_id, intent.intent_id) == (first.input_file_id, first.metadata["judgebias_intent"])

    resumed = start_batch_run(Store.open(adopt_db), openai_spec, QUICK, FAST, run_id="adopt-openai")
    anthropic_spec = rubric_spec(fake, ANTHROPIC_MODEL, provider="anthropic", seed=32, limit_items=20)
    beside = start_batch_run(Store.open(adopt_db), anthropic_spec, QUICK, FAST, run_id="adopt-anthropic")

    for outcome in (resumed, beside):
        assert (outcome.status, outcome.planned, outcome.completed, outcome.failed) == ("complete", 200, 200, 0)
        assert outcome.left_without_reply == ()
        assert set(calls_of(adopt_db, outcome.run_id)["parse_status"]) == {"ok"}
    failed_entries = sum(o != "succeeded" for b in fake.created for o in b.outcomes)
    assert failed_entries > 20  # the 10% share really came back errored or expired, in both runs
    assert _resubmitted_without_failing(fake) == []
    assert Store(adopt_db).read(run_batches, "adopt-openai")[0].adopted_by == "metadata"
    # after the kill, only retries of failed entries were submitted: no entry of the first batch twice for free
    assert resumed.sent_this_session == sum(len(b.requests) for b in fake.created[1:] if b.provider == "openai")
    assert Store(adopt_db).read(pending_intents, "adopt-openai") == []


def test_an_anthropic_batch_is_adopted_by_its_window_and_request_count(adopt_db: Path,
                                                                       fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, ANTHROPIC_MODEL, provider="anthropic", seed=33)
    fake.plant("anthropic", [f"older-{i}" for i in range(20)]).created_at -= 3600  # same count, an hour earlier
    fake.plant("anthropic", [f"other-{i}" for i in range(7)])  # in the window, another count
    _kill_after_create(adopt_db, spec, "adopt-window")
    outcome = start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-window")
    assert (outcome.status, outcome.completed, outcome.sent_this_session) == ("complete", 20, 0)
    assert _creates(fake) == 1
    [record] = Store(adopt_db).read(run_batches, "adopt-window")
    assert (record.batch_id, record.adopted_by) == (fake.created[-1].batch_id, "window")
    listings = [r for r in fake.requests if (r.method, r.path) == ("GET", "/v1/messages/batches")]
    assert listings and listings[0].query.get("limit") == "100"


def test_an_ambiguous_adoption_stops_until_resubmit_is_asked_for(adopt_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, ANTHROPIC_MODEL, provider="anthropic", seed=34)
    _kill_after_create(adopt_db, spec, "adopt-ambiguous")
    fake.plant("anthropic", [f"twin-{i}" for i in range(20)])  # another 20-request batch in the same minutes
    with pytest.raises(BatchAdoptionError, match="--resubmit"):
        start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-ambiguous")
    assert _creates(fake) == 1 and len(Store(adopt_db).read(pending_intents, "adopt-ambiguous")) == 1
    outcome = start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-ambiguous", resubmit=True)
    assert (outcome.status, outcome.completed, outcome.sent_this_session) == ("complete", 20, 20)
    assert _creates(fake) == 2 and Store(adopt_db).read(pending_intents, "adopt-ambiguous") == []


def _intent_of(db: Path, spec: RunSpec, run_id: str, at: float) -> BatchIntent:
    calls = Store(db).read(build_plan, spec, run_id).calls
    return BatchIntent(f"intent-{run_id}", run_id, spec.provider, 1, 0, tuple(c.call_id for c in calls), None, at)


def test_an_adopted_batch_holding_other_custom_ids_is_refused_then_submitted_anew(
        adopt_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, ANTHROPIC_MODEL, provider="anthropic", seed=35)
    # a session that died after writing its intent; the only batch in the window with that count is a stranger's
    record_intent(Store.open(adopt_db), _intent_of(adopt_db, spec, "adopt-foreign", time.time()))
    foreign = fake.plant("anthropic", [f"stranger-{i}" for i in range(20)])
    with pytest.raises(BatchAdoptionError, match="holds other requests"):
        start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-foreign")
    assert [b.status for b in Store(adopt_db).read(run_batches, "adopt-foreign", ("foreign",))] == ["foreign"]
    assert len(calls_of(adopt_db, "adopt-foreign")) == 0  # none of the stranger's replies were stored
    outcome = start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-foreign")
    assert (outcome.status, outcome.completed) == ("complete", 20)
    assert fake.created[-1].batch_id != foreign.batch_id and len(fake.created[-1].requests) == 20


def test_an_intent_the_provider_never_received_is_submitted(adopt_db: Path, fake: BatchFakeProvider) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL, seed=36)
    record_intent(Store.open(adopt_db), _intent_of(adopt_db, spec, "adopt-never", time.time()))
    created_before = len(fake.created)
    outcome = start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id="adopt-never")
    assert (outcome.status, outcome.completed, outcome.sent_this_session) == ("complete", 20, 20)
    assert len(fake.created) == created_before + 1
    assert query(adopt_db, "SELECT status FROM batch_intents WHERE intent_id = 'intent-adopt-never'") == [
        ("abandoned",)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_create_that_times_out_is_found_instead_of_made_twice(adopt_db: Path, fake: BatchFakeProvider,
                                                                provider: str) -> None:
    spec = rubric_spec(fake, OPENAI_MODEL if provider == "openai" else ANTHROPIC_MODEL, provider=provider, seed=37)
    fake.slow_creates(1, delay_s=QUICK.timeout_s * 3)  # the provider makes the batch, the reply comes too late
    outcome = start_batch_run(Store.open(adopt_db), spec, QUICK, FAST, run_id=f"adopt-timeout-{provider}")
    assert (outcome.status, outcome.completed, outcome.sent_this_session) == ("complete", 20, 20)
    assert len(fake.created) == 1 and _creates(fake) == 1
    [record] = Store(adopt_db).read(run_batches, f"adopt-timeout-{provider}")
    assert record.adopted_by == ("metadata" if provider == "openai" else "window")
