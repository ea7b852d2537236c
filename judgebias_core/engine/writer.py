"""A thread that parses replies and moves them into DuckDB in small batches, off the event loop.

Each batch is one short transaction (``write_batch``); nothing holds the store open between batches, so the
dashboard and the CLI can read while a run writes. A batch the store refuses (busy) is kept and tried again.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping

import pandas as pd

from judgebias_core.engine.records import ReplyRecord, RunContext, call_row
from judgebias_core.errors import StoreBusyError
from judgebias_core.models import NO_REPLY, PARSE_FAILED
from judgebias_core.protocols.plans import PlannedCall
from judgebias_core.store import run_queries
from judgebias_core.store.writes import StoreBatch, write_batch


def rows_frame(calls: Mapping[str, PlannedCall], records: Iterable[ReplyRecord],
               context: RunContext) -> pd.DataFrame:
    return pd.DataFrame([call_row(calls[r.call_id], r, context) for r in records])


def cache_frame(records: Iterable[ReplyRecord], provider: str, model: str, run_id: str) -> pd.DataFrame:
    """Cache rows for paid replies that were really received (not themselves answered from the cache)."""
    return pd.DataFrame([
        {"cache_key": r.cache_key, "provider": provider, "model": model, "raw_output": r.text,
         "input_tokens": r.input_tokens, "output_tokens": r.output_tokens, "run_id": run_id, "call_id": r.call_id,
         "score_logprobs": json.dumps(r.score_logprobs) if r.score_logprobs else None}
        for r in records if r.text is not None and r.cache_key and not r.cached
    ])


class StoreWriter(threading.Thread):
    """Collects reply records from the event loop and writes them every ``flush_interval_s`` (sooner when
    ``flush_every`` records wait). The loop only appends to a list under a lock: no thread wake-up per reply."""

    def __init__(self, db_path: str | os.PathLike[str], calls: Mapping[str, PlannedCall], context: RunContext,
                 provider: str, model: str, replace_ids: set[str], flush_every: int = 50,
                 flush_interval_s: float = 0.5) -> None:
        super().__init__(name=f"judgebias-writer-{context.run_id}", daemon=True)
        self.db_path = db_path
        self.calls = calls
        self.context = context
        self.provider, self.model = provider, model
        self.replace_ids = replace_ids  # calls stored earlier with no reply, to be replaced by a reply
        self.flush_every = flush_every
        self.flush_interval_s = flush_interval_s
        self.parse_failures = 0
        self.written = 0
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._inbox: list[ReplyRecord] = []
        self._closing = threading.Event()
        self._pending: list[ReplyRecord] = []

    def put(self, record: ReplyRecord) -> None:
        with self._lock:
            self._inbox.append(record)

    def close(self) -> None:
        """Write everything still pending and stop the thread."""
        self._closing.set()
        self.join()
        self._take()
        if self._pending:
            self.flush(raise_errors=True)

    def _take(self) -> None:
        with self._lock:
            taken, self._inbox = self._inbox, []
        self._pending.extend(taken)

    def run(self) -> None:
        waited = 0.0
        step = min(0.05, self.flush_interval_s)
        while not self._closing.wait(step):
            waited += step
            with self._lock:
                waiting = len(self._inbox)
            if waiting + len(self._pending) >= self.flush_every or (waited >= self.flush_interval_s and (
                    waiting or self._pending)):
                self._take()
                self.flush()
                waited = 0.0

    def flush(self, raise_errors: bool = False) -> None:
        batch, self._pending = self._pending, []
        try:
            self.write(batch)
        except StoreBusyError as error:  # held by another process, or DuckDB's thread race (store.writes)
            self.last_error = str(error)
            self._pending = batch + self._pending
            if raise_errors:
                raise

    def write(self, records: list[ReplyRecord]) -> None:
        """Parse and store records now (also used to replay a journal on resume)."""
        if not records:
            return
        frame = rows_frame(self.calls, records, self.context)
        replaced = [r.call_id for r in records if r.call_id in self.replace_ids and r.text is not None]
        run_queries.delete_no_reply_calls(self.db_path, replaced)
        write_batch(self.db_path, StoreBatch(
            judge_calls=frame, extra={"response_cache": cache_frame(records, self.provider, self.model,
                                                                    self.context.run_id)},
        ))
        self.replace_ids.difference_update(replaced)
        self.parse_failures += int((frame["parse_status"] == PARSE_FAILED).sum())
        self.written += int((frame["parse_status"] != NO_REPLY).sum())
