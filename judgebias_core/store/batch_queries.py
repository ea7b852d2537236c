"""The provider batches of a run (table ``run_batches``): recorded at submission, marked when collected."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from judgebias_core.store.connection import connect, transaction
from judgebias_core.store.schema import migrate


@dataclass(frozen=True)
class BatchRecord:
    """One submitted batch: which calls it carries and whether its results are in the store."""

    run_id: str
    batch_id: str
    provider: str
    input_file_id: str | None
    call_ids: tuple[str, ...]
    round: int
    status: str  # submitted | collected


def record_batch(path: str | os.PathLike[str], record: BatchRecord) -> None:
    """Keep a batch the moment the provider accepted it, so a resumed run polls it instead of sending it again."""
    migrate(path)
    with transaction(path) as con:
        con.execute(
            "INSERT OR IGNORE INTO run_batches (run_id, batch_id, provider, input_file_id, call_ids, round, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [record.run_id, record.batch_id, record.provider, record.input_file_id, list(record.call_ids),
             record.round, record.status],
        )


def mark_collected(path: str | os.PathLike[str], run_id: str, batch_id: str) -> None:
    with transaction(path) as con:
        con.execute("UPDATE run_batches SET status = 'collected', collected_at = current_timestamp "
                    "WHERE run_id = ? AND batch_id = ?", [run_id, batch_id])


def run_batches(path: str | os.PathLike[str], run_id: str, statuses: Sequence[str] = ("submitted", "collected"),
                ) -> list[BatchRecord]:
    """The run's batches with one of ``statuses``, oldest first."""
    migrate(path)
    with connect(path, read_only=True) as con:
        rows = con.execute(
            "SELECT run_id, batch_id, provider, input_file_id, call_ids, round, status FROM run_batches "
            "WHERE run_id = ? AND list_contains(?::VARCHAR[], status) ORDER BY submitted_at, batch_id",
            [run_id, list(statuses)],
        ).fetchall()
    return [BatchRecord(r[0], r[1], r[2], r[3], tuple(r[4]), int(r[5]), r[6]) for r in rows]
