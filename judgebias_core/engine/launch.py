"""Start or resume a run: plan it, register it, replay its journal, send what is missing, finish it.

Running the same run id again after any interruption (SIGKILL included) first moves the journal into the store,
then sends only the calls with no reply: nothing lost, no duplicate rows, no received reply requested again. A run
ends "complete" only when the store holds every planned call (a reply or a stored failure); a session that could
not store its replies ends "interrupted" with a named error, and the next session stores them from the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd
from pydantic import BaseModel

from judgebias_core.engine.folder_identity import claim_run_folder
from judgebias_core.engine.in_flight import SendLedger, sent_path, settle_unanswered_sends
from judgebias_core.engine.journal import Journal, journal_path, read_journal
from judgebias_core.engine.landing import ReplyLanding
from judgebias_core.engine.progress import RunLock, RunProgress, begin_session, cancel_requested, write_progress
from judgebias_core.engine.records import ReplyRecord, RunContext, cache_key, cached_records
from judgebias_core.engine.runner import Budget, RunExecutor
from judgebias_core.engine.writer import StoreWriter
from judgebias_core.errors import InvalidArgument, StoreError, StoreWriteError
from judgebias_core.identity import model_family
from judgebias_core.judges import make_client
from judgebias_core.judges.prices import price_of, run_price
from judgebias_core.judges.redact import scrub_record
from judgebias_core.models import NO_REPLY, RunStatus, status_summary
from judgebias_core.protocols.plans import Plan, build_plan
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.run_types import JudgeClient, PlannedCall
from judgebias_core.store import run_queries
from judgebias_core.store.handle import Store, StoreReader
from judgebias_core.store.writes import StoreBatch, write_batch

ProgressCallback = Callable[[RunProgress], None]


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    status: RunStatus
    planned: int
    completed: int
    failed: int
    parse_failures: int
    cost_usd: float
    sent_this_session: int  # calls sent to the judge or submitted in a batch this session
    replayed_from_journal: int
    left_without_reply: tuple[tuple[str, int], ...] = ()  # batch runs: (why, how many) this session left unanswered
    cost_estimated_usd: float = 0.0  # part of cost_usd: requests a kill cut off after sending (an estimate)
    unanswered_sends: int = 0  # those requests
    unpriced_calls: int = 0  # replies whose cost is unknown (no price for the model): not in cost_usd

    @property
    def summary(self) -> str:
        """The status in words: "complete, 2 failed" when calls got no reply after every retry."""
        return status_summary(self.status, self.planned, self.completed, self.failed)


def run_params(spec: RunSpec, plan: Plan, client: JudgeClient, settings: RunSettings | None = None,
               batch: BaseModel | None = None) -> dict[str, object]:
    """What the runs table keeps: the whole spec, plus the sampling settings and judge description up front, and
    the first launch's execution settings (a resume from the dashboard keeps its spending cap and batch mode)."""
    return {"temperature": spec.temperature, "max_tokens": spec.max_tokens, "seed": spec.seed,
            "simulated": spec.simulated.model_dump() if spec.simulated else None,
            "orderings": [list(o) for o in plan.orderings] or None, "judge_description": client.describe(),
            "template_name": plan.template.name, "spec": spec.model_dump(mode="json"),
            "settings": settings.model_dump(mode="json") if settings else None,
            "batch": batch.model_dump(mode="json") if batch else None}


def register_run(store: Store, spec: RunSpec, plan: Plan, client: JudgeClient,
                 settings: RunSettings | None = None, batch: BaseModel | None = None) -> None:
    """Write (or refresh) the run's row, its judge and its prompt template; ``batch`` marks a batch-mode run."""
    runs = pd.DataFrame([{
        "run_id": plan.run_id, "dataset_id": spec.dataset_id, "study": plan.run_id, "origin": "engine",
        "protocol": spec.protocol, "provider": spec.provider, "judge": client.name, "model": spec.model,
        "simulated": client.simulated, "params": json.dumps(run_params(spec, plan, client, settings, batch)),
        "template_id": plan.template_id, "rubric_id": plan.rubric_id, "status": RunStatus.RUNNING.value,
        "planned": len(plan.calls),
    }])
    judges = pd.DataFrame([{"judge": client.name, "provider": spec.provider, "family": (
        "simulated" if client.simulated else model_family(spec.model)), "simulated": client.simulated,
        "description": client.describe()}])
    templates = pd.DataFrame([{"template_id": plan.template_id, "name": plan.template.name,
                               "kind": plan.template.call_kind, "text": plan.template.text}])
    write_batch(store, StoreBatch(judges=judges, prompt_templates=templates, runs=runs))


def check_same_run(reader: StoreReader, spec: RunSpec, run_id: str) -> None:
    """Refuse a run id that exists with other settings (or was not made by the engine)."""
    record = run_queries.run_record(reader, run_id)
    if record is None:
        return
    stored = json.loads(str(record["params"] or "{}")).get("spec")
    if record["origin"] != "engine" or stored is None:
        raise InvalidArgument(f"run id {run_id!r} belongs to a run the engine did not make")
    if RunSpec.model_validate(stored) != spec:
        changed = sorted(k for k, v in spec.model_dump(mode="json").items() if stored.get(k) != v)
        raise InvalidArgument(f"run {run_id!r} exists with other settings ({', '.join(changed)}); "
                              "resume it with the same settings or choose another --run-id")


def start_run(store: Store, spec: RunSpec, settings: RunSettings | None = None,
              run_id: str | None = None, on_progress: ProgressCallback | None = None,
              key: str | None = None) -> RunOutcome:
    """Run (or resume) a run to the end, a spending cap or a cancel request; returns its stored counts."""
    settings = settings or RunSettings.for_provider(spec.provider)
    provider = get_provider(spec.provider)
    if not provider.capabilities.live:
        raise InvalidArgument(f"provider {spec.provider!r} has no live calls: use batch mode")
    if (settings.max_cost_usd is not None and provider.paid and price_of(spec.model) is None
            and settings.price_per_mtok is None):
        raise InvalidArgument(f"no price for {spec.model!r} in the price table: add it (JUDGEBIAS_PRICES) "
                              "to use a spending cap")
    plan = prepare_run(store, spec, run_id or spec.default_run_id())
    with RunLock(store, plan.run_id):
        client = begin_run(store, spec, settings, plan, key)
        return asyncio.run(_execute(store, spec, settings, plan, client, on_progress))


def prepare_run(store: Store, spec: RunSpec, run_id: str) -> Plan:
    """Before a session (live or batch): claim the run folder (never replay another store's journals:
    ``ForeignRunFolder``), refuse a run id stored with other settings, and plan the run, on one snapshot."""
    claim_run_folder(store)
    with store.reader() as reader:
        check_same_run(reader, spec, run_id)
        return build_plan(reader, spec, run_id)


def begin_run(store: Store, spec: RunSpec, settings: RunSettings, plan: Plan, key: str | None,
              batch: BaseModel | None = None) -> JudgeClient:
    """Under the run's lock: the judge client, the run's row written (or refreshed), a new session begun."""
    client = make_client(store, spec, settings, key)
    register_run(store, spec, plan, client, settings, batch)
    begin_session(store, plan.run_id)
    return client


@dataclass(frozen=True)
class Session:
    """Where a session of a run (live or batch) starts: the journal replayed into the store, and what is left."""

    calls: dict[str, PlannedCall]
    writer: StoreWriter
    replayed: int  # journal lines moved into the store
    answered: set[str]  # calls with a reply in the store or the journal
    earlier_failures: set[str]  # calls stored with no reply by an earlier session, still without one
    pending: list[PlannedCall]  # the plan's calls with no reply yet, in plan order


def open_session(store: Store, spec: RunSpec, settings: RunSettings, plan: Plan,
                 client: JudgeClient) -> Session:
    """Replay the run's journal into the store (writer not started yet) and list the calls still to send."""
    context = RunContext(plan.run_id, client.name, plan.template_id, client.parser or plan.template.parser,
                         spec.allow_none)
    calls = {c.call_id: c for c in plan.calls}
    with store.reader() as reader:
        stored = run_queries.stored_call_status(reader, plan.run_id)
    no_reply_ids = set(stored.loc[stored["parse_status"] == NO_REPLY, "call_id"])
    writer = StoreWriter(store, calls, context, spec.provider, spec.model, no_reply_ids,
                         settings.flush_every, settings.flush_interval_s, settings.store_retry_s)
    journaled = read_journal(journal_path(store, plan.run_id))
    settle_unanswered_sends(store, plan.run_id, calls, journaled, price_of(spec.model) if client.paid else None,
                            spec.max_tokens)
    replayed = replay_journal(journaled, set(stored["call_id"]), no_reply_ids, calls, writer)
    writer.parse_failures = 0  # the replayed lines are in the stored counts
    answered = set(stored.loc[stored["parse_status"] != NO_REPLY, "call_id"]) | {
        r.call_id for r in journaled.values() if r.text is not None}
    pending = [c for c in plan.calls if c.call_id not in answered]
    return Session(calls, writer, replayed, answered, no_reply_ids - answered, pending)


def finish_session(store: Store, plan: Plan, status: RunStatus, sent: int,
                   replayed: int, left: tuple[tuple[str, int], ...] = ()) -> RunOutcome:
    """The run's stored counts after a session (its status is already written)."""
    with store.reader() as reader:
        counts = run_queries.run_counts(reader, plan.run_id)
    return RunOutcome(plan.run_id, status, len(plan.calls), int(counts["completed"]), int(counts["failed"]),
                      int(counts["parse_failures"]), counts["cost_usd"], sent, replayed, left,
                      counts["cost_estimated_usd"], int(counts["unanswered_sends"]), int(counts["unpriced_calls"]))


def status_from_store(store: Store, plan: Plan, status: RunStatus) -> RunStatus:
    """What the session's status is as the store shows it: "complete" only when every planned call is stored (a
    reply or a stored failure), else "interrupted" (a resume stores the rest). Other statuses stay."""
    if status is not RunStatus.COMPLETE:
        return status
    with store.reader() as reader:
        stored = set(run_queries.stored_call_status(reader, plan.run_id)["call_id"])
    return RunStatus.COMPLETE if all(c.call_id in stored for c in plan.calls) else RunStatus.INTERRUPTED


def end_session(store: Store, plan: Plan, writer: StoreWriter,
                status: RunStatus) -> tuple[RunStatus, StoreError | None]:
    """Store what the writer still holds, then the run's status as the store shows it; never leaves the run
    "running". Returns the status and the error that stopped the session's writes (the caller raises it)."""
    failure: StoreError | None = None
    try:
        writer.close()
    except StoreWriteError as error:
        failure = error
    failure = failure or writer.failure
    try:
        status = RunStatus.INTERRUPTED if failure else status_from_store(store, plan, status)
        run_queries.set_run_status(store, plan.run_id, status, finished=status is not RunStatus.INTERRUPTED)
    except Exception as error:  # noqa: BLE001 - the store is unusable now: the progress file says interrupted
        status = RunStatus.INTERRUPTED
        failure = failure or StoreWriteError(f"run {plan.run_id}: its status could not be written to the store "
                                             f"{store.path} ({type(error).__name__}: {error}); every reply is in "
                                             f"its journal {journal_path(store, plan.run_id)}: free the store, "
                                             "then run the same command again to store them")
    return status, failure


def abandon_session(store: Store, run_id: str) -> None:
    """A session that failed before sending (a journal that could not be replayed): the run is not left
    "running" (best effort: the store may be what failed)."""
    with contextlib.suppress(Exception):
        run_queries.set_run_status(store, run_id, RunStatus.INTERRUPTED, finished=False)


async def _execute(store: Store, spec: RunSpec, settings: RunSettings, plan: Plan,
                   client: JudgeClient, on_progress: ProgressCallback | None) -> RunOutcome:
    try:
        session = open_session(store, spec, settings, plan, client)
    except BaseException:
        await client.aclose()
        abandon_session(store, plan.run_id)
        raise
    writer, pending = session.writer, session.pending
    cache_keys = {c.call_id: cache_key(spec, c) for c in pending} if client.paid else {}
    with store.reader() as reader:  # before the writer thread opens the store
        cached = cached_records(run_queries.cached_replies(reader, list(cache_keys.values())))
        base = run_queries.run_counts(reader, plan.run_id)
    price, unpriced = run_price(spec.model, spec.provider, settings.price_per_mtok)
    budget = Budget(settings.max_cost_usd, price, spec.max_tokens, unpriced=unpriced)
    journal = Journal(journal_path(store, plan.run_id))
    ledger = SendLedger(sent_path(store, plan.run_id))
    landing = ReplyLanding(journal, writer, session.earlier_failures, ledger)
    executor = RunExecutor(client, settings, landing, budget, cache_keys, cached,
                           should_cancel=lambda: cancel_requested(store, plan.run_id))
    budget.spent = base["cost_usd"]

    def report(status: RunStatus = RunStatus.RUNNING) -> None:
        progress = _progress(plan, executor, writer, base, status)
        write_progress(store, progress)
        if on_progress:
            on_progress(progress)

    writer.start()
    status, failure = RunStatus.INTERRUPTED, None
    try:
        status = await executor.run(pending, on_tick=report)
    finally:
        await client.aclose()
        journal.close()
        ledger.close()
        status, failure = end_session(store, plan, writer, status)
        with contextlib.suppress(OSError):  # a full disk: the stored status is written, the file may not be
            report(status)
    if failure is not None:
        raise failure
    return finish_session(store, plan, status, landing.counts.sent, session.replayed)


def replay_journal(journal: Mapping[str, ReplyRecord], stored_ids: set[str], no_reply_ids: set[str],
                   calls: Mapping[str, PlannedCall], writer: StoreWriter) -> int:
    """Move journal lines the store does not hold yet (or holds only as 'no reply') into the store."""
    missing = [r for cid, r in journal.items() if cid in calls and (
        cid not in stored_ids or (cid in no_reply_ids and r.text is not None))]
    writer.write_now([scrub_record(r) for r in missing])  # journals written before scrubbing existed
    return len(missing)


def _progress(plan: Plan, executor: RunExecutor, writer: StoreWriter, base: dict[str, float],
              status: RunStatus) -> RunProgress:
    counts = executor.counts
    elapsed = time.monotonic() - counts.started
    done_now = counts.received + counts.failed
    rate = done_now / elapsed if elapsed > 0 else 0.0
    completed = int(base["completed"]) + counts.received
    # calls that got no reply in an earlier session are sent again: count each once, by its latest outcome
    failed = int(base["failed"]) - counts.retried_earlier_failures + counts.failed
    remaining = len(plan.calls) - completed - failed
    return RunProgress(
        run_id=plan.run_id, status=status, planned=len(plan.calls), completed=completed,
        failed=failed, parse_failures=int(base["parse_failures"]) + writer.parse_failures,
        cached=counts.cached, cost_usd=float(base["cost_usd"]) + counts.cost_usd, elapsed_s=elapsed,
        seconds_left=(remaining / rate) if rate > 0 and status is RunStatus.RUNNING else None, pid=os.getpid(),
        updated_at=time.time(), unpriced_calls=int(base["unpriced_calls"]) + counts.unpriced,
    )
