"""Writes to the store: whole batches in one transaction, idempotent by primary key."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, fields

import duckdb
import pandas as pd

from judgebias_core.errors import StoreBusyError
from judgebias_core.store.connection import int_scalar
from judgebias_core.store.handle import Store

# Tables in the order a batch writes them; each frame's columns are a subset of the table's.
TABLE_ORDER = (
    "datasets",
    "rubrics",
    "rubric_levels",
    "items",
    "answers",
    "human_labels",
    "judges",
    "prompt_templates",
    "runs",
    "judge_calls",
)


@dataclass
class StoreBatch:
    """Rows for several tables, written together or not at all."""

    datasets: pd.DataFrame | None = None
    rubrics: pd.DataFrame | None = None
    rubric_levels: pd.DataFrame | None = None
    items: pd.DataFrame | None = None
    answers: pd.DataFrame | None = None
    human_labels: pd.DataFrame | None = None
    judges: pd.DataFrame | None = None
    prompt_templates: pd.DataFrame | None = None
    runs: pd.DataFrame | None = None
    judge_calls: pd.DataFrame | None = None
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)

    def frames(self) -> list[tuple[str, pd.DataFrame]]:
        named = [(f.name, getattr(self, f.name)) for f in fields(self) if f.name != "extra"]
        ordered = sorted(named, key=lambda pair: TABLE_ORDER.index(pair[0]))
        return [(name, frame) for name, frame in ordered if frame is not None] + list(self.extra.items())


@dataclass(frozen=True)
class WriteResult:
    """Rows each table gained (rows already present are left as they were)."""

    inserted: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.inserted.values())


def _insert_ignoring_existing(con: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame) -> int:
    if frame.empty:
        return 0
    before = int_scalar(con, f"SELECT count(*) FROM {table}")
    con.register("_batch_frame", frame)
    try:
        con.execute(f"INSERT OR IGNORE INTO {table} BY NAME SELECT * FROM _batch_frame")
    finally:  # after a fatal error the aborted transaction refuses this too: the first error is the one to see
        with contextlib.suppress(duckdb.TransactionException):
            con.unregister("_batch_frame")
    after = int_scalar(con, f"SELECT count(*) FROM {table}")
    return int(after - before)


# The orientation of a pair (which call is its "original" order, so which answer is the unit's candidate and which
# its opponent) is a rule on names, never on file order: the opponent is the run's declared reference (an upload's
# ``original_first``) when it is one of the two, else the dataset's baseline when it is one of the two, else the
# candidate whose name sorts first. The candidate is the other one. Calls' own order_label stays as written.
_OPPONENT = """CASE
    WHEN r.origin = 'upload' AND json_extract_string(r.params, '$.settings.original_first')
         IN (o.first_candidate, o.second_candidate)
        THEN json_extract_string(r.params, '$.settings.original_first')
    WHEN d.baseline_candidate IN (o.first_candidate, o.second_candidate) THEN d.baseline_candidate
    ELSE least(o.first_candidate, o.second_candidate)
END"""
PAIR_SELECT_SQL = """
SELECT o.dataset_id, o.study, o.run_id, o.judge, o.repetition, o.item_id, i.task,
       o.second_candidate AS candidate, o.first_candidate AS opponent,
       o.call_id, s.call_id,
       CASE WHEN o.parse_status = 'ok' THEN o.verdict END,
       CASE WHEN s.parse_status = 'ok' THEN s.verdict END,
       CASE
         WHEN o.parse_status <> 'ok' OR s.parse_status <> 'ok'
              OR o.verdict NOT IN ('A', 'B', 'C') OR s.verdict NOT IN ('A', 'B', 'C') THEN 'failed'
         WHEN (o.verdict = 'A' AND s.verdict = 'B') OR (o.verdict = 'B' AND s.verdict = 'A')
              OR (o.verdict = 'C' AND s.verdict = 'C') THEN 'consistent'
         WHEN o.verdict = 'A' OR (o.verdict = 'C' AND s.verdict = 'A') THEN 'primacy'
         ELSE 'recency'
       END,
       CASE
         WHEN o.parse_status <> 'ok' OR s.parse_status <> 'ok' THEN NULL
         WHEN o.verdict = 'A' AND s.verdict = 'B' THEN o.first_candidate
         WHEN o.verdict = 'B' AND s.verdict = 'A' THEN o.second_candidate
         WHEN o.verdict = 'C' AND s.verdict = 'C' THEN 'tie'
       END
FROM judge_calls o
JOIN judge_calls s
  ON s.dataset_id = o.dataset_id AND s.study = o.study AND s.judge = o.judge
 AND s.repetition = o.repetition AND s.item_id = o.item_id
 AND s.first_candidate = o.second_candidate AND s.second_candidate = o.first_candidate
 AND s.kind = 'pairwise'
LEFT JOIN items i ON i.dataset_id = o.dataset_id AND i.item_id = o.item_id
LEFT JOIN datasets d ON d.dataset_id = o.dataset_id
LEFT JOIN runs r ON r.run_id = o.run_id
WHERE o.kind = 'pairwise' AND o.first_candidate <> o.second_candidate AND o.first_candidate = """ + _OPPONENT + """
  AND {condition}
"""
PAIR_OUTCOMES_SQL = "INSERT INTO pair_outcomes " + PAIR_SELECT_SQL.format(condition="o.dataset_id = ? AND o.study = ?")


def refresh_pair_outcomes(con: duckdb.DuckDBPyConnection, dataset_id: str, study: str) -> None:
    """Reclassify every pair of one (dataset, study) from its judge calls."""
    con.execute("DELETE FROM pair_outcomes WHERE dataset_id = ? AND study = ?", [dataset_id, study])
    con.execute(PAIR_OUTCOMES_SQL, [dataset_id, study])


# The pairs a batch of calls can complete are those with either call in the batch. Calls are never rewritten
# (INSERT OR IGNORE), so every other pair is already classified and stays as it is. The constant dataset and study
# filters let DuckDB skip the row groups of other runs instead of scanning the whole table.
_SCOPE = "o.dataset_id = $dataset AND o.study = $study AND s.dataset_id = $dataset AND s.study = $study AND "
PAIRS_OF_CALLS_SQL = (
    "INSERT INTO pair_outcomes "
    + PAIR_SELECT_SQL.format(condition=_SCOPE + "o.call_id IN (SELECT call_id FROM _touched_calls)")
    + " UNION ALL "
    + PAIR_SELECT_SQL.format(condition=_SCOPE + "s.call_id IN (SELECT call_id FROM _touched_calls) "
                                       "AND o.call_id NOT IN (SELECT call_id FROM _touched_calls)")
)


def classify_pairs_of_calls(con: duckdb.DuckDBPyConnection, calls: pd.DataFrame) -> None:
    """(Re)classify the pairs that include any of ``calls`` (call_id, dataset_id, study): the rows a full refresh
    would give them, at the cost of the new calls and their mirrors rather than of the whole study.

    The delete also covers a call stored again under its old id (the engine replaces 'no reply' rows that way).
    """
    touched = calls[["call_id", "dataset_id", "study"]].drop_duplicates("call_id").astype(str)
    con.register("_touched_frame", touched)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE _touched_calls AS SELECT call_id FROM _touched_frame")
    finally:  # after a fatal error the aborted transaction refuses this too: the first error is the one to see
        with contextlib.suppress(duckdb.TransactionException):
            con.unregister("_touched_frame")
    for dataset_id, study in touched[["dataset_id", "study"]].drop_duplicates().itertuples(index=False):
        scope = {"dataset": dataset_id, "study": study}
        con.execute(
            "DELETE FROM pair_outcomes WHERE dataset_id = $dataset AND study = $study "
            "AND (original_call_id IN (SELECT call_id FROM _touched_calls) "
            "OR swapped_call_id IN (SELECT call_id FROM _touched_calls))", scope,
        )
        con.execute(PAIRS_OF_CALLS_SQL, scope)
    con.execute("DROP TABLE _touched_calls")


def fill_pair_tasks(con: duckdb.DuckDBPyConnection, dataset_ids: list[str]) -> None:
    """Give pairs classified before their items arrived (runs imported first) the items' task."""
    con.execute(
        "UPDATE pair_outcomes p SET task = i.task FROM items i WHERE p.task IS NULL AND i.task IS NOT NULL "
        "AND i.dataset_id = p.dataset_id AND i.item_id = p.item_id AND list_contains(?::VARCHAR[], p.dataset_id)",
        [dataset_ids],
    )


def write_batch(store: Store, batch: StoreBatch) -> WriteResult:
    """Write every frame of ``batch`` in one transaction, then classify the pairs its calls belong to."""
    try:
        return _write_batch(store, batch)
    except duckdb.CatalogException as error:
        # DuckDB 2.0 (Python) can miss its pandas scanner on a database instance another thread of the process is
        # opening at that moment ("Table Function with name pandas_scan does not exist"); the transaction rolled
        # back and the same write succeeds when tried again (two threads opening short connections to one file:
        # 44 of 6,000 writes). Said as busy, so callers retry it like a held lock.
        if "pandas_scan" in str(error):
            raise StoreBusyError(f"the store was being opened by another thread; write it again ({error})") from error
        raise


def _write_batch(store: Store, batch: StoreBatch) -> WriteResult:
    inserted: dict[str, int] = {}
    with store.writer() as con:
        for table, frame in batch.frames():
            inserted[table] = _insert_ignoring_existing(con, table, frame)
        calls = batch.judge_calls
        if calls is not None and not calls.empty and inserted.get("judge_calls", 0) > 0:
            pairwise = calls[calls["kind"] == "pairwise"]
            if not pairwise.empty:
                classify_pairs_of_calls(con, pairwise)
        if inserted.get("items", 0) > 0 and batch.items is not None:
            fill_pair_tasks(con, sorted(batch.items["dataset_id"].astype(str).unique().tolist()))
    return WriteResult(inserted=inserted)
