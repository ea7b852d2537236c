"""SIGKILL a CLI run mid-way, run the same command again: nothing lost, no duplicates, no received reply re-sent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgebias_core.cli import main
from judgebias_core.engine.journal import journal_path, read_journal
from judgebias_core.store.handle import Store
from tests.engine_helpers import SECRET, calls_of
from tests.fake_provider import FakeProvider

PROJECT_ROOT = Path(__file__).resolve().parents[1]
RUN_ID = "kill-test"


def _command(db: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "judgebias_core", "--db", str(db), "run", "--dataset", "summeval",
            "--protocol", "rubric-permutation", "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", url,
            "--limit-items", "6", "--concurrency", "2", "--max-tokens", "50", "--timeout", "10", "--run-id", RUN_ID,
            "--json"]


def _env() -> dict[str, str]:
    return dict(os.environ) | {"OPENAI_API_KEY": SECRET, "PYTHONPATH": str(PROJECT_ROOT)}


def _wait_for_journal_lines(path: Path, count: int, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists() and sum(1 for _ in path.open(encoding="utf-8")) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the run did not journal {count} replies in time (exit code {process.poll()})")


def _settled_request_count(fake: FakeProvider, quiet_s: float = 0.5) -> int:
    """The server's request count once requests of the killed process stop arriving."""
    count, since = fake.request_count, time.monotonic()
    while time.monotonic() - since < quiet_s:
        time.sleep(0.05)
        if fake.request_count != count:
            count, since = fake.request_count, time.monotonic()
    return count


def test_sigkill_then_resume_loses_nothing_and_resends_nothing(bundled_db: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with FakeProvider(latency_s=0.05) as fake:
        journal = journal_path(Store(bundled_db), RUN_ID)
        first = subprocess.Popen(_command(bundled_db, fake.openai_url), env=_env(), cwd=PROJECT_ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_journal_lines(journal, 12, first, timeout_s=120)
        first.send_signal(signal.SIGKILL)
        _, first_err = first.communicate()
        received = {cid for cid, r in read_journal(journal).items() if r.text is not None}
        assert 12 <= len(received) < 60 and first.returncode == -signal.SIGKILL
        sent_before = _settled_request_count(fake)
        cut_off = sent_before - len(received)  # requests the server got whose reply the kill kept from the journal

        second = subprocess.run(_command(bundled_db, fake.openai_url), env=_env(), cwd=PROJECT_ROOT,
                                capture_output=True, timeout=300, check=False)
        assert second.returncode == 0, second.stderr.decode()
        outcome = json.loads(second.stdout)
        assert (outcome["planned"], outcome["completed"], outcome["failed"]) == (60, 60, 0)
        assert outcome["replayed_from_journal"] >= 0 and outcome["sent_this_session"] == 60 - len(received)
        # Those were paid for: counted in the cost as an estimate (the ledger line goes out before the request, so
        # a kill between the two may count one more; concurrency 2 bounds them).
        assert cut_off <= outcome["unanswered_sends"] <= 2
        assert (outcome["cost_estimated_usd"] > 0) == (outcome["unanswered_sends"] > 0)

        calls = calls_of(bundled_db, RUN_ID)
        assert len(calls) == 60 and calls["call_id"].is_unique and (calls["parse_status"] == "ok").all()
        prompt_of = dict(zip(calls["call_id"], calls["prompt"], strict=True))
        resent = [r for r in fake.requests[sent_before:]
                  if any(prompt_of[cid].endswith(r.body["messages"][-1]["content"]) for cid in received)]
        assert resent == [], "a call whose reply was journaled was requested again"
        assert fake.request_count - sent_before == 60 - len(received)

        assert main(["--db", str(bundled_db), "runs", "--json"]) == 0
        listed = capsys.readouterr().out
        row = next(r for r in json.loads(listed) if r["run_id"] == RUN_ID)
        assert (row["planned"], row["completed"], row["failed"], row["parse_failures"]) == (60, 60, 0, 0)
        assert row["cost_usd"] > 0 and row["status"] == "complete"
        assert (row["unanswered_sends"], row["cost_estimated_usd"]) == (outcome["unanswered_sends"],
                                                                         outcome["cost_estimated_usd"])
        assert row["cost_usd"] == outcome["cost_usd"]
        for text in (first_err, second.stderr, second.stdout, listed.encode()):
            assert SECRET.encode() not in text
