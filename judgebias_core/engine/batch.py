"""Batch mode: a run's calls go to the provider's batch API (about half the live price) instead of live calls.

Requests are built from the run's plan (``client.request_params``) with the call id as custom id, split to the
provider's limits, written as an intent before each create (``batch_intents``), recorded in ``run_batches`` as
soon as they are accepted, polled, and their results are journaled and stored like live replies. A resumed run
polls the batches it recorded and adopts the ones a crash left unrecorded (``batch_adoption``) instead of
resubmitting; errored or expired requests go into further batches for ``retry_rounds`` rounds, then live when
asked; the response cache still applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from judgebias_core.engine.batch_adoption import adopt_intents, check_adopted, create_or_adopt
from judgebias_core.engine.batch_types import BatchBackend, BatchRequest, BatchState
from judgebias_core.engine.journal import Journal, journal_path
from judgebias_core.engine.landing import ReplyLanding
from judgebias_core.engine.launch import (
    RunOutcome,
    abandon_session,
    begin_run,
    end_session,
    finish_session,
    open_session,
    prepare_run,
)
from judgebias_core.engine.progress import (
    RunLock,
    RunProgress,
    cancel_requested,
    write_batch_line,
    write_progress,
)
from judgebias_core.engine.records import ReplyRecord, cache_key, cached_records
from judgebias_core.engine.runner import Budget, RunExecutor
from judgebias_core.errors import BatchAdoptionError, InvalidArgument, JudgeCallError
from judgebias_core.judges.prices import PlanEstimate, run_price
from judgebias_core.models import RunStatus
from judgebias_core.protocols.plans import Plan
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Provider, batch_provider_names, get_provider
from judgebias_core.run_types import JudgeClient, PlannedCall
from judgebias_core.store import batch_queries, run_queries
from judgebias_core.store.batch_queries import BatchIntent, BatchRecord
from judgebias_core.store.handle import Store

BATCH_PRICE_FACTOR = 0.5  # both providers bill batch requests at half their live price
BatchStateCallback = Callable[[dict[str, BatchState]], None]


class BatchSettings(BaseModel):
    """How a batch run submits and waits; none of it changes which calls are planned."""

    model_config = ConfigDict(frozen=True)

    poll_interval_s: float = Field(30.0, gt=0)
    max_requests_per_batch: int | None = Field(None, ge=1)  # default: the provider's limit
    retry_rounds: int = Field(3, ge=0)  # further batch rounds for requests that came back errored or expired
    retry_live: bool = False  # after those rounds, send what still has no reply as live calls


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


def start_batch_run(store: Store, spec: RunSpec, settings: RunSettings | None = None,
                    batch: BatchSettings | None = None, run_id: str | None = None,
                    on_progress: Callable[[RunProgress], None] | None = None,
                    on_batches: BatchStateCallback | None = None, key: str | None = None,
                    backend: BatchBackend | None = None, resubmit: bool = False) -> RunOutcome:
    """Run (or resume) a run through the provider's batch API; returns its stored counts like ``start_run``.

    ``resubmit`` settles an ambiguous adoption (``BatchAdoptionError``) by submitting those calls again."""
    settings, batch = settings or RunSettings(), batch or BatchSettings()
    batch_provider(spec)
    plan = prepare_run(store, spec, run_id or spec.default_run_id())
    with RunLock(store, plan.run_id):  # one process per run id, as for live runs (a resume from the page)
        backend = backend or make_backend(spec, settings, key)
        client = begin_run(store, spec, settings, plan, key, batch)
        runner = BatchRunner(store, spec, settings, batch, plan, client, backend, on_progress, on_batches,
                             resubmit)
        return asyncio.run(runner.execute())


class BatchRunner:
    """One session of a batch run: cache, batches in flight, new batches, retries, then the run's status."""

    def __init__(self, store: Store, spec: RunSpec, settings: RunSettings, batch: BatchSettings,
                 plan: Plan, client: JudgeClient, backend: BatchBackend,
                 on_progress: Callable[[RunProgress], None] | None, on_batches: BatchStateCallback | None,
                 resubmit: bool = False) -> None:
        self.store, self.spec, self.settings, self.batch = store, spec, settings, batch
        self.plan, self.client, self.backend = plan, client, backend
        self.on_progress, self.on_batches = on_progress, on_batches
        self.calls = {c.call_id: c for c in plan.calls}
        self.price, self.unpriced = run_price(spec.model, spec.provider, settings.price_per_mtok)
        self.states: dict[str, BatchState] = {}
        self.started = time.monotonic()
        self.submitted_now = 0
        self.errors: dict[str, str] = {}  # call id -> why its last batch request gave no reply
        self.causes: dict[str, str] = {}  # call id -> errored | expired | canceled | missing from the batch results
        self.answered: set[str] = set()  # calls with a reply in the store or the journal, or landed since
        self.left: Counter[str] = Counter()  # why calls of this session are left without a reply
        self.resubmit = resubmit  # an ambiguous adoption submits its calls again instead of stopping the run
        self.known: set[str] = set()  # batch ids the store holds: never adopted for an intent of this session

    # ---- replies ----
    def _record_of(self, call_id: str, text: str | None, input_tokens: int | None, output_tokens: int | None,
                   error: str | None = None) -> ReplyRecord:
        cost: float | None = 0.0
        if text is not None:
            cost = None if self.price is None else self.price.cost(input_tokens, output_tokens) * BATCH_PRICE_FACTOR
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
            elapsed_s=time.monotonic() - self.started, seconds_left=None, pid=os.getpid(), updated_at=time.time(),
            unpriced_calls=int(self.base["unpriced_calls"]) + counts.unpriced)
        write_progress(self.store, progress)
        if self.states:
            write_batch_line(self.store, self.plan.run_id, describe_batches(self.states))
        if self.on_progress:
            self.on_progress(progress)
        if self.on_batches:
            self.on_batches(dict(self.states))

    # ---- the session ----
    async def execute(self) -> RunOutcome:
        run_id = self.plan.run_id
        try:
            session = open_session(self.store, self.spec, self.settings, self.plan, self.client)
        except BaseException:
            await self.client.aclose()
            await self.backend.aclose()
            abandon_session(self.store, run_id)
            raise
        self.writer, self.answered, pending = session.writer, set(session.answered), session.pending
        self.cache_keys = {c.call_id: cache_key(self.spec, c) for c in pending}
        # read before the writer thread holds the store (a read-only connection cannot open beside it)
        with self.store.reader() as reader:
            self.base = run_queries.run_counts(reader, run_id)
            earlier = batch_queries.run_batches(reader, run_id)
            intents = batch_queries.pending_intents(reader, run_id)
            self.known = batch_queries.known_batch_ids(reader, self.backend.provider)
            found = cached_records(run_queries.cached_replies(reader, list(self.cache_keys.values())))
        journal = Journal(journal_path(self.store, run_id))
        self.landing = ReplyLanding(journal, self.writer)
        self.writer.start()
        status, failure = RunStatus.INTERRUPTED, None
        try:
            status = await self._run(self._answer_from_cache(pending, found), earlier, intents)
        finally:
            await self.client.aclose()
            await self.backend.aclose()
            journal.close()
            status, failure = end_session(self.store, self.plan, self.writer, status)
            with contextlib.suppress(OSError):  # a full disk: the stored status is written, the file may not be
                self._report(status)
        if failure is not None:
            raise failure
        return finish_session(self.store, self.plan, status, self.submitted_now + self.landing.counts.sent,
                              session.replayed, tuple(sorted(self.left.items())))

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
            self.answered.add(call.call_id)
        return rest

    async def _run(self, pending: list[PlannedCall], earlier: list[BatchRecord],
                   intents: list[BatchIntent]) -> RunStatus:
        in_flight = [b for b in earlier if b.status == "submitted"]
        in_flight += await adopt_intents(self.store, self.backend, intents, self.known, self.resubmit)
        flying = {call_id for b in in_flight for call_id in b.call_ids}
        first_round = max([b.round for b in earlier] + [i.round for i in intents], default=0) + 1
        unsent = [c for c in pending if c.call_id not in flying]
        to_send, stop = self._within_cap(unsent)
        if len(to_send) < len(unsent):
            self.left["not sent: spending cap"] += len(unsent) - len(to_send)
        in_flight += await self._submit(to_send, first_round)
        while in_flight:
            ended, in_flight = await self._wait(in_flight)
            if ended is None:
                return RunStatus.CANCELLED
            for record, failed in ended:
                if failed and record.round < first_round + self.batch.retry_rounds:
                    in_flight += await self._submit(failed, record.round + 1)
                elif failed and self.batch.retry_live:
                    await self._send_live(failed)
                else:
                    self._give_up(failed)
        return stop

    def _give_up(self, calls: list[PlannedCall]) -> None:
        """Store calls whose last batch round gave no reply as failures (a resume sends them again)."""
        for call in calls:
            self.left[self.causes.get(call.call_id, "errored")] += 1
            self.landing.land(self._record_of(call.call_id, None, None, None, self.errors.get(call.call_id)))

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
        for number, chunk in enumerate(split_requests(requests, self.backend, self.batch.max_requests_per_batch)):
            input_file_id = await self.backend.prepare(chunk)
            intent = BatchIntent(uuid.uuid4().hex, self.plan.run_id, self.backend.provider, round_number, number,
                                 tuple(r.call_id for r in chunk), input_file_id, time.time())
            batch_queries.record_intent(self.store, intent)  # before create: a crash after it is adopted
            batch_id, adopted_by = await create_or_adopt(self.backend, intent, chunk, self.known,
                                                         self.settings.max_attempts, self.settings.backoff_base_s)
            self.known.add(batch_id)
            record = BatchRecord(self.plan.run_id, batch_id, self.backend.provider, input_file_id,
                                 intent.call_ids, round_number, "submitted", adopted_by)
            batch_queries.record_batch(self.store, record, intent.intent_id)
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
            if self.writer.failure is not None:  # the store refused replies past the budget: stop, interrupted
                raise self.writer.failure  # (the batches stay recorded; a resume polls them and replays the journal)
            if ended:
                return ended, still
            if await self._sleep_or_cancel():
                return None, still

    async def _sleep_or_cancel(self) -> bool:
        deadline = time.monotonic() + self.batch.poll_interval_s
        while time.monotonic() < deadline:
            if cancel_requested(self.store, self.plan.run_id):
                return True
            await asyncio.sleep(min(0.25, self.batch.poll_interval_s))
        return cancel_requested(self.store, self.plan.run_id)

    async def _collect(self, record: BatchRecord) -> list[PlannedCall]:
        """Journal and store a finished batch's replies; returns its calls that got none."""
        returned = await self.backend.results(record.batch_id)
        try:
            check_adopted(record, returned)
        except BatchAdoptionError:
            batch_queries.mark_collected(self.store, self.plan.run_id, record.batch_id, status="foreign")
            raise
        results = {r.call_id: r for r in returned}
        missing = []
        for call_id in record.call_ids:
            if call_id in self.answered:  # collected before a crash, replayed from the journal since
                continue
            result = results.get(call_id)
            if result is not None and result.text is not None:
                self.landing.land(self._record_of(call_id, result.text, result.input_tokens, result.output_tokens))
                self.answered.add(call_id)
            else:
                self.errors[call_id] = result.error if result and result.error else (
                    f"no result for this request in batch {record.batch_id}")
                self.causes[call_id] = (result.cause or "errored") if result else "missing from the batch results"
                missing.append(self.calls[call_id])
        batch_queries.mark_collected(self.store, self.plan.run_id, record.batch_id)
        return missing

    async def _send_live(self, calls: list[PlannedCall]) -> None:
        budget = Budget(self.settings.max_cost_usd, self.price, self.spec.max_tokens)
        executor = RunExecutor(self.client, self.settings, self.landing, budget,
                               {c.call_id: self.cache_keys[c.call_id] for c in calls}, {},
                               should_cancel=lambda: cancel_requested(self.store, self.plan.run_id))
        failed_before = self.landing.counts.failed
        await executor.run(calls)  # its replies land through the session's landing, counted with the batch ones
        if self.landing.counts.failed > failed_before:
            self.left["live retry failed"] += self.landing.counts.failed - failed_before
