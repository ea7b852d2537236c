"""Reads behind the judge comparisons: pairwise verdicts per call, classified pairs, answer lengths, families."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from judgebias_core.errors import NotFoundError
from judgebias_core.store.handle import StoreReader

OUTCOME_COLUMNS = ["judge", "study", "repetition", "item_id", "task", "candidate", "opponent", "verdict_original",
                   "verdict_swapped", "classification", "winner"]


def pairwise_studies(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Studies of a dataset that hold pairwise calls, with their judges, repetitions and call counts."""
    con = reader.con
    return con.execute(
        "SELECT study, list(DISTINCT judge ORDER BY judge) AS judges, max(repetition) AS repetitions, "
        "count(*) AS calls FROM judge_calls WHERE dataset_id = ? AND kind = 'pairwise' "
        "GROUP BY study ORDER BY study",
        [dataset_id],
    ).df()


def pairwise_datasets(reader: StoreReader) -> list[str]:
    """Datasets holding at least one pairwise judge call, in the order they were added."""
    con = reader.con
    rows = con.execute(
        "SELECT d.dataset_id FROM datasets d WHERE EXISTS (SELECT 1 FROM judge_calls j "
        "WHERE j.dataset_id = d.dataset_id AND j.kind = 'pairwise') ORDER BY d.created_at, d.dataset_id"
    ).fetchall()
    return [row[0] for row in rows]


def pairwise_calls(reader: StoreReader, dataset_id: str, studies: list[str],
                   repetition: int | None = None) -> pd.DataFrame:
    """Every pairwise call of the studies; ``verdict`` is null unless the call parsed."""
    con = reader.con
    frame = con.execute(
        "SELECT j.judge, j.study, j.item_id, i.task, j.first_candidate, j.second_candidate, j.repetition, "
        "j.order_label, j.options, CASE WHEN j.parse_status = 'ok' THEN j.verdict END AS verdict "
        "FROM judge_calls j LEFT JOIN items i USING (dataset_id, item_id) "
        "WHERE j.dataset_id = $dataset_id AND j.kind = 'pairwise' AND j.study IN (SELECT unnest($studies)) "
        "AND ($repetition IS NULL OR j.repetition = $repetition) "
        "ORDER BY j.judge, j.study, j.item_id, j.first_candidate, j.second_candidate, j.repetition",
        {"dataset_id": dataset_id, "studies": studies, "repetition": repetition},
    ).df()
    if frame.empty:
        raise NotFoundError(f"no pairwise judge call on {dataset_id!r} in studies {studies}")
    return frame


# IN (SELECT unnest($studies)) rather than list_contains($studies, study): DuckDB pushes the former into the scan.
# Named parameters, as in every query with an optional filter (each value bound once).
CALL_SCOPE = ("dataset_id = $dataset_id AND kind = 'pairwise' AND study IN (SELECT unnest($studies)) "
              "AND ($repetition IS NULL OR repetition = $repetition)")


# Verdict codes packed PACKED_BITS to a judge into unsigned 64-bit words: one bit_or per word per (item, slots,
# repetition) costs two thirds of one filtered max per judge at 10M calls. Shift amounts are cast to UBIGINT, or
# DuckDB widens the result to HUGEINT (fetched as float).
PACKED_BITS = 4
LABELS_PER_WORD = 64 // PACKED_BITS
MAX_PACKED_LABELS = 64  # the presence mask that proves one call per judge is one 64-bit word


def verdict_code_matrix(reader: StoreReader, dataset_id: str, studies: list[str],
                        repetition: int | None = None) -> tuple[list[str], list[str], np.ndarray]:
    """Instances x judge labels of parsed-verdict codes (0: not answered or not parsed), pivoted in SQL.

    Returns the labels (sorted; ``name [study]`` when a judge is in several chosen studies), the verdicts (code
    ``i + 1`` is ``verdicts[i]``; A, B, C first) and the int8 matrix, one row per (item, slots, repetition).
    """
    labels, verdicts, codes, _ = verdict_code_matrix_with_items(reader, dataset_id, studies, repetition)
    return labels, verdicts, codes


def verdict_code_matrix_with_items(reader: StoreReader, dataset_id: str, studies: list[str],
                                   repetition: int | None = None) -> tuple[list[str], list[str], np.ndarray,
                                                                           np.ndarray]:
    """:func:`verdict_code_matrix` and the ``item_id`` of each row (for item-clustered intervals)."""
    scope: dict[str, object] = {"dataset_id": dataset_id, "studies": studies, "repetition": repetition}
    con = reader.con
    groups = con.execute(
        "SELECT judge, study, count(*) OVER (PARTITION BY judge) AS studies FROM (SELECT DISTINCT judge, study "
        f"FROM judge_calls WHERE {CALL_SCOPE})", scope).fetchall()
    if not groups:
        raise NotFoundError(f"no pairwise judge call on {dataset_id!r} in studies {studies}")
    found = con.execute(f"SELECT DISTINCT verdict FROM judge_calls WHERE {CALL_SCOPE} AND parse_status = 'ok' "
                        "AND verdict IS NOT NULL", scope).fetchall()
    labelled = sorted((judge if count == 1 else f"{judge} [{study}]", judge, study)
                      for judge, study, count in groups)
    verdicts = ["A", "B", "C", *sorted({row[0] for row in found} - {"A", "B", "C"})]
    params = {**scope, "verdicts": verdicts}
    for i, (_, judge, study) in enumerate(labelled):
        params |= {f"judge_{i}": judge, f"study_{i}": study}
    calls = ("SELECT item_id, first_candidate, second_candidate, repetition, CASE "
             + " ".join(f"WHEN judge = $judge_{i} AND study = $study_{i} THEN {i}" for i in range(len(labelled)))
             + " END AS label, CASE WHEN parse_status = 'ok' THEN coalesce(list_position($verdicts, verdict), 0) "
             f"ELSE 0 END AS code FROM judge_calls WHERE {CALL_SCOPE}")
    packed: tuple[np.ndarray, np.ndarray] | None = None
    if len(verdicts) < 2 ** PACKED_BITS and len(labelled) <= MAX_PACKED_LABELS:
        packed = _packed_codes(con, calls, params, len(labelled))
    if packed is None:
        packed = _filtered_codes(con, calls, params, len(labelled))
    codes, items = packed
    return [label for label, _, _ in labelled], verdicts, codes, items


def _packed_codes(con: duckdb.DuckDBPyConnection, calls: str, params: dict[str, object],
                  labels: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The code matrix and each row's item from packed words, or None when some judge has two calls of one (item, slots, repetition)."""
    words = range((labels + LABELS_PER_WORD - 1) // LABELS_PER_WORD)
    columns = ", ".join(f"coalesce(bit_or(code::UBIGINT << ({PACKED_BITS} * (label % {LABELS_PER_WORD}))::UBIGINT) "
                        f"FILTER (WHERE label // {LABELS_PER_WORD} = {w}), 0::UBIGINT) AS w{w}" for w in words)
    matrix = con.execute(
        f"SELECT item_id, count(*) AS calls, bit_count(bit_or(1::UBIGINT << label::UBIGINT)) AS judges, {columns} "
        f"FROM ({calls}) GROUP BY item_id, first_candidate, second_candidate, repetition", params).fetchnumpy()
    if not np.array_equal(matrix["calls"], matrix["judges"]):
        return None
    codes = np.empty((len(matrix["calls"]), labels), dtype=np.int8, order="F")  # judge columns contiguous
    for i in range(labels):
        word = matrix[f"w{i // LABELS_PER_WORD}"]
        codes[:, i] = (word >> np.uint64(PACKED_BITS * (i % LABELS_PER_WORD))) & np.uint64(2 ** PACKED_BITS - 1)
    return codes, matrix["item_id"].astype(str)


def _filtered_codes(con: duckdb.DuckDBPyConnection, calls: str, params: dict[str, object],
                    labels: int) -> tuple[np.ndarray, np.ndarray]:
    """The code matrix and each row's item from one filtered max per judge label (repeated calls keep the highest code)."""
    columns = ", ".join(f"coalesce(max(code) FILTER (WHERE label = {i}), 0)::TINYINT AS c{i}" for i in range(labels))
    matrix = con.execute(f"SELECT item_id, {columns} FROM ({calls}) GROUP BY item_id, first_candidate, second_candidate, "
                         "repetition", params).fetchnumpy()
    codes = np.empty((len(matrix["c0"]), labels), dtype=np.int8, order="F")  # judge columns contiguous
    for i in range(labels):
        codes[:, i] = matrix[f"c{i}"]
    return codes, matrix["item_id"].astype(str)


def pair_outcomes(reader: StoreReader, dataset_id: str, studies: list[str],
                  judge: str | None = None) -> pd.DataFrame:
    """Classified pairs of the studies (one row per pair, judge and repetition)."""
    con = reader.con
    return con.execute(
        "SELECT judge, study, repetition, item_id, task, candidate, opponent, verdict_original, "
        "verdict_swapped, classification, winner FROM pair_outcomes "
        "WHERE dataset_id = $dataset_id AND study IN (SELECT unnest($studies)) AND ($judge IS NULL OR judge = $judge) "
        "ORDER BY judge, study, item_id, candidate, opponent, repetition",
        {"dataset_id": dataset_id, "studies": studies, "judge": judge},
    ).df()


def item_score_counts(reader: StoreReader, dataset_id: str, studies: list[str],
                      judge: str) -> pd.DataFrame:
    """One judge's classified pairs counted per ``item_id``, ``candidate`` and ``opponent``: ``pairs`` (not
    failed), ``score_sum`` (1 win, 1/2 tie or position-inconsistent, 0 loss), ``wins``, ``losses``, ``flips``
    (inconsistent pairs), ``failed``, and the candidate's score from each call alone: ``first_slot_score`` (the
    swapped call, the candidate shown first) and ``second_slot_score`` (the original call, shown second); in item,
    candidate, opponent order."""
    kept = "classification != 'failed'"
    con = reader.con
    return con.execute(
        f"SELECT item_id, candidate, opponent, count(*) FILTER (WHERE {kept}) AS pairs, "
        "coalesce(sum(CASE WHEN winner = candidate THEN 1.0::DOUBLE WHEN winner = opponent THEN 0.0::DOUBLE "
        f"ELSE 0.5::DOUBLE END) FILTER (WHERE {kept}), 0.0) AS score_sum, "
        f"count(*) FILTER (WHERE {kept} AND winner = candidate) AS wins, "
        f"count(*) FILTER (WHERE {kept} AND winner = opponent) AS losses, "
        "count(*) FILTER (WHERE classification NOT IN ('failed', 'consistent')) AS flips, "
        "count(*) FILTER (WHERE classification = 'failed') AS failed, "
        "coalesce(sum(CASE verdict_swapped WHEN 'A' THEN 1.0::DOUBLE WHEN 'B' THEN 0.0::DOUBLE ELSE 0.5::DOUBLE END) "
        f"FILTER (WHERE {kept}), 0.0) AS first_slot_score, "
        "coalesce(sum(CASE verdict_original WHEN 'B' THEN 1.0::DOUBLE WHEN 'A' THEN 0.0::DOUBLE ELSE 0.5::DOUBLE END) "
        f"FILTER (WHERE {kept}), 0.0) AS second_slot_score FROM pair_outcomes "
        "WHERE dataset_id = ? AND study IN (SELECT unnest(?)) AND judge = ? "
        "GROUP BY item_id, candidate, opponent ORDER BY item_id, candidate, opponent",
        [dataset_id, studies, judge],
    ).df()


OUTCOME_SCOPE = "p.dataset_id = ? AND p.study IN (SELECT unnest(?)) AND p.judge IN (SELECT unnest(?))"


def judges_with_outcomes(reader: StoreReader, dataset_id: str, studies: list[str],
                         judges: list[str]) -> set[str]:
    """The judges among ``judges`` with at least one classified pair (failed ones included) in the studies."""
    con = reader.con
    rows = con.execute(f"SELECT DISTINCT p.judge FROM pair_outcomes p WHERE {OUTCOME_SCOPE}",
                       [dataset_id, studies, judges]).fetchall()
    return {row[0] for row in rows}


def pair_score_totals(reader: StoreReader, dataset_id: str, studies: list[str],
                      judges: list[str]) -> pd.DataFrame:
    """Per judge, candidate and opponent: classified (non-failed) pairs and the candidate's summed score
    (1 win, 1/2 tie or position-inconsistent, 0 loss)."""
    con = reader.con
    return con.execute(
        "SELECT p.judge, p.candidate, p.opponent, count(*) AS pairs, sum(CASE WHEN p.winner = p.candidate "
        "THEN 1.0::DOUBLE WHEN p.winner = p.opponent THEN 0.0::DOUBLE ELSE 0.5::DOUBLE END) AS score_sum "
        f"FROM pair_outcomes p WHERE {OUTCOME_SCOPE} AND p.classification != 'failed' "
        "GROUP BY p.judge, p.candidate, p.opponent ORDER BY p.judge, p.candidate, p.opponent",
        [dataset_id, studies, judges],
    ).df()


def answer_lengths(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Length in characters of every candidate answer (all turns together)."""
    con = reader.con
    return con.execute(
        "SELECT item_id, candidate, length(answer) AS length FROM answers WHERE dataset_id = ?", [dataset_id]
    ).df()


def judge_families(reader: StoreReader) -> dict[str, str]:
    """Family of every judge the store knows, as recorded when it was added."""
    con = reader.con
    rows = con.execute("SELECT judge, family FROM judges ORDER BY judge").fetchall()
    return {judge: family for judge, family in rows}


def dataset_candidates(reader: StoreReader, dataset_id: str) -> list[str]:
    """Every candidate with an answer in a pairwise dataset."""
    con = reader.con
    rows = con.execute(
        "SELECT DISTINCT candidate FROM answers WHERE dataset_id = ? ORDER BY candidate", [dataset_id]
    ).fetchall()
    return [row[0] for row in rows]


def judges_by_readable_calls(reader: StoreReader, dataset_id: str, study: str) -> list[str]:
    """The judges of a pairwise study, most readable verdicts first (ties by name): the judge with the most data
    is the one a page opens on, not the first name in the alphabet."""
    rows = reader.con.execute(
        "SELECT judge FROM judge_calls WHERE dataset_id = ? AND study = ? AND kind = 'pairwise' GROUP BY judge "
        "ORDER BY count(*) FILTER (WHERE parse_status = 'ok') DESC, judge", [dataset_id, study]).fetchall()
    return [row[0] for row in rows]
