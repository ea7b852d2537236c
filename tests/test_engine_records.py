"""The engine's contracts: the journal's reply record (what resume depends on) and the run statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.engine.journal import Journal, read_journal
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.models import RunStatus

# Lines exactly as the journal was written before ReplyRecord (live reply, live failure, cache hit, batch reply).
EARLIER_LINES: list[dict[str, Any]] = [
    {"call_id": "a", "text": "[RESULT] 4", "input_tokens": 12, "output_tokens": 3, "latency_ms": 40.5,
     "cost_usd": 0.25, "cached": False, "cache_key": "k1", "attempts": 2, "at": 1.5,
     "score_logprobs": {"4": -0.1, "3": -2.3}},
    {"call_id": "b", "text": None, "error": "APIStatusError (HTTP 500): boom", "cost_usd": 0.0, "cached": False,
     "latency_ms": 3.0, "at": 2.0},
    {"call_id": "c", "text": "[[A]]", "input_tokens": None, "output_tokens": None, "latency_ms": 0.0,
     "cost_usd": 0.0, "cached": True, "cache_key": "k2", "at": 3.0},
    {"call_id": "d", "text": "[[B]]", "input_tokens": 5, "output_tokens": 1, "latency_ms": None, "cost_usd": 0.5,
     "cached": False, "cache_key": None, "batch": True, "at": 4.0},
]


def test_a_journal_of_the_earlier_format_reads_back_field_by_field(tmp_path: Path) -> None:
    path = tmp_path / "run.journal.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in EARLIER_LINES) + '{"call_id": "e", "te',
                    encoding="utf-8")  # a torn last line: killed mid-write
    records = read_journal(path)
    assert list(records) == ["a", "b", "c", "d"]
    for line in EARLIER_LINES:
        record = records[line["call_id"]]
        for name, value in line.items():
            assert getattr(record, name) == value, name
    assert records["b"].input_tokens is None and not records["b"].answered and records["a"].answered


@given(st.builds(ReplyRecord, call_id=st.text(min_size=1), text=st.none() | st.text(),
                 input_tokens=st.none() | st.integers(0, 10**9), output_tokens=st.none() | st.integers(0, 10**9),
                 latency_ms=st.none() | st.floats(0, 1e6), cost_usd=st.floats(0, 1e3), cached=st.booleans(),
                 cache_key=st.none() | st.text(), attempts=st.none() | st.integers(1, 10), batch=st.booleans(),
                 error=st.none() | st.text(min_size=1),
                 score_logprobs=st.none() | st.dictionaries(st.text(min_size=1), st.floats(-50, 0), min_size=1),
                 at=st.floats(0, 2e9)))
def test_a_record_survives_its_journal_line(record: ReplyRecord) -> None:
    line = record.to_json()
    assert "\n" not in line
    assert ReplyRecord.from_json(line) == record


def test_the_last_line_of_a_call_wins_and_a_cache_hit_is_free(tmp_path: Path) -> None:
    path = tmp_path / "run.journal.jsonl"
    failed = ReplyRecord("x", None, error="timeout")
    answered = ReplyRecord("x", "[RESULT] 2", 10, 2, latency_ms=5.0, cost_usd=0.1, cache_key="k",
                           score_logprobs={"2": -0.5})
    journal = Journal(path)
    journal.append(failed)
    journal.append(answered)
    journal.close()
    assert read_journal(path) == {"x": answered}
    hit = answered.for_call("y", "k")
    assert (hit.call_id, hit.text, hit.cost_usd, hit.latency_ms, hit.cached, hit.score_logprobs) == (
        "y", "[RESULT] 2", 0.0, 0.0, True, {"2": -0.5})
    assert failed.for_call("y", "k") == ReplyRecord("y", None, error="timeout", at=failed.at)


def test_run_statuses_are_the_strings_the_store_and_progress_files_hold() -> None:
    assert [s.value for s in RunStatus] == ["running", "complete", "stopped: spending cap", "cancelled",
                                            "interrupted"]
    assert [s for s in RunStatus if s.ended_cleanly] == ["complete", "stopped: spending cap", "cancelled"]
    assert [s for s in RunStatus if not s.terminal] == ["running"]
    assert json.dumps({"status": RunStatus.SPENDING_CAP}) == '{"status": "stopped: spending cap"}'
