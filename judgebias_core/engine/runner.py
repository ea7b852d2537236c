"""The asyncio part of a run: a fixed pool of workers pulling planned calls from one queue.

Each worker sends a call (or takes it from the response cache), retries what may be retried with backoff and
jitter (Retry-After on 429), appends the reply to the journal, and hands it to the store writer thread.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judgebias_core.engine.journal import Journal
from judgebias_core.engine.writer import StoreWriter
from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.base import JudgeClient, redact
from judgebias_core.judges.prices import Price, estimate_tokens
from judgebias_core.judges.redact import scrub_record
from judgebias_core.protocols.plans import PlannedCall
from judgebias_core.protocols.spec import RunSettings

STOP_COMPLETE, STOP_CAP, STOP_CANCEL = "complete", "stopped: spending cap", "cancelled"


@dataclass
class LiveCounts:
    """Counts of this session, updated on the event loop as replies arrive."""

    sent: int = 0  # calls sent to the judge (cache hits and calls the spending cap held back are not)
    received: int = 0  # replies (parsed or not)
    failed: int = 0  # no reply after every retry
    cached: int = 0
    retried_earlier_failures: int = 0  # calls stored with no reply by an earlier session and sent again now
    cost_usd: float = 0.0
    started: float = field(default_factory=time.monotonic)


@dataclass
class Budget:
    """The spending cap: a call is only sent when the spent cost plus the in-flight estimates leave room."""

    cap_usd: float | None
    price: Price | None
    max_tokens: int
    spent: float = 0.0
    reserved: float = 0.0

    def estimate(self, call: PlannedCall) -> float:
        if self.price is None:
            return 0.0
        return self.price.cost(estimate_tokens(len(call.system) + len(call.user)), self.max_tokens)

    def reserve(self, call: PlannedCall) -> float | None:
        """The reserved estimate, or None when the call would cross the cap."""
        cost = self.estimate(call)
        if self.cap_usd is not None and self.spent + self.reserved + cost > self.cap_usd:
            return None
        self.reserved += cost
        return cost

    def settle(self, reserved: float, actual: float) -> None:
        self.reserved -= reserved
        self.spent += actual


class RunExecutor:
    """Runs the pending calls of one plan against one judge client."""

    def __init__(self, client: JudgeClient, settings: RunSettings, journal: Journal, writer: StoreWriter,
                 budget: Budget, cache_keys: dict[str, str], cached: dict[str, dict[str, Any]],
                 should_cancel: Callable[[], bool] = lambda: False,
                 earlier_failures: set[str] | None = None) -> None:
        self.client = client
        self.settings = settings
        self.journal = journal
        self.writer = writer
        self.budget = budget
        self.cache_keys = cache_keys  # call id -> cache key (paid judges only)
        self.cached = cached  # cache key -> cached reply
        self.should_cancel = should_cancel
        self.counts = LiveCounts()
        self.earlier_failures = earlier_failures or set()
        self.stop_reason = STOP_COMPLETE
        self._in_flight: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._queue: deque[PlannedCall] = deque()

    async def run(self, calls: Sequence[PlannedCall], on_tick: Callable[[], None] | None = None) -> str:
        self._queue = deque(calls)
        workers = [asyncio.create_task(self._worker()) for _ in range(min(self.settings.concurrency, len(calls)))]
        ticker = asyncio.create_task(self._tick(on_tick))
        try:
            await asyncio.gather(*workers)
        finally:
            ticker.cancel()
            for task in workers:
                task.cancel()
        if on_tick:
            on_tick()
        return self.stop_reason

    async def _tick(self, on_tick: Callable[[], None] | None) -> None:
        while True:
            await asyncio.sleep(0.25)
            if self.should_cancel() and self.stop_reason == STOP_COMPLETE:
                self.stop_reason = STOP_CANCEL
            if on_tick:
                on_tick()

    async def _worker(self) -> None:
        while self._queue and self.stop_reason == STOP_COMPLETE:
            call = self._queue.popleft()
            reserved = self.budget.reserve(call) if self.client.paid else 0.0
            if reserved is None:
                self.stop_reason = STOP_CAP
                self._queue.appendleft(call)
                return
            record = await self._obtain(call)
            self.budget.settle(reserved, record.get("cost_usd") or 0.0)
            self._land(record)

    def _land(self, record: dict[str, Any]) -> None:
        record = scrub_record(record)  # no key reaches the journal, the store or the cache
        self.journal.append(record)
        self.writer.put(record)
        if record.get("text") is None:
            self.counts.failed += 1
        else:
            self.counts.received += 1
        self.counts.cached += bool(record.get("cached"))
        self.counts.retried_earlier_failures += record["call_id"] in self.earlier_failures
        self.counts.cost_usd += record.get("cost_usd") or 0.0

    async def _obtain(self, call: PlannedCall) -> dict[str, Any]:
        key = self.cache_keys.get(call.call_id)
        if key is None:
            return await self._send(call, None)
        if key in self.cached:
            return self._from_cache(call, key, self.cached[key])
        if key in self._in_flight:  # an identical call of this run is on its way: share its reply
            return self._from_cache(call, key, await asyncio.shield(self._in_flight[key]))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            record = await self._send(call, key)
        finally:
            self._in_flight.pop(key, None)
        future.set_result(record)
        if record.get("text") is not None:
            self.cached[key] = record
        return record

    @staticmethod
    def _from_cache(call: PlannedCall, key: str, source: dict[str, Any]) -> dict[str, Any]:
        if source.get("text") is None:
            return source | {"call_id": call.call_id}
        return {"call_id": call.call_id, "text": source["text"], "input_tokens": source.get("input_tokens"),
                "output_tokens": source.get("output_tokens"), "latency_ms": 0.0, "cost_usd": 0.0, "cached": True,
                "cache_key": key, "at": time.time(),
                **({"score_logprobs": source["score_logprobs"]} if source.get("score_logprobs") else {})}

    async def _send(self, call: PlannedCall, key: str | None) -> dict[str, Any]:
        params = self.client.request_params(call)
        self.counts.sent += 1
        started = time.perf_counter()
        error: JudgeCallError | None = None
        for attempt in range(1, self.settings.max_attempts + 1):
            try:
                reply = await self.client.send(params)
            except JudgeCallError as failure:
                error = failure
                if not failure.retryable or attempt == self.settings.max_attempts:
                    break
                await asyncio.sleep(self._delay(failure, attempt))
                continue
            except Exception as unexpected:  # noqa: BLE001 - one broken call must not end the run
                error = JudgeCallError(redact(f"{type(unexpected).__name__}: {unexpected}")[:300], retryable=False)
                break
            cost = self.budget.price.cost(reply.input_tokens, reply.output_tokens) if (
                self.budget.price and self.client.paid) else 0.0
            return {"call_id": call.call_id, "text": reply.text, "input_tokens": reply.input_tokens,
                    "output_tokens": reply.output_tokens, "latency_ms": (time.perf_counter() - started) * 1000,
                    "cost_usd": cost, "cached": False, "cache_key": key, "attempts": attempt, "at": time.time(),
                    **({"score_logprobs": reply.score_logprobs} if reply.score_logprobs else {})}
        return {"call_id": call.call_id, "text": None, "error": str(error), "cost_usd": 0.0, "cached": False,
                "latency_ms": (time.perf_counter() - started) * 1000, "at": time.time()}

    def _delay(self, failure: JudgeCallError, attempt: int) -> float:
        if failure.retry_after is not None:
            return failure.retry_after
        return self.settings.backoff_base_s * 2 ** (attempt - 1) * (0.5 + random.random())
