"""The asyncio part of a run: a fixed pool of workers pulling planned calls from one queue.

Each worker sends a call (or takes it from the response cache), retries what may be retried with backoff and
jitter (Retry-After on 429), and lands the reply (``landing.ReplyLanding``: journal, then the store writer).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from judgebias_core.engine.landing import ReplyLanding, SessionCounts
from judgebias_core.engine.records import ReplyRecord
from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.base import redact
from judgebias_core.judges.prices import Price, estimate_tokens
from judgebias_core.models import RunStatus
from judgebias_core.protocols.spec import RunSettings
from judgebias_core.run_types import JudgeClient, PlannedCall


@dataclass
class Budget:
    """The spending cap: a call is only sent when the spent cost plus the in-flight estimates leave room."""

    cap_usd: float | None
    price: Price | None
    max_tokens: int
    spent: float = 0.0
    unpriced: bool = False  # no price for a model that has one somewhere: each reply's cost is unknown (None)
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

    def settle(self, reserved: float, actual: float | None) -> None:
        self.reserved -= reserved
        self.spent += actual or 0.0

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """A reply's cost from its usage: the price's, else unknown (None) for an unpriced model, else 0 (free)."""
        if self.price is not None:
            return self.price.cost(input_tokens, output_tokens)
        return None if self.unpriced else 0.0


class RunExecutor:
    """Runs the pending calls of one plan against one judge client."""

    def __init__(self, client: JudgeClient, settings: RunSettings, landing: ReplyLanding, budget: Budget,
                 cache_keys: dict[str, str], cached: dict[str, ReplyRecord],
                 should_cancel: Callable[[], bool] = lambda: False) -> None:
        self.client = client
        self.settings = settings
        self.landing = landing
        self.budget = budget
        self.cache_keys = cache_keys  # call id -> cache key (paid judges only)
        self.cached = cached  # cache key -> cached reply
        self.should_cancel = should_cancel
        self.stop_reason = RunStatus.COMPLETE
        self._in_flight: dict[str, asyncio.Future[ReplyRecord]] = {}
        self._queue: deque[PlannedCall] = deque()

    @property
    def counts(self) -> SessionCounts:
        return self.landing.counts

    async def run(self, calls: Sequence[PlannedCall], on_tick: Callable[[], None] | None = None) -> RunStatus:
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
            if self.should_cancel() and self.stop_reason is RunStatus.COMPLETE:
                self.stop_reason = RunStatus.CANCELLED
            if on_tick:
                on_tick()

    async def _worker(self) -> None:
        while self._queue and self.stop_reason is RunStatus.COMPLETE:
            if not await self.landing.store_ready():  # the store refused replies for too long: stop, interrupted
                self.stop_reason = RunStatus.INTERRUPTED
                return
            if self.stop_reason is not RunStatus.COMPLETE or not self._queue:
                return
            call = self._queue.popleft()
            reserved = self.budget.reserve(call) if self.client.paid else 0.0
            if reserved is None:
                self.stop_reason = RunStatus.SPENDING_CAP
                self._queue.appendleft(call)
                return
            record = await self._obtain(call)
            self.budget.settle(reserved, record.cost_usd)
            self.landing.land(record)

    async def _obtain(self, call: PlannedCall) -> ReplyRecord:
        key = self.cache_keys.get(call.call_id)
        if key is None:
            return await self._send(call, None)
        if key in self.cached:
            return self.cached[key].for_call(call.call_id, key)
        if key in self._in_flight:  # an identical call of this run is on its way: share its reply
            return (await asyncio.shield(self._in_flight[key])).for_call(call.call_id, key)
        future: asyncio.Future[ReplyRecord] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            record = await self._send(call, key)
        finally:
            self._in_flight.pop(key, None)
        future.set_result(record)
        if record.text is not None:
            self.cached[key] = record
        return record

    async def _send(self, call: PlannedCall, key: str | None) -> ReplyRecord:
        params = self.client.request_params(call)
        self.landing.mark_sent(call.call_id)
        error: JudgeCallError | None = None
        started = time.perf_counter()
        for attempt in range(1, self.settings.max_attempts + 1):
            started = time.perf_counter()  # latency is one attempt's, never the backoff and retries before it
            try:
                reply = await self.client.send(params)
            except JudgeCallError as failure:
                error = failure
                if not failure.retryable or attempt == self.settings.max_attempts or (
                        failure.timed_out and not self.settings.retry_timeouts):
                    break
                await asyncio.sleep(self._delay(failure, attempt))
                continue
            except Exception as unexpected:  # noqa: BLE001 - one broken call must not end the run
                error = JudgeCallError(redact(f"{type(unexpected).__name__}: {unexpected}")[:300], retryable=False)
                break
            cost = self.budget.cost(reply.input_tokens, reply.output_tokens)
            return ReplyRecord(call.call_id, reply.text, reply.input_tokens, reply.output_tokens,
                               latency_ms=(time.perf_counter() - started) * 1000, cost_usd=cost, cache_key=key,
                               attempts=attempt, score_logprobs=reply.score_logprobs or None)
        return ReplyRecord(call.call_id, None, latency_ms=(time.perf_counter() - started) * 1000, error=str(error))

    def _delay(self, failure: JudgeCallError, attempt: int) -> float:
        if failure.retry_after is not None:
            return failure.retry_after
        return self.settings.backoff_base_s * 2 ** (attempt - 1) * (0.5 + random.random())
