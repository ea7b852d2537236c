"""Read queries of the store that describe what it holds (datasets, items, calls). SQL lives here."""

from __future__ import annotations

import pandas as pd

from judgebias_core.errors import NotFoundError
from judgebias_core.models import DatasetSummary, JudgeCallDetail, Rubric, RubricLevel, StoreOverview
from judgebias_core.store.connection import int_scalar
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.schema import current_version

DATASET_SUMMARY_SQL = """
SELECT d.dataset_id, d.name, d.kind, d.source, d.licence, d.description, d.baseline_candidate,
       (SELECT count(*) FROM items i WHERE i.dataset_id = d.dataset_id) AS items,
       (SELECT count(DISTINCT c) FROM (
            SELECT candidate AS c FROM answers a WHERE a.dataset_id = d.dataset_id
            UNION ALL SELECT candidate FROM items i WHERE i.dataset_id = d.dataset_id AND i.candidate IS NOT NULL
       )) AS candidates,
       (SELECT count(*) FROM judge_calls j WHERE j.dataset_id = d.dataset_id) AS judge_calls,
       (SELECT count(DISTINCT item_id) FROM human_labels h WHERE h.dataset_id = d.dataset_id
            AND h.label_source = 'human') AS human_labels
FROM datasets d
ORDER BY d.created_at, d.dataset_id
"""


def dataset_summaries(reader: StoreReader) -> list[DatasetSummary]:
    """One summary per dataset in the store, in the order they were added."""
    con = reader.con
    rows = con.execute(DATASET_SUMMARY_SQL).fetchall()
    return [
        DatasetSummary(
            id=r[0], name=r[1], dataset_kind=r[2], source=r[3], licence=r[4], description=r[5], baseline_candidate=r[6],
            items=int(r[7]), candidates=int(r[8]), judge_calls=int(r[9]), human_labels=int(r[10]),
        )
        for r in rows
    ]


def dataset_summary(reader: StoreReader, dataset_id: str) -> DatasetSummary:
    for summary in dataset_summaries(reader):
        if summary.id == dataset_id:
            return summary
    raise NotFoundError(f"no dataset {dataset_id!r} in the store")


def store_overview(reader: StoreReader) -> StoreOverview:
    """Counts of everything the store holds, for the Overview page."""
    con = reader.con

    def count(sql: str) -> int:
        return int_scalar(con, sql)

    return StoreOverview(
        datasets=count("SELECT count(*) FROM datasets"),
        items=count("SELECT count(*) FROM items"),
        judges=count("SELECT count(DISTINCT judge) FROM judge_calls"),
        runs=count("SELECT count(*) FROM runs"),
        judge_calls=count("SELECT count(*) FROM judge_calls"),
        parse_failures=count("SELECT count(*) FROM judge_calls WHERE parse_status = 'failed'"),
        human_labels=count("SELECT count(*) FROM human_labels WHERE label_source = 'human'"),
        reference_labels=count("SELECT count(*) FROM human_labels WHERE label_source = 'reference-judge'"),
        rubrics=count("SELECT count(*) FROM rubrics"),
        schema_version=current_version(con),
        gold_labels=count("SELECT count(*) FROM human_labels WHERE label_source = 'human' AND rater_group = 'gold'"),
    )


def store_is_empty(reader: StoreReader) -> bool:
    """True when the (migrated) store holds no dataset."""
    return not reader.scalar("SELECT count(*) FROM datasets")


def items_page(reader: StoreReader, dataset_id: str, offset: int = 0, limit: int = 50,
               search: str = "") -> tuple[pd.DataFrame, int]:
    """A page of a dataset's items in stored order, and how many match ``search``."""
    where = "dataset_id = ? AND (? = '' OR contains(lower(question), lower(?)) OR contains(lower(item_id), lower(?)))"
    params: list[object] = [dataset_id, search, search, search]
    con = reader.con
    total = int_scalar(con, f"SELECT count(*) FROM items WHERE {where}", params)
    frame = con.execute(
        f"SELECT item_id, task, question, candidate, response, reference_answer, rubric_id FROM items "
        f"WHERE {where} ORDER BY seq LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).df()
    return frame, total


def item_answers(reader: StoreReader, dataset_id: str, item_id: str) -> dict[str, str]:
    con = reader.con
    rows = con.execute(
        "SELECT candidate, answer FROM answers WHERE dataset_id = ? AND item_id = ? ORDER BY candidate",
        [dataset_id, item_id],
    ).fetchall()
    return {candidate: answer for candidate, answer in rows}


def item_labels(reader: StoreReader, dataset_id: str, item_id: str) -> pd.DataFrame:
    con = reader.con
    return con.execute(
        "SELECT rater, rater_group, label_source, rubric_id, score, preference FROM human_labels "
        "WHERE dataset_id = ? AND item_id = ? ORDER BY rubric_id, rater",
        [dataset_id, item_id],
    ).df()


def calls_for_item(reader: StoreReader, dataset_id: str, item_id: str, limit: int = 500) -> pd.DataFrame:
    """The judge calls made on one item (most informative columns), for choosing one to open."""
    con = reader.con
    return con.execute(
        "SELECT call_id, study, judge, repetition, first_candidate, second_candidate, ordering, "
        "verdict, score, parse_status FROM judge_calls WHERE dataset_id = ? AND item_id = ? "
        "ORDER BY study, judge, repetition, first_candidate, second_candidate LIMIT ?",
        [dataset_id, item_id, limit],
    ).df()


def call_detail(reader: StoreReader, call_id: str) -> JudgeCallDetail:
    """One judge call with the question and answers it was shown."""
    con = reader.con
    rows = con.execute(
        "SELECT j.call_id, j.dataset_id, j.item_id, j.judge, j.study, j.run_id, j.kind, j.repetition, j.slots, "
        "j.ordering, i.question, i.response, j.prompt, j.raw_output, j.verdict, j.score, j.chosen_position, "
        "j.parse_status, j.parser, j.error, coalesce(r.simulated, false) "
        "FROM judge_calls j LEFT JOIN items i USING (dataset_id, item_id) LEFT JOIN runs r USING (run_id) "
        "WHERE j.call_id = ?",
        [call_id],
    ).fetchall()
    if not rows:
        raise NotFoundError(f"no judge call {call_id!r}")
    r = rows[0]
    slots = list(r[8] or [])
    answers = {}
    if slots:
        found = con.execute(
            "SELECT candidate, answer FROM answers WHERE dataset_id = ? AND item_id = ? AND list_contains(?, candidate)",
            [r[1], r[2], slots],
        ).fetchall()
        answers = {candidate: answer for candidate, answer in found}
    return JudgeCallDetail(
        call_id=r[0], dataset_id=r[1], item_id=r[2], judge=r[3], study=r[4], run_id=r[5], call_kind=r[6],
        repetition=int(r[7]), slots=slots, ordering=list(r[9]) if r[9] is not None else None, question=r[10] or "",
        answers=answers, response=r[11], prompt=r[12], raw_output=r[13], verdict=r[14], score=r[15],
        chosen_position=r[16], parse_status=r[17], parser=r[18], error=r[19], simulated=bool(r[20]),
    )


def load_rubric(reader: StoreReader, rubric_id: str) -> Rubric:
    con = reader.con
    head = con.execute("SELECT criterion, source FROM rubrics WHERE rubric_id = ?", [rubric_id]).fetchall()
    if not head:
        raise NotFoundError(f"no rubric {rubric_id!r}")
    levels = con.execute(
        "SELECT level, description FROM rubric_levels WHERE rubric_id = ? ORDER BY level", [rubric_id]
    ).fetchall()
    return Rubric(rubric_id, head[0][0], tuple(RubricLevel(int(lv), d) for lv, d in levels), source=head[0][1])


def list_rubrics(reader: StoreReader, dataset_id: str | None = None) -> pd.DataFrame:
    con = reader.con
    return con.execute(
        "SELECT r.rubric_id, r.criterion, r.k, r.dataset_id, r.source, "
        "(SELECT count(*) FROM items i WHERE i.rubric_id = r.rubric_id) AS items "
        "FROM rubrics r WHERE $dataset IS NULL OR r.dataset_id = $dataset ORDER BY r.rubric_id",
        {"dataset": dataset_id},
    ).df()


def list_runs(reader: StoreReader) -> pd.DataFrame:
    """Every run with its stored and failed call counts and its cost: the replies' cost plus the estimate for
    requests a kill cut off after they were sent (``cost_estimated_usd``, ``unanswered_sends``); ``unpriced_calls``:
    an engine run's replies whose cost is unknown (no price for the model), left out of ``cost_usd``."""
    con = reader.con
    return con.execute(
        "SELECT r.run_id, r.dataset_id AS dataset, r.study, r.origin, r.protocol, r.provider, r.judge, r.model, "
        "r.simulated, r.status, r.planned, "
        "count(j.call_id) FILTER (WHERE j.parse_status <> 'no_reply') AS completed, "
        "count(j.call_id) FILTER (WHERE j.parse_status = 'no_reply') AS failed, "
        "count(j.call_id) FILTER (WHERE j.parse_status = 'failed') AS parse_failures, "
        "coalesce(sum(j.cost_usd), 0) + coalesce(any_value(u.estimated), 0) AS cost_usd, "
        "coalesce(any_value(u.estimated), 0) AS cost_estimated_usd, "
        "coalesce(any_value(u.sends), 0) AS unanswered_sends, "
        # engine runs only: imported records (bundled studies, uploads) never carried a cost
        "count(j.call_id) FILTER (WHERE r.origin = 'engine' AND j.parse_status <> 'no_reply' "
        "AND j.cost_usd IS NULL) AS unpriced_calls, r.created_at "
        "FROM runs r LEFT JOIN judge_calls j USING (run_id) "
        "LEFT JOIN (SELECT run_id, count(*) AS sends, sum(cost_usd_estimate) AS estimated FROM unanswered_sends "
        "GROUP BY run_id) u USING (run_id) "
        "GROUP BY r.run_id, r.dataset_id, r.study, r.origin, r.protocol, r.provider, r.judge, r.model, "
        "r.simulated, r.status, r.planned, r.created_at ORDER BY r.created_at, r.run_id"
    ).df()
