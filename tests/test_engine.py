"""The run engine with the real SDKs against the fake provider: stored rows, cache, faults, cap, cancel, replay."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.engine import request_cancel, start_run
from judgebias_core.errors import InvalidArgument
from judgebias_core.judges.prices import price_of
from judgebias_core.protocols.orderings import chosen_position
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.providers.endpoints import endpoint_label
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import list_runs
from tests.engine_helpers import QUICK, SECRET, calls_of, query, rubric_spec
from tests.fake_provider import FakeProvider, Fault


@pytest.fixture(scope="module")
def engine_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One writable copy of the first-launch store for this module (each test uses its own run ids and models)."""
    path = tmp_path_factory.mktemp("engine") / "engine.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    yield


def test_openai_rubric_run_stores_every_column(engine_db: Path, fake_provider: FakeProvider) -> None:
    spec = rubric_spec(fake_provider, "gpt-4o-mini", temperature=0.2)
    outcome = start_run(Store.open(engine_db), spec, QUICK, run_id="t-columns")
    assert (outcome.status, outcome.planned, outcome.completed, outcome.failed) == ("complete", 20, 20, 0)
    calls = calls_of(engine_db, "t-columns")
    assert len(calls) == 20 and fake_provider.request_count == 20
    assert set(calls["parse_status"]) == {"ok"} and set(calls["score"]) == {4}
    assert all(chosen_position(list(o), 4) == p for o, p in zip(calls["ordering"], calls["chosen_position"],
                                                                 strict=True))
    assert len({tuple(o) for o in calls["ordering"]}) == 10 and set(calls["rubric_id"]) == {"summeval-coherence"}
    assert (calls["study"] == "t-columns").all() and set(calls["judge"]) == {
        f"gpt-4o-mini@{endpoint_label(fake_provider.openai_url)}"}  # a loopback base URL is named in the judge
    assert (calls["input_tokens"] > 0).all() and (calls["latency_ms"] > 0).all()
    price = price_of("gpt-4o-mini")
    expected = [price.cost(i, o) for i, o in zip(calls["input_tokens"], calls["output_tokens"], strict=True)]
    assert calls["cost_usd"].tolist() == pytest.approx(expected)
    assert calls["prompt"].str.contains("###Score Rubrics:").all() and calls["raw_output"].notna().all()
    template_id, text = query(engine_db, "SELECT t.template_id, t.text FROM runs r JOIN prompt_templates t "
                                         "USING (template_id) WHERE r.run_id = 't-columns'")[0]
    assert template_id == hashlib.sha256(text.encode()).hexdigest() and set(calls["template_id"]) == {template_id}
    status, planned, params = query(engine_db, "SELECT status, planned, params FROM runs WHERE run_id = 't-columns'")[0]
    params = json.loads(params)
    assert (status, planned) == ("complete", 20)
    assert (params["temperature"], params["max_tokens"], params["seed"]) == (0.2, 50, 1)


def test_anthropic_swap_run_fills_pairs(engine_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.reply_with(lambda prompt, body: "The first one. [[A]]")
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="anthropic", model="claude-test",
                   base_url=fake_provider.anthropic_url, limit_items=1, max_tokens=50,
                   candidates=("alpaca-13b", "gpt-4", "llama-13b"))
    outcome = start_run(Store.open(engine_db), spec, QUICK, run_id="t-swap")
    assert outcome.completed == 6
    calls = calls_of(engine_db, "t-swap")
    assert set(calls["order_label"]) == {"original", "swapped"} and set(calls["options"]) == {3}
    assert (calls["first_candidate"] == calls["slots"].map(lambda s: s[0])).all()
    pairs = query(engine_db, "SELECT classification, count(*) FROM pair_outcomes WHERE study = 't-swap' GROUP BY 1")
    assert pairs == [("primacy", 3)]


def test_an_identical_call_is_never_paid_twice_but_repetitions_are_sent(engine_db: Path,
                                                                        fake_provider: FakeProvider) -> None:
    spec = rubric_spec(fake_provider, "gpt-4o-mini", limit_items=1, seed=2)
    first = start_run(Store.open(engine_db), spec, QUICK, run_id="t-cache-1")
    assert fake_provider.request_count == 10 and first.cost_usd > 0
    second = start_run(Store.open(engine_db), spec, QUICK, run_id="t-cache-2")
    assert fake_provider.request_count == 10, "the second identical run sent requests"
    assert (second.completed, second.cost_usd) == (10, 0.0)
    assert calls_of(engine_db, "t-cache-2")["cached"].all()
    repeat = spec.model_copy(update={"protocol": "rubric-repeat", "repeats": 4})
    start_run(Store.open(engine_db), repeat, QUICK, run_id="t-cache-3")
    assert fake_provider.request_count == 10 + 3, "repetitions 2-4 must be sent (repetition 1 is cached)"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_faults_are_retried_until_every_call_has_a_reply(provider: str, engine_db: Path,
                                                         fake_provider: FakeProvider) -> None:
    fake_provider.inject(Fault("429", retry_after=0), Fault("500"), Fault("timeout", delay_s=1.0),
                         Fault("truncated"), Fault("garbage"))
    spec = rubric_spec(fake_provider, f"fault-{provider}", provider=provider, limit_items=1)
    outcome = start_run(Store.open(engine_db), spec, QUICK, run_id=f"t-faults-{provider}")
    assert (outcome.completed, outcome.failed, outcome.parse_failures) == (10, 0, 0)
    assert fake_provider.request_count == 15


def test_retry_after_is_honoured(engine_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.inject(Fault("429", retry_after=1))
    spec = rubric_spec(fake_provider, "retry-after", limit_items=1, orderings="12345")
    outcome = start_run(Store.open(engine_db), spec, QUICK.model_copy(update={"concurrency": 1}), run_id="t-retry-after")
    assert outcome.completed == 1
    first, second = fake_provider.requests
    assert second.received_at - first.received_at >= 0.95


def test_calls_with_no_reply_are_stored_then_resumed(engine_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.inject(*[Fault("500")] * 4)
    spec = rubric_spec(fake_provider, "flaky", limit_items=1)
    once = QUICK.model_copy(update={"max_attempts": 1, "concurrency": 1})
    outcome = start_run(Store.open(engine_db), spec, once, run_id="t-no-reply")
    assert (outcome.completed, outcome.failed) == (6, 4)
    failed = calls_of(engine_db, "t-no-reply").query("parse_status == 'no_reply'")
    assert failed["raw_output"].isna().all() and failed["error"].str.contains("500").all()
    resumed = start_run(Store.open(engine_db), spec, once, run_id="t-no-reply")
    assert (resumed.completed, resumed.failed, resumed.sent_this_session) == (10, 0, 4)
    assert len(calls_of(engine_db, "t-no-reply")) == 10 and fake_provider.request_count == 14


def test_unparseable_replies_are_kept_raw_and_counted(engine_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.reply_with(lambda prompt, body: "I would rather not score this.")
    outcome = start_run(Store.open(engine_db), rubric_spec(fake_provider, "refuser", limit_items=1), QUICK, run_id="t-unparsed")
    assert (outcome.completed, outcome.parse_failures, outcome.failed) == (10, 10, 0)
    calls = calls_of(engine_db, "t-unparsed")
    assert (calls["raw_output"] == "I would rather not score this.").all() and calls["score"].isna().all()
    row = Store(engine_db).read(list_runs).set_index("run_id").loc["t-unparsed"]
    assert (row["completed"], row["parse_failures"], row["failed"]) == (10, 10, 0)


def test_the_spending_cap_stops_the_run_cleanly(engine_db: Path, fake_provider: FakeProvider, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"pricey": [1000.0, 1000.0]}))  # USD per million tokens
    monkeypatch.setenv("JUDGEBIAS_PRICES", str(prices))
    spec = rubric_spec(fake_provider, "pricey", limit_items=2)
    capped = QUICK.model_copy(update={"max_cost_usd": 2.0, "concurrency": 2})
    outcome = start_run(Store.open(engine_db), spec, capped, run_id="t-cap")
    assert outcome.status == "stopped: spending cap"
    assert 0 < outcome.completed < outcome.planned and outcome.cost_usd <= 2.0
    assert fake_provider.request_count == outcome.completed
    status, params = query(engine_db, "SELECT status, params FROM runs WHERE run_id = 't-cap'")[0]
    assert status == "stopped: spending cap" and json.loads(params)["settings"]["max_cost_usd"] == 2.0


def test_a_cancel_request_stops_after_the_calls_in_flight(engine_db: Path, fake_provider: FakeProvider) -> None:
    def reply(prompt: str, body: dict[str, object]) -> str:
        if fake_provider.request_count == 3:
            request_cancel(Store(engine_db), "t-cancel")
        return "[RESULT] 2"

    fake_provider.reply_with(reply)
    fake_provider.latency_s = 0.1  # the run notices a cancel request within a quarter of a second
    outcome = start_run(Store.open(engine_db), rubric_spec(fake_provider, "cancelled", limit_items=2),
                        QUICK.model_copy(update={"concurrency": 1}), run_id="t-cancel")
    assert outcome.status == "cancelled" and 3 <= outcome.completed < 20


def test_no_key_reaches_the_store_or_the_run_files(engine_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.inject(*[Fault("500")] * 30)
    start_run(Store.open(engine_db), rubric_spec(fake_provider, "keyless", limit_items=1),
              QUICK.model_copy(update={"max_attempts": 1}), run_id="t-keys")
    dump = query(engine_db, "SELECT (SELECT count(*) FROM judge_calls j WHERE j.run_id = 't-keys' AND "
                            "contains(j::VARCHAR, ?)) + (SELECT count(*) FROM runs r WHERE contains(r::VARCHAR, ?)) "
                            "+ (SELECT count(*) FROM judges WHERE contains(judges::VARCHAR, ?))", [SECRET] * 3)
    assert dump == [(0,)]
    assert query(engine_db, "SELECT count(*) FROM judge_calls WHERE run_id = 't-keys' AND parse_status = "
                            "'no_reply' AND contains(error, '500')") == [(10,)]
    for path in Store(engine_db).run_folder.iterdir():
        assert SECRET not in path.read_text(encoding="utf-8"), path.name


def test_replay_reproduces_the_bundled_classification(engine_db: Path) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="replay", model="gpt-4-0613",
                   limit_items=3)
    outcome = start_run(Store.open(engine_db), spec, QUICK, run_id="t-replay")
    assert (outcome.completed, outcome.failed) == (180, 0)
    counts = query(engine_db, "SELECT study, classification, count(*) FROM pair_outcomes WHERE dataset_id = "
                              "'mtbench' AND item_id IN ('81', '82', '83') AND ((study = 'full' AND judge = "
                              "'gpt-4-0613') OR study = 't-replay') GROUP BY ALL ORDER BY 2, 1")
    bundled = {c: n for s, c, n in counts if s == "full"}
    replayed = {c: n for s, c, n in counts if s == "t-replay"}
    assert replayed == bundled and sum(bundled.values()) == 90


def test_a_run_id_cannot_be_reused_with_other_settings(engine_db: Path) -> None:
    spec = RunSpec(dataset_id="summeval", protocol="rubric-repeat", provider="simulated", model="s", limit_items=1)
    start_run(Store.open(engine_db), spec, QUICK, run_id="t-same")
    with pytest.raises(InvalidArgument, match="limit_items"):
        start_run(Store.open(engine_db), spec.model_copy(update={"limit_items": 2}), QUICK, run_id="t-same")


def test_structured_output_sends_a_schema_and_parses_json(engine_db: Path, fake_provider: FakeProvider) -> None:
    def reply(prompt: str, body: dict[str, object]) -> str:
        schema = body["response_format"]["json_schema"]["schema"]  # type: ignore[index]
        assert schema["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
        return json.dumps({"feedback": "clear", "score": 2})

    fake_provider.reply_with(reply)
    spec = rubric_spec(fake_provider, "structured", limit_items=1, structured_output=True)
    outcome = start_run(Store.open(engine_db), spec, QUICK, run_id="t-structured")
    assert (outcome.completed, outcome.parse_failures) == (10, 0)
    calls = calls_of(engine_db, "t-structured")
    assert set(calls["parser"]) == {"json"} and set(calls["score"]) == {2}
    with pytest.raises(InvalidArgument, match="structured output"):
        start_run(Store.open(engine_db), spec.model_copy(update={"provider": "anthropic"}), QUICK, run_id="t-structured-2")


HOLD_RUN_LOCK = ("import sys, time\nfrom judgebias_core.engine.progress import RunLock\n"
                 "from judgebias_core.store.handle import Store\n"
                 "with RunLock(Store(sys.argv[1]), sys.argv[2]):\n    print('held', flush=True)\n    time.sleep(60)\n")


def test_a_run_still_going_in_another_process_is_not_started_twice(engine_db: Path) -> None:
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", HOLD_RUN_LOCK, str(engine_db), "t-locked"],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])
    spec = RunSpec(dataset_id="summeval", protocol="rubric-repeat", provider="simulated", model="s", limit_items=1)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InvalidArgument, match=f"already running \\(process {holder.pid}\\)"):
            start_run(Store.open(engine_db), spec, QUICK, run_id="t-locked")
    finally:
        holder.kill()  # SIGKILL: no clean-up runs, the OS drops the lock with the process
        holder.wait()
    assert start_run(Store.open(engine_db), spec, QUICK, run_id="t-locked").status == "complete"


def test_launches_racing_for_one_run_get_the_lock_once(engine_db: Path) -> None:
    import threading

    from judgebias_core.engine.journal import run_file
    from judgebias_core.engine.progress import RunLock

    lock_file = run_file(Store(engine_db), "t-race", ".lock")
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    lock_file.write_text("999999999")  # a pid left by some earlier process: the content decides nothing
    start, release = threading.Barrier(8), threading.Event()
    outcomes: list[str] = []

    def launch() -> None:
        start.wait()
        try:
            with RunLock(Store(engine_db), "t-race"):
                outcomes.append("held")
                release.wait(10)
        except InvalidArgument:
            outcomes.append("refused")

    threads = [threading.Thread(target=launch) for _ in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while outcomes.count("refused") < 7 and time.monotonic() < deadline:  # the holder waits for the others
        time.sleep(0.01)
    release.set()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["held"] + ["refused"] * 7
    with RunLock(Store(engine_db), "t-race"):  # released on exit, taken again
        assert lock_file.read_text() == str(os.getpid())
    assert lock_file.exists() and lock_file.read_text() == ""


def test_logprobs_give_the_expected_score_and_survive_the_cache(engine_db: Path, fake_provider: FakeProvider) -> None:
    spec = rubric_spec(fake_provider, "geval", limit_items=1, logprobs=True)
    start_run(Store.open(engine_db), spec, QUICK, run_id="t-geval")
    assert fake_provider.requests[0].body["logprobs"] is True
    calls = calls_of(engine_db, "t-geval")
    assert set(calls["score"]) == {4}
    assert calls["expected_score"].tolist() == pytest.approx([4 * 0.6 + 3 * 0.3 + 5 * 0.1] * 10)
    start_run(Store.open(engine_db), spec, QUICK, run_id="t-geval-cached")
    cached = calls_of(engine_db, "t-geval-cached")
    assert cached["cached"].all() and cached["expected_score"].tolist() == pytest.approx([3.8] * 10)
    assert fake_provider.request_count == 10
