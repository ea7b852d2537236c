"""Adopt before you create: a resumed batch run asks the provider for the batches its last session may have created.

Every create is preceded by an intent in the store (``batch_intents``: run, round, chunk, call ids, OpenAI's input
file). An intent still ``pending`` on resume means the session stopped between writing it and recording the
batch. The provider's batch list decides: exactly one match is adopted (recorded as the run's batch and polled),
none means the create never reached the provider (the intent is abandoned and its calls go out again), several
are ambiguous and stop the run unless ``resubmit`` is given, so nothing is paid for twice silently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence

from judgebias_core.engine.batch_types import AdoptionCandidate, BatchBackend, BatchRequest, BatchResult, BatchTags
from judgebias_core.errors import BatchAdoptionError, JudgeCallError
from judgebias_core.store import batch_queries
from judgebias_core.store.batch_queries import BatchIntent, BatchRecord
from judgebias_core.store.handle import Store

ADOPTED_BY_WINDOW = "window"  # matched by creation time and request count only: its custom ids are checked


async def adopt_intents(store: Store, backend: BatchBackend, intents: list[BatchIntent],
                        known: set[str], resubmit: bool = False) -> list[BatchRecord]:
    """The batches adopted for the run's pending intents (recorded in ``run_batches``); the other intents are
    abandoned, so their calls are submitted again. Adds the adopted ids to ``known``. Raises
    ``BatchAdoptionError`` when a match is ambiguous."""
    adopted: list[BatchRecord] = []
    claimed = known
    for intent in intents:
        candidates = await backend.candidates(intent, claimed)
        if len(candidates) == 1:
            [match] = candidates
            record = BatchRecord(intent.run_id, match.batch_id, intent.provider, intent.input_file_id,
                                 intent.call_ids, intent.round, "submitted", match.matched_by)
            batch_queries.record_batch(store, record, intent.intent_id)
            claimed.add(match.batch_id)
            adopted.append(record)
        elif not candidates or resubmit:
            batch_queries.abandon_intent(store, intent.intent_id)
        else:
            raise _ambiguous(intent, candidates)
    return adopted


async def create_or_adopt(backend: BatchBackend, intent: BatchIntent, chunk: Sequence[BatchRequest], known: set[str],
                          attempts: int, backoff_s: float) -> tuple[str, str | None]:
    """Create the intent's batch: (batch id, None), or after a create that failed in transit (the provider may have
    made the batch all the same) the batch found for the intent: (its id, how it matched). Only when none is
    found is it created again, up to ``attempts`` times."""
    tags = BatchTags(intent.run_id, intent.intent_id, intent.round, intent.chunk)
    attempt = 1
    while True:
        try:
            return await backend.create(chunk, intent.input_file_id, tags), None
        except JudgeCallError as error:
            if not error.retryable or attempt >= attempts:
                raise
        await asyncio.sleep(backoff_s * 2 ** (attempt - 1))
        attempt += 1
        candidates = await backend.candidates(intent, known)
        if len(candidates) == 1:
            return candidates[0].batch_id, candidates[0].matched_by
        if candidates:
            raise _ambiguous(intent, candidates)


def _ambiguous(intent: BatchIntent, candidates: list[AdoptionCandidate]) -> BatchAdoptionError:
    ids = ", ".join(c.batch_id for c in candidates)
    return BatchAdoptionError(
        f"run {intent.run_id!r}: {len(candidates)} {intent.provider} batches ({ids}) could be the one this "
        f"run submitted for {len(intent.call_ids)} calls (before it stopped, or in a create that failed in "
        "transit), so nothing was submitted again; "
        "cancel the ones that are not this run's at the provider and resume, or resume with --resubmit "
        "to submit those calls once more (paying for them again if one of those batches was this run's)")


def check_adopted(record: BatchRecord, results: Collection[BatchResult]) -> None:
    """A batch adopted by time and request count must carry exactly the intent's custom ids."""
    if record.adopted_by != ADOPTED_BY_WINDOW:
        return
    returned = {r.call_id for r in results}
    if returned != set(record.call_ids):
        common = len(returned & set(record.call_ids))
        raise BatchAdoptionError(
            f"run {record.run_id!r}: batch {record.batch_id}, adopted on resume by its creation time and request "
            f"count, holds other requests ({common} of its {len(returned)} custom ids are this run's); none of its "
            "results were stored. Resume the run to submit its calls in a new batch")
