"""Reads of rubric trials (judge calls of kind 'rubric'), their runs and their labels. SQL lives here."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from judgebias_core.errors import NotFoundError
from judgebias_core.models import RubricRunInfo
from judgebias_core.store.handle import StoreReader

REPEAT_PROTOCOL = "rubric-repeat"

RUBRIC_RUNS_SQL = """
SELECT r.run_id, r.dataset_id, coalesce(d.name, r.dataset_id) AS dataset_name,
       coalesce(r.judge, string_agg(DISTINCT j.judge, ', ' ORDER BY j.judge)) AS judge,
       r.protocol, r.origin, r.provider, r.simulated, CAST(r.params AS VARCHAR) AS params,
       coalesce(r.rubric_id, min(j.rubric_id)) AS rubric_id,
       count(DISTINCT j.rubric_id) AS rubrics,
       count(*) AS trials,
       count(*) FILTER (WHERE j.parse_status <> 'ok') AS unparsed,
       max(len(j.ordering)) AS k,
       count(DISTINCT j.ordering) AS orderings,
       count(DISTINCT j.item_id) AS items,
       r.created_at
FROM runs r
JOIN judge_calls j ON j.run_id = r.run_id AND j.kind = 'rubric'
LEFT JOIN datasets d ON d.dataset_id = r.dataset_id
WHERE $run_id IS NULL OR r.run_id = $run_id
GROUP BY r.run_id, r.dataset_id, d.name, r.judge, r.protocol, r.origin, r.provider, r.simulated,
         CAST(r.params AS VARCHAR), r.rubric_id, r.created_at
"""

LIST_RUBRIC_RUNS_SQL = f"""
SELECT runs.*, coalesce(rb.criterion, runs.rubric_id) AS criterion
FROM ({RUBRIC_RUNS_SQL}) runs
LEFT JOIN rubrics rb ON rb.rubric_id = runs.rubric_id
ORDER BY runs.created_at, runs.run_id
"""

# The chosen position is read as stored; only a trial stored without it falls back to its own stored ordering.
TRIALS_SQL = """
SELECT j.item_id, array_to_string(j.ordering, ',') AS ordering_key,
       j.score,
       CASE WHEN j.parse_status = 'ok' AND j.score IS NOT NULL
            THEN coalesce(j.chosen_position, nullif(list_position(j.ordering, j.score), 0)) END AS chosen_position,
       j.parse_status, j.expected_score
FROM judge_calls j
WHERE j.run_id = ? AND j.kind = 'rubric'
"""

LABELS_SQL = """
WITH trial_keys AS (
    SELECT DISTINCT j.dataset_id, j.item_id, coalesce(j.rubric_id, r.rubric_id, i.rubric_id) AS rubric_id
    FROM judge_calls j
    JOIN runs r ON r.run_id = j.run_id
    LEFT JOIN items i ON i.dataset_id = j.dataset_id AND i.item_id = j.item_id
    WHERE j.run_id = ? AND j.kind = 'rubric'
)
SELECT h.item_id, h.label_source, avg(h.score) AS label, count(*) AS raters
FROM human_labels h
JOIN trial_keys t ON t.dataset_id = h.dataset_id AND t.item_id = h.item_id AND t.rubric_id = h.rubric_id
WHERE h.score IS NOT NULL
GROUP BY h.item_id, h.label_source
ORDER BY h.item_id
"""

EXPORT_SQL = """
SELECT j.call_id, j.run_id, j.dataset_id, j.study, j.judge, j.item_id, j.kind, j.repetition, j.rubric_id,
       {ordering} AS ordering, j.score, j.chosen_position, {slots} AS slots, j.first_candidate, j.second_candidate,
       j.order_label,
       j.verdict, j.parse_status, j.parser, j.error, j.template_id, j.prompt, j.raw_output,
       j.input_tokens, j.output_tokens, j.latency_ms, j.cost_usd, j.created_at
FROM judge_calls j
WHERE j.run_id = ?
ORDER BY j.item_id, j.repetition, j.call_id
"""


def list_rubric_runs(reader: StoreReader) -> pd.DataFrame:
    """Every run that holds rubric trials, with its judge, rubric, k and counts."""
    return reader.con.execute(LIST_RUBRIC_RUNS_SQL, {"run_id": None}).df()


def analysable_run_ids(runs: pd.DataFrame) -> list[str]:
    """Run ids of a ``list_rubric_runs`` frame to offer for analysis: permutation runs first, newest first."""
    ordered = runs.assign(is_repeat=runs["protocol"].eq(REPEAT_PROTOCOL))
    return ordered.sort_values(["is_repeat", "created_at"], ascending=[True, False])["run_id"].tolist()


def repeat_run_choices(runs: pd.DataFrame, run_id: str) -> list[str]:
    """Repeat runs that can serve as the baseline of ``run_id``: same dataset, rubric and k; same judge first."""
    chosen = runs[runs["run_id"] == run_id].iloc[0]
    rubric = "" if pd.isna(chosen["rubric_id"]) else chosen["rubric_id"]
    fits = runs[runs["protocol"].eq(REPEAT_PROTOCOL) & runs["dataset_id"].eq(chosen["dataset_id"])
                & runs["rubric_id"].fillna("").eq(rubric) & runs["k"].eq(chosen["k"]) & runs["run_id"].ne(run_id)]
    same_judge = fits["judge"].eq(chosen["judge"])
    return [*fits.loc[same_judge, "run_id"], *fits.loc[~same_judge, "run_id"]]


def comparable_run_ids(runs: pd.DataFrame, run_id: str) -> tuple[list[str], list[str]]:
    """Runs whose P(position | score) can sit next to ``run_id``'s (same k), and the default among them:
    other judges' permutation runs on the same dataset and rubric (at most three)."""
    chosen = runs[runs["run_id"] == run_id].iloc[0]
    others = runs[runs["k"].eq(chosen["k"]) & runs["run_id"].ne(run_id)]
    peers = others[others["dataset_id"].eq(chosen["dataset_id"]) & others["rubric_id"].eq(chosen["rubric_id"])
                   & others["judge"].ne(chosen["judge"]) & ~others["protocol"].eq(REPEAT_PROTOCOL)]
    return others["run_id"].tolist(), peers["run_id"].head(3).tolist()


def _params(text: object) -> dict[str, Any]:
    if not isinstance(text, str) or not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"params": text}
    return value if isinstance(value, dict) else {"params": value}


def rubric_run_info(reader: StoreReader, run_id: str) -> RubricRunInfo:
    """One rubric run's description; NotFoundError when the run has no rubric trials."""
    frame = reader.con.execute(LIST_RUBRIC_RUNS_SQL, {"run_id": run_id}).df()
    if frame.empty:
        raise NotFoundError(f"no rubric trials in run {run_id!r} (see `runs` for the runs in the store)")
    row = frame.iloc[0]
    return RubricRunInfo(
        run_id=str(row["run_id"]), dataset_id=str(row["dataset_id"]), dataset_name=str(row["dataset_name"]),
        judge=str(row["judge"]), protocol=str(row["protocol"]), origin=str(row["origin"]),
        provider=str(row["provider"]), simulated=bool(row["simulated"]),
        rubric_id=None if pd.isna(row["rubric_id"]) else str(row["rubric_id"]),
        criterion=None if pd.isna(row["criterion"]) else str(row["criterion"]),
        trials=int(row["trials"]), k=int(row["k"]), orderings=int(row["orderings"]), items=int(row["items"]),
        params=_params(row["params"]),
    )


def _run_frame(reader: StoreReader, sql: str, run_id: str, what: str) -> pd.DataFrame:
    # Through Arrow: several times faster than .df() for a million rows of short strings.
    frame = reader.frame_via_arrow(sql, [run_id])
    if frame.empty:
        raise NotFoundError(f"no {what} in run {run_id!r} (see `runs` for the runs in the store)")
    return frame


def rubric_trials(reader: StoreReader, run_id: str) -> pd.DataFrame:
    """Every rubric trial of a run: item, ordering shown (as '2,3,4,5,1'), score, chosen position, status and the
    G-Eval expected score (NULL unless the judge returned log-probabilities)."""
    return _run_frame(reader, TRIALS_SQL, run_id, "rubric trials")


def rubric_labels(reader: StoreReader, run_id: str) -> pd.DataFrame:
    """Per item of the run, the mean label score under the trial's rubric, with its source and rater count."""
    return reader.frame(LABELS_SQL, [run_id])


def run_calls_for_export(reader: StoreReader, run_id: str, lists_as_json: bool = False) -> pd.DataFrame:
    """Every judge call of a run, all stored columns a user needs to re-analyse it.

    ``lists_as_json`` gives the ordering and slots as JSON text ('[2,3,4,5,1]'), for flat files such as CSV.
    """
    columns = ({"ordering": "CAST(to_json(j.ordering) AS VARCHAR)", "slots": "CAST(to_json(j.slots) AS VARCHAR)"}
               if lists_as_json else {"ordering": "j.ordering", "slots": "j.slots"})
    return _run_frame(reader, EXPORT_SQL.format(**columns), run_id, "judge calls")
