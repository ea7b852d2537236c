"""Batch mode as a user reaches it: `run --mode batch`, the background launcher, and the New run page."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from judgebias_core.cli import main
from judgebias_core.engine import read_progress
from judgebias_core.engine.background import launch_background
from judgebias_core.engine.batch import BATCH_PRICE_FACTOR, BatchSettings
from judgebias_core.engine.progress import read_batch_line
from judgebias_core.judges.prices import price_of
from judgebias_core.store.batch_queries import BatchIntent, record_intent
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.engine_helpers import QUICK, query, rubric_spec
from tests.fake_provider_batch import BatchFakeProvider

MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-3-5-haiku-latest"}
pytestmark = pytest.mark.usefixtures("provider_keys")


@pytest.fixture(scope="module")
def cli_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch-cli") / "batch.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


def _run_args(db: Path, provider: str, url: str, run_id: str) -> list[str]:
    return ["--db", str(db), "run", "--dataset", "summeval", "--protocol", "rubric-permutation",
            "--provider", provider, "--model", MODELS[provider], "--base-url", url, "--limit-items", "2",
            "--max-tokens", "50", "--seed", "1", "--run-id", run_id, "--mode", "batch", "--poll-interval", "0.01"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_run_mode_batch_completes_at_the_batch_price(cli_db: Path, batch_fake_provider: BatchFakeProvider,
                                                     provider: str, capsys: pytest.CaptureFixture[str]) -> None:
    fake = batch_fake_provider
    url = fake.openai_url if provider == "openai" else fake.anthropic_url
    run_id = f"cli-batch-{provider}"
    assert main(_run_args(cli_db, provider, url, run_id)) == 0
    err = capsys.readouterr().err
    assert "1 batch(es), 20/20 requests done at the provider" in err  # describe_batches on stderr
    assert len(fake.created) == 1 and len(fake.created[0].requests) == 20  # 2 summaries x 10 orderings
    assert not [r for r in fake.requests if r.path in ("/v1/chat/completions", "/v1/messages")]  # no live call

    assert main(["--db", str(cli_db), "runs", "--json"]) == 0
    run = next(r for r in json.loads(capsys.readouterr().out) if r["run_id"] == run_id)
    assert (run["status"], run["planned"], run["completed"], run["failed"]) == ("complete", 20, 20, 0)
    tokens = query(cli_db, "SELECT sum(input_tokens), sum(output_tokens) FROM judge_calls WHERE run_id = ?", [run_id])
    price = price_of(MODELS[provider])
    assert price is not None
    live = price.cost(int(tokens[0][0]), int(tokens[0][1]))
    assert run["cost_usd"] == pytest.approx(live * BATCH_PRICE_FACTOR) and live > 0


def test_run_mode_batch_refuses_a_provider_without_a_batch_api(cli_db: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--db", str(cli_db), "run", "--dataset", "summeval", "--protocol", "rubric-repeat",
                 "--provider", "simulated", "--model", "demo-judge", "--limit-items", "1", "--mode", "batch"])
    assert code == 2
    assert "--mode batch needs --provider openai or anthropic" in capsys.readouterr().err
    assert not query(cli_db, "SELECT 1 FROM runs WHERE provider = 'simulated' AND model = 'demo-judge' "
                             "AND dataset_id = 'summeval' AND protocol = 'rubric-repeat' AND planned = 10")
    bad = _run_args(cli_db, "openai", "http://127.0.0.1:9/v1", "cli-bad-poll") + ["--poll-interval", "0"]
    assert main(bad) == 2
    assert "batch settings: poll_interval_s" in capsys.readouterr().err


def test_background_launch_runs_the_batch_in_its_own_process(cli_db: Path,
                                                              batch_fake_provider: BatchFakeProvider) -> None:
    spec = rubric_spec(batch_fake_provider, MODELS["anthropic"], provider="anthropic", seed=5)
    launch_background(Store.open(cli_db), spec, QUICK, "bg-batch", batch=BatchSettings(poll_interval_s=0.05))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        progress = read_progress(Store(cli_db), "bg-batch")
        if progress is not None and progress.status != "running":
            break
        time.sleep(0.2)
    assert progress is not None and progress.status == "complete" and progress.completed == 20
    assert [b.provider for b in batch_fake_provider.created] == ["anthropic"]  # the batch API, not live calls
    assert "20/20 requests done" in (read_batch_line(Store(cli_db), "bg-batch") or "")
    params = json.loads(str(query(cli_db, "SELECT params FROM runs WHERE run_id = 'bg-batch'")[0][0]))
    assert params["batch"]["poll_interval_s"] == 0.05  # kept, so a resume from the Runs page stays in batch mode


def test_new_run_page_offers_batch_mode_with_its_cost(app_env: Path) -> None:
    at = open_page("new_run.py")
    next(box for box in at.selectbox if box.label == "Judge provider").set_value("anthropic").run()
    assert not at.exception
    assert "Cost in batch mode (estimate)" in {m.label for m in at.metric}
    next(r for r in at.radio if r.label == "Mode").set_value("batch").run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    live = float(metrics["Cost (estimate)"].lstrip("$").replace(",", ""))
    in_batch = float(metrics["Cost in batch mode (estimate)"].lstrip("$").replace(",", ""))
    assert live > 0 and in_batch == pytest.approx(live * BATCH_PRICE_FACTOR, abs=0.01)
    assert metrics["Time (estimate)"] == "up to 24 h"
    assert any(n.label == "Poll every (s)" for n in at.number_input)


def test_an_ambiguous_resume_exits_2_until_resubmit(cli_db: Path, batch_fake_provider: BatchFakeProvider,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    fake = batch_fake_provider
    # a session that died after writing the intent of a 20-request batch; two such batches are at the provider
    record_intent(Store.open(cli_db), BatchIntent("cli-intent", "cli-ambiguous", "anthropic", 1, 0,
                                      tuple(f"c{i}" for i in range(20)), None, time.time()))
    for twin in ("a", "b"):
        fake.plant("anthropic", [f"{twin}{i}" for i in range(20)])
    args = _run_args(cli_db, "anthropic", fake.anthropic_url, "cli-ambiguous")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "2 anthropic batches" in err and "--resubmit" in err and "Traceback" not in err
    assert len(fake.created) == 2  # nothing submitted
    assert main(args + ["--resubmit"]) == 0
    out = capsys.readouterr().out
    assert "20 of 20 calls with a reply" in out and "left without a reply" not in out
    assert len(fake.created) == 3


def test_the_summary_says_what_is_left_and_why(cli_db: Path, batch_fake_provider: BatchFakeProvider,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    fake = batch_fake_provider
    fake.fail_next("expired", 20)
    args = _run_args(cli_db, "openai", fake.openai_url, "cli-left") + ["--batch-retries", "0"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "0 of 20 calls with a reply" in out
    assert "20 left without a reply (20 expired): run the same command again to retry them" in out
    assert main(args) == 0
    assert "20 of 20 calls with a reply" in capsys.readouterr().out
