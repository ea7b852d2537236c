"""Reads behind prediction-powered inference with the labels as stored: a judge's rubric calls on every item it
scored, labelled or not (``calibration_queries.rubric_trials_with_labels`` keeps the labelled ones only)."""

from __future__ import annotations

import pandas as pd

from judgebias_core.store.handle import StoreReader


def rubric_trials_all_items(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None) -> pd.DataFrame:
    """Every rubric call of the judge on the dataset (``study``: one run, None: all) with the item's raters' mean
    score, their count and label source where it has labels (NULL where it has none)."""
    con = reader.con
    return con.execute(
        "SELECT j.study, j.item_id, j.rubric_id, CASE WHEN j.parse_status = 'ok' THEN j.score END AS score, "
        "l.human_mean, coalesce(l.raters, 0) AS raters, l.label_source "
        "FROM judge_calls j LEFT JOIN (SELECT item_id, rubric_id, avg(score) AS human_mean, count(*) AS raters, "
        "  min(label_source) AS label_source FROM human_labels WHERE dataset_id = $dataset_id AND score IS NOT NULL "
        "  GROUP BY item_id, rubric_id) l USING (item_id, rubric_id) "
        "WHERE j.dataset_id = $dataset_id AND j.judge = $judge AND j.kind = 'rubric' "
        "AND ($study IS NULL OR j.study = $study) "
        "ORDER BY j.study, j.item_id, j.repetition",
        {"dataset_id": dataset_id, "judge": judge, "study": study},
    ).df()
