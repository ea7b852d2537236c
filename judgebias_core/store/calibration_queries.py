"""Reads behind calibration: judge calls next to the human (or reference-judge) labels of the same items."""

from __future__ import annotations

import pandas as pd

from judgebias_core.store.handle import StoreReader

TARGETS_SQL = """
WITH pair_labels AS (
    SELECT DISTINCT dataset_id, item_id, label_source FROM human_labels WHERE preference IS NOT NULL
), score_labels AS (
    SELECT DISTINCT dataset_id, item_id, rubric_id, label_source FROM human_labels WHERE score IS NOT NULL
)
SELECT j.dataset_id, d.kind, j.study, j.judge, l.label_source, count(*) AS calls,
       count(DISTINCT j.item_id) AS items
FROM judge_calls j JOIN datasets d USING (dataset_id)
JOIN pair_labels l ON l.dataset_id = j.dataset_id AND l.item_id = j.item_id
WHERE j.kind = 'pairwise'
GROUP BY ALL
UNION ALL
SELECT j.dataset_id, d.kind, j.study, j.judge, l.label_source, count(*) AS calls,
       count(DISTINCT j.item_id) AS items
FROM judge_calls j JOIN datasets d USING (dataset_id)
JOIN score_labels l ON l.dataset_id = j.dataset_id AND l.item_id = j.item_id AND l.rubric_id = j.rubric_id
WHERE j.kind = 'rubric'
GROUP BY ALL
ORDER BY 1, 3, 4
"""


def calibration_targets(reader: StoreReader) -> pd.DataFrame:
    """Every (dataset, study, judge) whose calls fall on labelled items, with the label source."""
    con = reader.con
    return con.execute(TARGETS_SQL).df()


# Per labelled item: the most common preference among its raters (ties broken by name), how many, their source.
PAIR_LABELS_SQL = (
    "SELECT item_id, mode(preference ORDER BY preference) AS human, count(*) AS raters, "
    "min(label_source) AS label_source FROM human_labels "
    "WHERE dataset_id = $dataset_id AND preference IS NOT NULL GROUP BY item_id"
)


def pairwise_calls_with_labels(reader: StoreReader, dataset_id: str, judge: str,
                               study: str | None = None) -> pd.DataFrame:
    """A judge's pairwise calls on labelled items, with the most common preference among the item's raters."""
    con = reader.con
    return con.execute(
        f"WITH labels AS ({PAIR_LABELS_SQL}) "
        "SELECT j.study, j.item_id, j.repetition, j.order_label, j.first_candidate, j.second_candidate, "
        "CASE WHEN j.parse_status = 'ok' THEN j.verdict END AS verdict, l.human, l.raters, l.label_source "
        "FROM judge_calls j JOIN labels l USING (item_id) "
        "WHERE j.dataset_id = $dataset_id AND j.judge = $judge AND j.kind = 'pairwise' "
        "AND ($study IS NULL OR j.study = $study) "
        "ORDER BY j.study, j.item_id, j.repetition, j.order_label",
        {"dataset_id": dataset_id, "judge": judge, "study": study},
    ).df()


def pair_preferences(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Per labelled item: the most common preference among its raters, how many raters, and their source."""
    con = reader.con
    return con.execute(PAIR_LABELS_SQL, {"dataset_id": dataset_id}).df()


def rubric_trials_with_labels(reader: StoreReader, dataset_id: str, judge: str,
                              study: str | None = None) -> pd.DataFrame:
    """A judge's rubric trials on labelled items, with the raters' median (rounded half up) and mean score."""
    con = reader.con
    return con.execute(
        "WITH labels AS (SELECT item_id, rubric_id, floor(median(score) + 0.5)::INTEGER AS human_median, "
        "  avg(score) AS human_mean, count(*) AS raters, min(label_source) AS label_source FROM human_labels "
        "  WHERE dataset_id = $dataset_id AND score IS NOT NULL GROUP BY item_id, rubric_id) "
        "SELECT j.study, j.item_id, j.rubric_id, j.repetition, j.ordering, "
        "CASE WHEN j.parse_status = 'ok' THEN j.score END AS score, "
        "l.human_median, l.human_mean, l.raters, l.label_source "
        "FROM judge_calls j JOIN labels l USING (item_id, rubric_id) "
        "WHERE j.dataset_id = $dataset_id AND j.judge = $judge AND j.kind = 'rubric' "
        "AND ($study IS NULL OR j.study = $study) "
        "ORDER BY j.study, j.item_id, j.repetition",
        {"dataset_id": dataset_id, "judge": judge, "study": study},
    ).df()


def rubric_rater_scores(reader: StoreReader, dataset_id: str, rubric_ids: list[str]) -> pd.DataFrame:
    """Every rater's score on the dataset's items for the rubrics: ``item_id``, ``rubric_id``, ``rater``, ``score``."""
    con = reader.con
    return con.execute(
        "SELECT item_id, rubric_id, rater, score FROM human_labels WHERE dataset_id = ? AND score IS NOT NULL "
        "AND rubric_id IN (SELECT unnest(?)) ORDER BY item_id, rubric_id, rater", [dataset_id, rubric_ids]).df()


def rubric_scale(reader: StoreReader, rubric_ids: list[str]) -> list[int]:
    """The score levels of the given rubrics (their union, ascending)."""
    con = reader.con
    rows = con.execute(
        "SELECT DISTINCT level FROM rubric_levels WHERE list_contains(?, rubric_id) ORDER BY level", [rubric_ids]
    ).fetchall()
    return [int(row[0]) for row in rows]


def item_texts(reader: StoreReader, dataset_id: str, item_id: str) -> dict[str, str]:
    """An item's question, its scored response (pointwise) and every candidate answer, for reading in full."""
    con = reader.con
    head = con.execute(
        "SELECT question, response FROM items WHERE dataset_id = ? AND item_id = ?", [dataset_id, item_id]
    ).fetchall()
    answers = con.execute(
        "SELECT candidate, answer FROM answers WHERE dataset_id = ? AND item_id = ? ORDER BY candidate",
        [dataset_id, item_id],
    ).fetchall()
    texts = {"question": head[0][0]} if head else {}
    if head and head[0][1] is not None:
        texts["response"] = head[0][1]
    texts.update({f"answer: {candidate}": answer for candidate, answer in answers})
    return texts


def judge_simulated(reader: StoreReader, judge: str) -> bool:
    """Whether ``judge`` is a simulated judge (its row in ``judges``, or any of its runs, says so)."""
    row = reader.rows(
        "SELECT coalesce(bool_or(j.simulated), false) OR coalesce((SELECT bool_or(r.simulated) FROM runs r "
        "WHERE r.judge = $judge), false) FROM judges j WHERE j.judge = $judge", {"judge": judge})
    return bool(row and row[0][0])


def label_groups(reader: StoreReader, dataset_id: str, label_source: str) -> list[str]:
    """The raters' groups (gold, human, expert, crowd, reference-judge) of a dataset's labels of one source."""
    return [str(row[0]) for row in reader.rows(
        "SELECT DISTINCT rater_group FROM human_labels WHERE dataset_id = ? AND label_source = ? ORDER BY 1",
        [dataset_id, label_source])]
