"""Batch mode: a run's calls go to the provider's batch API (about half the live price) instead of live calls.

Requests are built from the run's plan (``client.request_params``) with the call id as custom id, split to the
provider's limits, recorded in ``run_batches`` as soon as they are accepted, polled, and their results are
journaled and stored like live replies. A resumed run polls the batches it recorded instead of resubmitting;
errored or expired requests go into another batch (or live, when asked); the response cache still applies.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from judgebias_core.engine.batch_types import BatchBackend, BatchRequest, BatchState
from judgebias_core.engine.journal import Journal, journal_path
from judgebias_core.engine.landing import ReplyLanding
from judgebias_core.engine.launch import RunOutcome, check_same_run, finish_session, open_session, register_run
from judgebias_core.engine.progress import (
    RunLock,
    RunProgress,
    begin_session,
    cancel_requested,
    write_batch_line,
    write_progress,
)
from judgebias_core.engine.records import ReplyRecord, cache_key, cached_records
from judgebias_core.engine.runner import Budget, RunExecutor
from judgebias_core.errors import InvalidArgument, JudgeCallError
from judgebias_core.judges import make_client
from judgebias_core.judges.base import JudgeClient
from judgebias_core.judges.prices import PlanEstimate, price_of
from judgebias_core.models import RunStatus
from judgebias_core.protocols.plans import Plan, PlannedCall, build_plan
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Provider, batch_provider_names, get_provider
from judgebias_core.store import batch_queries, run_queries
from judgebias_core.store.batch_queries import BatchRecord
from judgebias_core.store.schema import migrate

BATCH_PRICE_FACTOR = 0.5  # both providers bill batch requests at half their live price
BatchStateCallback = Callable[[dict[str, BatchState]], None]


class BatchSettings(BaseModel):
    """How a batch run submits and waits; none of it changes which calls are planned."""

    model_config = ConfigDict(frozen=True)

    poll_interval_s: float = Field(30.0, gt=0)
    max_requests_per_batch: int | None = Field(None, ge=1)  # default: the provider's limit
    retry_rounds: int = Field(1, ge=0)  # further rounds for requests that came back errored or expired
    retry_live: bool = False  # send those retries as live calls instead of another batch


def batch_cost(estimate: PlanEstimate) -> float | None:
    """The batch price of a plan's live estimate (None when the model's price is unknown)."""
    return None if estimate.cost_usd is None else estimate.cost_usd * BATCH_PRICE_FACTOR


def describe_batches(states: dict[str, BatchState]) -> str:
    """One progress line for the CLI or a page: each batch's provider status and requests done of total."""
    done = sum(s.done for s in states.values())
    total = sum(s.total for s in states.values())
    parts = ", ".join(f"{batch_id} {s.status} {s.done}/{s.total}" for batch_id, s in states.items())
    return f"{len(states)} batch(es), {done}/{total} requests done at the provider: {parts}"


def batch_provider(spec: RunSpec) -> Provider:
    """The spec's provider, when it has a batch API (``InvalidArgument`` naming those that do otherwise)."""
    provider = get_provider(spec.provider)
    if not provider.capabilities.batch:
        raise InvalidArgument(f"batch mode needs provider {' or '.join(batch_provider_names())}, "
                              f"not {spec.provider!r}")
    return provider


def make_backend(spec: RunSpec, settings: RunSettings, key: str | None = None) -> BatchBackend:
    """The batch API of the spec's provider, as its registry entry declares it."""
    factory = batch_provider(spec).batch_backend
    assert factory is not None  # a provider with the batch capability declares its backend
    return factory(spec, settings, key)


def split_requests(requests: Sequence[BatchRequest], backend: BatchBackend,
                   max_requests: int | None = None) -> list[list[BatchRequest]]:
    """Consecutive chunks within the provider's request-count and size limits."""
    limit = min(max_requests or backend.max_requests, backend.max_requests)
    chunks: list[list[BatchRequest]] = []
    size = 0
    for request in requests:
        length = len(backend.request_bytes(request))
        if not chunks or len(chunks[-1]) >= limit or size + length > backend.max_bytes:
            chunks.append([])
            size = 0
        chunks[-1].append(request)
        size += length
    return chunks


def start_batch_run(db_path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings | None = None,
                    batch: BatchSettings | None = None, run_id: str | None = None,
                    on_progress: Callable[[RunProgress], None] | None = None,
                    on_batches: BatchStateCallback | None = None, key: str | None = None,
                    backend: BatchBackend | None = None) -> RunOutcome:
    """Run (or resume) a run through the provider's batch API; returns its stored counts like ``start_run``."""
    settings, batch = settings or RunSettings(), batch or BatchSettings()
    batch_provider(spec)
    migrate(db_path)
    run_id = run_id or spec.default_run_id()
    check_same_run(db_path, spec, run_id)
    plan = build_plan(db_path, spec, run_id)
    with RunLock(db_path, run_id):  # one process per run id, as for live runs (a resume from the page)
        client = make_client(db_path, spec, settings, key)
        backend = backend or make_backend(spec, settings, key)
        register_run(db_path, spec, plan, client, settings, batch)
        begin_session(db_path, run_id)
        runner = BatchRunner(db_path, spec, settings, batch, plan, client, backend, on_progress, on_batches)
        return asyncio.run(runner.execute())


class BatchRunner:
    """One session of a batch run: cache, batches in flight, new batches, retries, then the run's status."""

    def __init__(self, db_path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings, batch: BatchSettings,
                 plan: Plan, client: JudgeClient, backend: BatchBackend,
                 on_progress: Callable[[RunProgress], None] | None, on_batches: BatchStateCallback | None) -> None:
        self.db_path, self.spec, self.settings, self.batch = db_path, spec, settings, batch
        self.plan, self.client, self.backend = plan, client, backend
        self.on_progress, self.on_batches = on_progress, on_batches
        self.calls = {c.call_id: c for c in plan.calls}
        self.price = price_of(spec.model)
        self.states: dict[str, BatchState] = {}
        self.started = time.monotonic()
        self.submitted_now = 0
        self.errors: dict[str, str] = {}  # call id -> why its last batch request gave no reply
        self.answered: set[str] = set()  # calls with a reply in the store or the journal when the session began

    # ---- replies ----
    def _record_of(self, call_id: str, text: str | None, input_tokens: int | None, output_tokens: int | None,
                   error: str | None = None) -> ReplyRecord:
        cost = self.price.cost(input_tokens, output_tokens) * BATCH_PRICE_FACTOR if (
            self.price and text is not None) else 0.0
        return ReplyRecord(call_id, text, input_tokens, output_tokens, cost_usd=cost,
                           cache_key=self.cache_keys.get(call_id), batch=True, error=error or None)

    def _report(self, status: RunStatus = RunStatus.RUNNING) -> None:
        counts = self.landing.counts
        completed = int(self.base["completed"]) + counts.received
        failed = int(self.base["failed"]) + counts.failed
        progress = RunProgress(
            run_id=self.plan.run_id, status=status, planned=len(self.plan.calls), completed=completed,
            failed=failed, parse_failures=int(self.base["parse_failures"]) + self.writer.parse_failures,
            cached=counts.cached, cost_usd=float(self.base["cost_usd"]) + counts.cost_usd,
            elapsed_s=time.monotonic() - self.started, seconds_left=None, pid=os.getpid(), updated_at=time.time())
        write_progress(self.db_path, progress)
        if self.states:
            write_batch_line(self.db_path, self.plan.run_id, describe_batches(self.states))
        if self.on_progress:
            self.on_progress(progress)
        if self.on_batches:
            self.on_batches(dict(self.states))

    # ---- the session ----
    async def execute(self) -> RunOutcome:
        run_id = self.plan.run_id
        session = open_session(self.db_path, self.spec, self.settings, self.plan, self.client)
        self.writer, self.answered, pending = session.writer, session.answered, session.pending
        self.cache_keys = {c.call_id: cache_key(self.spec, c) for c in pending}
        self.base = run_queries.run_counts(self.db_path, run_id)
        # read before the writer thread holds the store (a read-only connection cannot open beside it)
        earlier = batch_queries.run_batches(self.db_path, run_id)
        found = cached_records(run_queries.cached_replies(self.db_path, list(self.cache_keys.values())))
        journal = Journal(journal_path(self.db_path, run_id))
        self.landing = ReplyLanding(journal, self.writer)
        self.writer.start()
        status = RunStatus.INTERRUPTED
        try:
            status = await self._run(self._answer_from_cache(pending, found), earlier)
        finally:
            await self.client.aclose()
            await self.backend.aclose()
            journal.close()
            self.writer.close()
            run_queries.set_run_status(self.db_path, run_id, status, finished=status is not RunStatus.INTERRUPTED)
            self._report(status)
        return finish_session(self.db_path, self.plan, status, self.submitted_now, session.replayed)

    def _answer_from_cache(self, pending: list[PlannedCall], found: dict[str, ReplyRecord]) -> list[PlannedCall]:
        """Land the calls the response cache already answered; the rest still need the provider."""
        rest = []
        for call in pending:
            key = self.cache_keys[call.call_id]
            hit = found.get(key)
            if hit is None:
                rest.append(call)
                continue
            self.landing.land(hit.for_call(call.call_id, key))
        return rest

    async def _run(self, pending: list[PlannedCall], earlier: list[BatchRecord]) -> RunStatus:
        in_flight = [b for b in earlier if b.status == "submitted"]
        flying = {call_id for b in in_flight for call_id in b.call_ids}
        first_round = max((b.round for b in earlier), default=0) + 1
        to_send, stop = self._within_cap([c for c in pending if c.call_id not in flying])
        in_flight += await self._submit(to_send, first_round)
        while in_flight:
            ended, in_flight = await self._wait(in_flight)
            if ended is None:
                return RunStatus.CANCELLED
            for record, failed in ended:
                if not failed:
                    continue
                if record.round < first_round + self.batch.retry_rounds and self.batch.retry_live:
                    await self._send_live(failed)
                elif record.round < first_round + self.batch.retry_rounds:
                    in_flight += await self._submit(failed, record.round + 1)
                else:
                    for call in failed:
                        self.landing.land(self._record_of(call.call_id, None, None, None, self.errors.get(call.call_id)))
        return stop

    def _within_cap(self, calls: list[PlannedCall]) -> tuple[list[PlannedCall], RunStatus]:
        """The calls whose estimated batch cost fits under the spending cap (all when there is no cap)."""
        if self.settings.max_cost_usd is None or self.price is None:
            return calls, RunStatus.COMPLETE
        budget = Budget(None, self.price, self.spec.max_tokens)
        room = self.settings.max_cost_usd - float(self.base["cost_usd"])
        kept: list[PlannedCall] = []
        for call in calls:
            room -= budget.estimate(call) * BATCH_PRICE_FACTOR
            if room < 0:
                return kept, RunStatus.SPENDING_CAP
            kept.append(call)
        return kept, RunStatus.COMPLETE

    async def _submit(self, calls: list[PlannedCall], round_number: int) -> list[BatchRecord]:
        requests = [BatchRequest(c.call_id, self.client.request_params(c)) for c in calls]
        records = []
        for chunk in split_requests(requests, self.backend, self.batch.max_requests_per_batch):
            submitted = await self.backend.submit(chunk, self.plan.run_id)
            record = BatchRecord(self.plan.run_id, submitted.batch_id, self.backend.provider, submitted.input_file_id,
                                 tuple(r.call_id for r in chunk), round_number, "submitted")
            batch_queries.record_batch(self.db_path, record)
            self.submitted_now += len(chunk)
            records.append(record)
        return records

    async def _wait(self, in_flight: list[BatchRecord]) -> tuple[list[tuple[BatchRecord, list[PlannedCall]]] | None,
                                                                 list[BatchRecord]]:
        """Poll until a batch ends and collect every ended one, with the calls it left without a reply.

        Returns None instead of the ended batches when a cancel was asked for (the batches stay recorded).
        """
        while True:
            still: list[BatchRecord] = []
            ended: list[tuple[BatchRecord, list[PlannedCall]]] = []
            for record in in_flight:
                try:
                    state = await self.backend.state(record.batch_id)
                except JudgeCallError as error:
                    if not error.retryable:
                        raise
                    still.append(record)  # a poll that failed in transit: ask again at the next poll
                    continue
                self.states[record.batch_id] = state
                if state.ended:
                    ended.append((record, await self._collect(record)))
                else:
                    still.append(record)
            self._report()
            if ended:
                return ended, still
            if await self._sleep_or_cancel():
                return None, still

    async def _sleep_or_cancel(self) -> bool:
        deadline = time.monotonic() + self.batch.poll_interval_s
        while time.monotonic() < deadline:
            if cancel_requested(self.db_path, self.plan.run_id):
                return True
            await asyncio.sleep(min(0.25, self.batch.poll_interval_s))
        return cancel_requested(self.db_path, self.plan.run_id)

    async def _collect(self, record: BatchRecord) -> list[PlannedCall]:
        """Journal and store a finished batch's replies; returns its calls that got none."""
        results = {r.call_id: r for r in await self.backend.results(record.batch_id)}
        missing = []
        for call_id in record.call_ids:
            if call_id in self.answered:  # collected before a crash, replayed from the journal since
                continue
            result = results.get(call_id)
            if result is not None and result.text is not None:
                self.landing.land(self._record_of(call_id, result.text, result.input_tokens, result.output_tokens))
            else:
                self.errors[call_id] = result.error if result and result.error else (
                    f"no result for this request in batch {record.batch_id}")
                missing.append(self.calls[call_id])
        batch_queries.mark_collected(self.db_path, self.plan.run_id, record.batch_id)
        return missing

    async def _send_live(self, calls: list[PlannedCall]) -> None:
        budget = Budget(self.settings.max_cost_usd, self.price, self.spec.max_tokens)
        executor = RunExecutor(self.client, self.settings, self.landing, budget,
                               {c.call_id: self.cache_keys[c.call_id] for c in calls}, {},
                               should_cancel=lambda: cancel_requested(self.db_path, self.plan.run_id))
        await executor.run(calls)  # its replies land through the session's landing, counted with the batch ones
