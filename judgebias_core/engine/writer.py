"""A thread that parses replies and moves them into DuckDB in small batches, off the event loop.

Each batch is one short transaction (``write_batch``); nothing holds the store open between batches, so the
dashboard and the CLI can read while a run writes. A batch the store refuses, for any reason (busy, a full disk, a
damaged or vanished file), is kept and tried again with backoff; the run waits meanwhile (``stalled``). A batch still
refused after ``retry_s`` becomes ``failure`` (``StoreWriteError``): the run stops as interrupted and ``close``
raises it. Nothing is ever dropped: every record stays pending until a write of it succeeded.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterable, Mapping

import pandas as pd

from judgebias_core.engine.journal import journal_path
from judgebias_core.engine.records import ReplyRecord, RunContext, call_row
from judgebias_core.errors import StoreWriteError
from judgebias_core.models import NO_REPLY, PARSE_FAILED
from judgebias_core.run_types import PlannedCall
from judgebias_core.store import run_queries
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch
from judgebias_core.text import counted

FIRST_RETRY_DELAY_S = 0.05
LONGEST_RETRY_DELAY_S = 2.0


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

    def __init__(self, store: Store, calls: Mapping[str, PlannedCall], context: RunContext,
                 provider: str, model: str, replace_ids: set[str], flush_every: int = 50,
                 flush_interval_s: float = 0.5, retry_s: float = 120.0) -> None:
        super().__init__(name=f"judgebias-writer-{context.run_id}", daemon=True)
        self.store = store
        self.calls = calls
        self.context = context
        self.provider, self.model = provider, model
        self.replace_ids = replace_ids  # calls stored earlier with no reply, to be replaced by a reply
        self.flush_every = flush_every
        self.flush_interval_s = flush_interval_s
        self.retry_s = retry_s  # how long a refused batch is tried again before the run stops
        self.parse_failures = 0
        self.written = 0
        self.last_error: str | None = None
        self.failure: StoreWriteError | None = None  # set once a batch stayed unwritable for retry_s
        self._failing_since: float | None = None  # first refusal of the current streak (None: writes succeed)
        self._next_try = 0.0
        self._delay = FIRST_RETRY_DELAY_S
        self._lock = threading.Lock()
        self._inbox: list[ReplyRecord] = []
        self._closing = threading.Event()
        self._pending: list[ReplyRecord] = []

    @property
    def stalled(self) -> bool:
        """The last write was refused and the records are waiting for the next try (the run pauses its sends)."""
        return self._failing_since is not None

    def put(self, record: ReplyRecord) -> None:
        with self._lock:
            self._inbox.append(record)

    def close(self) -> None:
        """Write everything still pending (retrying within the budget) and stop the thread; raises
        ``StoreWriteError`` when a batch could not be written."""
        self._closing.set()
        if self.ident is not None:  # started (a writer that never started still writes what it holds)
            self.join()
        self._take()
        self._drain()

    def _take(self) -> None:
        with self._lock:
            taken, self._inbox = self._inbox, []
        self._pending.extend(taken)

    def run(self) -> None:
        waited = 0.0
        step = min(0.05, self.flush_interval_s)
        while not self._closing.wait(step):
            waited += step
            if self.failure is not None or time.monotonic() < self._next_try:
                continue  # given up (the run is stopping; close tries once more), or backing off
            with self._lock:
                waiting = len(self._inbox)
            if waiting + len(self._pending) >= self.flush_every or (waited >= self.flush_interval_s and (
                    waiting or self._pending)):
                self._take()
                self.flush()
                waited = 0.0

    def flush(self) -> bool:
        """Try to write every pending record; False (and the records kept) when the store refused them."""
        batch, self._pending = self._pending, []
        try:
            self.write(batch)
        except Exception as error:  # noqa: BLE001 - any refusal (busy, disk full, damaged file) keeps the batch
            self._pending = batch + self._pending
            self._refused(error)
            return False
        self._failing_since, self._delay, self.last_error = None, FIRST_RETRY_DELAY_S, None
        return True

    def _refused(self, error: Exception) -> None:
        """Back off (exponential, with jitter) and give up once the streak of refusals is ``retry_s`` long."""
        now = time.monotonic()
        self.last_error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:300]
        if self._failing_since is None:
            self._failing_since = now
        if now - self._failing_since >= self.retry_s and self.failure is None:
            waiting = len(self._pending)
            self.failure = StoreWriteError(
                f"run {self.context.run_id}: the store {self.store} refused to write "
                f"{counted(waiting, 'reply', 'replies')} for {self.retry_s:.0f} s ({self.last_error}); the run "
                f"stopped as interrupted and every reply is kept in its journal "
                f"{journal_path(self.store, self.context.run_id)}: free the store (disk space, another process "
                "holding it, a damaged file), then run the same command again or Resume it on the Runs page to "
                "store them")
            self.failure.__cause__ = error
        self._next_try = now + self._delay * (0.5 + random.random())
        self._delay = min(self._delay * 2, LONGEST_RETRY_DELAY_S)

    def write_now(self, records: list[ReplyRecord]) -> None:
        """Store records at once, retrying refusals within the budget (a journal replayed on resume)."""
        self._pending.extend(records)
        self._drain()

    def _drain(self) -> None:
        """Write the pending records, backing off between refusals, until they are stored or the budget is out."""
        while self._pending:
            if self.flush():
                return
            if self.failure is not None:
                raise self.failure
            time.sleep(max(0.0, self._next_try - time.monotonic()))

    def write(self, records: list[ReplyRecord]) -> None:
        """Parse and store records now (one attempt; ``flush`` and ``write_now`` retry)."""
        if not records:
            return
        frame = rows_frame(self.calls, records, self.context)
        replaced = [r.call_id for r in records if r.call_id in self.replace_ids and r.text is not None]
        run_queries.delete_no_reply_calls(self.store, replaced)
        write_batch(self.store, StoreBatch(
            judge_calls=frame, extra={"response_cache": cache_frame(records, self.provider, self.model,
                                                                    self.context.run_id)},
        ))
        self.replace_ids.difference_update(replaced)
        self.parse_failures += int((frame["parse_status"] == PARSE_FAILED).sum())
        self.written += int((frame["parse_status"] != NO_REPLY).sum())
