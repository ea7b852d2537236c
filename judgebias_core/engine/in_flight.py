"""Requests in flight: a ledger line is flushed before each request goes out, so a request that a kill (or a crash)
cut off before its reply reached the journal is known to have been sent, and most likely billed.

The next session of the run settles the ledger before it sends anything (``settle_unanswered_sends``): every send
with no journal line after it is stored in ``unanswered_sends`` with an estimated cost (input tokens from the
prompt's length, output tokens the run's mean so far), which the run's cost includes and marks as an estimate.
The call itself is sent again by that session, as before: the estimate is what the lost request cost.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from judgebias_core.engine.journal import run_file
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.judges.prices import Price, estimate_tokens
from judgebias_core.run_types import PlannedCall
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch

SENT_SUFFIX = ".sent.jsonl"


def sent_path(store: Store, run_id: str) -> Path:
    return run_file(store, run_id, SENT_SUFFIX)


class SendLedger:
    """Appends one line per request about to be sent (call id and time), flushed at once like the journal."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8")

    def append(self, call_id: str) -> None:
        self._file.write(json.dumps({"call_id": call_id, "at": time.time()}) + "\n")
        self._file.flush()  # in the OS: survives the process being killed

    def close(self) -> None:
        self._file.close()


def read_sends(path: Path) -> list[tuple[str, float]]:
    """(call id, time sent) of every ledger line; a torn last line (killed mid-write) is skipped."""
    sends: list[tuple[str, float]] = []
    if not path.exists():
        return sends
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                values = json.loads(line)
                sends.append((str(values["call_id"]), float(values["at"])))
            except (ValueError, KeyError, TypeError):
                continue
    return sends


def unanswered(sends: list[tuple[str, float]], journal: Mapping[str, ReplyRecord]) -> list[tuple[str, float]]:
    """Sends that no journal line followed: the call has no line, or only one written before it was sent again."""
    return [(call_id, at) for call_id, at in sends if call_id not in journal or journal[call_id].at < at]


def mean_output_tokens(journal: Mapping[str, ReplyRecord], default: int) -> int:
    """The run's mean reply length in tokens so far (replies really received), else ``default`` (max tokens)."""
    lengths = [r.output_tokens for r in journal.values() if r.text is not None and not r.cached
               and r.output_tokens is not None]
    return round(sum(lengths) / len(lengths)) if lengths else default


def settle_unanswered_sends(store: Store, run_id: str, calls: Mapping[str, PlannedCall],
                            journal: Mapping[str, ReplyRecord], price: Price | None, max_tokens: int) -> int:
    """Store the sends of earlier sessions that got no journal line, with their estimated cost, then clear the
    ledger. Idempotent (keyed by run, call and send time): a kill between the two stores nothing twice."""
    path = sent_path(store, run_id)
    lost = [(call_id, at) for call_id, at in unanswered(read_sends(path), journal) if call_id in calls]
    if lost:
        output_tokens = mean_output_tokens(journal, max_tokens)
        rows = []
        for call_id, at in lost:
            call = calls[call_id]
            input_tokens = estimate_tokens(len(call.system) + len(call.user))
            rows.append({"run_id": run_id, "call_id": call_id, "sent_at": at,
                         "input_tokens_estimate": input_tokens, "output_tokens_estimate": output_tokens,
                         "cost_usd_estimate": price.cost(input_tokens, output_tokens) if price else 0.0})
        write_batch(store, StoreBatch(extra={"unanswered_sends": pd.DataFrame(rows)}))
    path.unlink(missing_ok=True)
    return len(lost)
