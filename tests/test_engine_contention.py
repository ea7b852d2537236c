"""Issue 27: a CLI run beside another process that holds the store's write lock in bursts, while uploads land:
every planned judgment stored exactly once and the status correct (a held lock is waited for, never taken for a
damaged store and never a lost batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from judgebias_core.engine.journal import journal_path, read_journal
from judgebias_core.store.handle import Store
from tests.engine_helpers import SECRET, calls_of, query
from tests.fake_provider import FakeProvider
from tests.upload_helpers import real_table

PROJECT_ROOT = Path(__file__).resolve().parents[1]
RUN_ID = "contention"
UPLOADS = 3
UPLOAD_ROWS = 40

# Holds the write lock for 0.25 s, lets go for 0.05 s, until the stop file appears; counts its bursts.
_BURSTS = """
import sys, time, duckdb
db, stop = sys.argv[1], sys.argv[2]
bursts = 0
while True:
    try:
        con = duckdb.connect(db)
    except duckdb.IOException:  # the run or an upload holds it now
        time.sleep(0.01)
        continue
    con.execute("SELECT count(*) FROM judge_calls").fetchall()
    time.sleep(0.25)
    con.close()
    bursts += 1
    try:
        open(stop).close()
        break
    except OSError:
        time.sleep(0.05)
print(bursts)
"""


def _env() -> dict[str, str]:
    return dict(os.environ) | {"OPENAI_API_KEY": SECRET, "PYTHONPATH": str(PROJECT_ROOT)}


def _cli(db: Path, *argv: str) -> list[str]:
    return [sys.executable, "-m", "judgebias_core", "--db", str(db), *argv]


def test_a_cli_run_beside_lock_bursts_and_uploads_stores_every_judgment_once(bundled_db: Path,
                                                                             tmp_path: Path) -> None:
    pairs = real_table("autoj-pairwise/pairs.jsonl.gz")
    files = []
    for number in range(UPLOADS):
        path = tmp_path / f"pairs-{number}.jsonl"
        pairs.iloc[number * UPLOAD_ROWS:(number + 1) * UPLOAD_ROWS].to_json(path, orient="records", lines=True,
                                                                           force_ascii=False)
        files.append(path)
    stop = tmp_path / "stop"
    with FakeProvider(latency_s=0.02) as fake:
        holder = subprocess.Popen([sys.executable, "-c", _BURSTS, str(bundled_db), str(stop)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        run = subprocess.Popen(_cli(bundled_db, "run", "--dataset", "summeval", "--protocol", "rubric-permutation",
                                    "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", fake.openai_url,
                                    "--limit-items", "6", "--concurrency", "2", "--max-tokens", "50", "--timeout",
                                    "10", "--run-id", RUN_ID, "--json"),
                               env=_env(), cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        uploads = [subprocess.run(_cli(bundled_db, "upload", "pairs", "--file", str(path), "--dataset",
                                       f"contention-{number}", "--baseline", "response_1", "--json"),
                                  env=_env(), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
                                  check=False)
                   for number, path in enumerate(files)]
        out, err = run.communicate(timeout=600)
        stop.touch()
        bursts, holder_err = holder.communicate(timeout=60)
        requests = fake.request_count

    assert holder.returncode == 0 and int(bursts) > 3, holder_err
    assert run.returncode == 0, err.decode()
    outcome = json.loads(out)
    assert (outcome["status"], outcome["summary"], outcome["planned"], outcome["completed"], outcome["failed"]) == (
        "complete", "complete", 60, 60, 0)
    assert requests == outcome["sent_this_session"] == 60  # nothing sent twice
    calls = calls_of(bundled_db, RUN_ID)
    assert len(calls) == 60 and calls["call_id"].is_unique and (calls["parse_status"] == "ok").all()
    assert set(calls["call_id"]) == set(read_journal(journal_path(Store(bundled_db), RUN_ID)))
    assert query(bundled_db, "SELECT status FROM runs WHERE run_id = ?", [RUN_ID]) == [("complete",)]
    for number, upload in enumerate(uploads):
        assert upload.returncode == 0, upload.stderr
        assert json.loads(upload.stdout)["inserted"]["items"] == UPLOAD_ROWS
        assert query(bundled_db, "SELECT count(*) FROM items WHERE dataset_id = ?", [f"contention-{number}"]) == [
            (UPLOAD_ROWS,)]
    assert b"Traceback" not in err
