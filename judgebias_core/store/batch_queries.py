"""The provider batches of a run: intents written before each create (``batch_intents``), batches recorded once
the provider accepted them (``run_batches``), marked when their results are stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgebias_core.store.handle import Store, StoreReader


@dataclass(frozen=True)
class BatchRecord:
    """One submitted batch: which calls it carries and whether its results are in the store."""

    run_id: str
    batch_id: str
    provider: str
    input_file_id: str | None
    call_ids: tuple[str, ...]
    round: int
    status: str  # submitted | collected | foreign (adopted, but its results carried other custom ids)
    adopted_by: str | None = None  # None, or how a resume matched it: metadata | input file | window


@dataclass(frozen=True)
class BatchIntent:
    """A batch about to be created: written before ``create`` so a resume can find it at the provider."""

    intent_id: str
    run_id: str
    provider: str
    round: int
    chunk: int
    call_ids: tuple[str, ...]
    input_file_id: str | None
    intent_at: float  # epoch seconds
    status: str = "pending"  # pending | submitted | abandoned
    batch_id: str | None = None


def record_intent(store: Store, intent: BatchIntent) -> None:
    """Keep what is about to be submitted, before the provider is asked to create it."""
    with store.writer() as con:
        con.execute(
            "INSERT INTO batch_intents (intent_id, run_id, provider, round, chunk, call_ids, input_file_id, "
            "intent_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
            [intent.intent_id, intent.run_id, intent.provider, intent.round, intent.chunk, list(intent.call_ids),
             intent.input_file_id, intent.intent_at],
        )


def record_batch(store: Store, record: BatchRecord, intent_id: str | None = None) -> None:
    """Keep a batch the moment the provider accepted it (or a resume adopted it), and settle its intent, in one
    transaction, so a resumed run polls it instead of sending it again."""
    with store.writer() as con:
        con.execute(
            "INSERT OR IGNORE INTO run_batches (run_id, batch_id, provider, input_file_id, call_ids, round, status, "
            "adopted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [record.run_id, record.batch_id, record.provider, record.input_file_id, list(record.call_ids),
             record.round, record.status, record.adopted_by],
        )
        if intent_id is not None:
            con.execute("UPDATE batch_intents SET status = 'submitted', batch_id = ? WHERE intent_id = ?",
                        [record.batch_id, intent_id])


def abandon_intent(store: Store, intent_id: str) -> None:
    """An intent no batch at the provider answers to (never created, or ``--resubmit``): its calls go out again."""
    with store.writer() as con:
        con.execute("UPDATE batch_intents SET status = 'abandoned' WHERE intent_id = ?", [intent_id])


def mark_collected(store: Store, run_id: str, batch_id: str, status: str = "collected") -> None:
    with store.writer() as con:
        con.execute("UPDATE run_batches SET status = ?, collected_at = current_timestamp "
                    "WHERE run_id = ? AND batch_id = ?", [status, run_id, batch_id])


def run_batches(reader: StoreReader, run_id: str, statuses: Sequence[str] = ("submitted", "collected"),
                ) -> list[BatchRecord]:
    """The run's batches with one of ``statuses``, oldest first."""
    con = reader.con
    rows = con.execute(
        "SELECT run_id, batch_id, provider, input_file_id, call_ids, round, status, adopted_by FROM run_batches "
        "WHERE run_id = ? AND list_contains(?::VARCHAR[], status) ORDER BY submitted_at, batch_id",
        [run_id, list(statuses)],
    ).fetchall()
    return [BatchRecord(r[0], r[1], r[2], r[3], tuple(r[4]), int(r[5]), r[6], r[7]) for r in rows]


def pending_intents(reader: StoreReader, run_id: str) -> list[BatchIntent]:
    """The run's intents with no batch recorded: a session that stopped between writing one and recording its
    batch (the create may or may not have reached the provider)."""
    con = reader.con
    rows = con.execute(
        "SELECT intent_id, run_id, provider, round, chunk, call_ids, input_file_id, intent_at, status, batch_id "
        "FROM batch_intents WHERE run_id = ? AND status = 'pending' ORDER BY intent_at, chunk", [run_id],
    ).fetchall()
    return [BatchIntent(r[0], r[1], r[2], int(r[3]), int(r[4]), tuple(r[5]), r[6], float(r[7]), r[8], r[9])
            for r in rows]


def known_batch_ids(reader: StoreReader, provider: str) -> set[str]:
    """Every batch id this store has recorded for ``provider`` (any run): never adopted for another intent."""
    con = reader.con
    rows = con.execute("SELECT batch_id FROM run_batches WHERE provider = ?", [provider]).fetchall()
    return {r[0] for r in rows}
