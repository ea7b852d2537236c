"""Adopt before you create: a resumed batch run asks the provider for the batches its last session may have created.

Every create is preceded by an intent in the store (``batch_intents``: run, round, chunk, call ids, OpenAI's input
file). An intent still ``pending`` on resume means the session stopped between writing it and recording the
batch. The provider's batch list decides: exactly one match is adopted (recorded as the run's batch and polled),
none means the create never reached the provider (the intent is abandoned and its calls go out again), several
are ambiguous and stop the run unless ``resubmit`` is given, so nothing is paid for twice silently.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from judgebias_core.engine.batch_types import BatchBackend, BatchResult
from judgebias_core.errors import BatchAdoptionError
from judgebias_core.store import batch_queries
from judgebias_core.store.batch_queries import BatchIntent, BatchRecord

ADOPTED_BY_WINDOW = "window"  # matched by creation time and request count only: its custom ids are checked


async def adopt_intents(db_path: str | os.PathLike[str], backend: BatchBackend, intents: list[BatchIntent],
                        known: set[str], resubmit: bool = False) -> list[BatchRecord]:
    """The batches adopted for the run's pending intents (recorded in ``run_batches``); the other intents are
    abandoned, so their calls are submitted again. Raises ``BatchAdoptionError`` when a match is ambiguous."""
    adopted: list[BatchRecord] = []
    claimed = set(known)
    for intent in intents:
        candidates = await backend.candidates(intent, claimed)
        if len(candidates) == 1:
            [match] = candidates
            record = BatchRecord(intent.run_id, match.batch_id, intent.provider, intent.input_file_id,
                                 intent.call_ids, intent.round, "submitted", match.matched_by)
            batch_queries.record_batch(db_path, record, intent.intent_id)
            claimed.add(match.batch_id)
            adopted.append(record)
        elif not candidates or resubmit:
            batch_queries.abandon_intent(db_path, intent.intent_id)
        else:
            ids = ", ".join(c.batch_id for c in candidates)
            raise BatchAdoptionError(
                f"run {intent.run_id!r}: {len(candidates)} {intent.provider} batches ({ids}) could be the one this "
                f"run submitted for {len(intent.call_ids)} calls before it stopped, so nothing was submitted again; "
                "cancel the ones that are not this run's at the provider and resume, or resume with --resubmit "
                "to submit those calls once more (paying for them again if one of those batches was this run's)")
    return adopted


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
