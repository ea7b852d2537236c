"""Reads behind planning a swap study: a pairwise dataset's items and candidates, and an earlier run's per-item
flip counts (from ``pair_outcomes``)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.store.handle import StoreReader

# One row per item in stored order ("first N items"): how many candidates it has and whether the baseline is one.
_ITEM_CANDIDATES_SQL = """
SELECT i.seq, i.item_id, count(a.candidate) AS candidates,
       coalesce(bool_or(a.candidate = d.baseline_candidate), false) AS has_baseline
FROM items i
JOIN datasets d USING (dataset_id)
LEFT JOIN answers a ON a.dataset_id = i.dataset_id AND a.item_id = i.item_id
WHERE i.dataset_id = ?
GROUP BY i.seq, i.item_id
ORDER BY i.seq
"""

_ITEM_FLIPS_SQL = """
SELECT item_id,
       count(*) FILTER (classification IN ('primacy', 'recency')) AS flips,
       count(*) FILTER (classification <> 'failed') AS classified
FROM pair_outcomes
WHERE dataset_id = ? AND study = ? AND judge = ? AND repetition = 1
GROUP BY item_id
HAVING count(*) FILTER (classification <> 'failed') > 0
ORDER BY item_id
"""

_RUN_JUDGES_SQL = """
SELECT dataset_id, study, judge, count(*) AS pairs
FROM pair_outcomes WHERE run_id = ? AND repetition = 1
GROUP BY ALL ORDER BY judge
"""

_EARLIER_STUDIES_SQL = """
SELECT study, judge, count(DISTINCT item_id) AS items, count(*) FILTER (classification <> 'failed') AS classified
FROM pair_outcomes
WHERE dataset_id = ? AND list_contains(?, judge) AND repetition = 1
GROUP BY ALL
HAVING count(*) FILTER (classification <> 'failed') > 0
ORDER BY classified DESC, study, judge
"""


def pairwise_dataset(reader: StoreReader, dataset_id: str) -> tuple[str | None, pd.DataFrame]:
    """The dataset's baseline candidate and its items (``seq, item_id, candidates, has_baseline``) in stored order.

    NotFoundError for an unknown dataset, InvalidArgument for a rubric-scored one.
    """
    rows = reader.rows("SELECT kind, baseline_candidate FROM datasets WHERE dataset_id = ?", [dataset_id])
    if not rows:
        raise NotFoundError(f"no dataset {dataset_id!r} in the store")
    if rows[0][0] != "pairwise":
        raise InvalidArgument(f"dataset {dataset_id!r} is not pairwise (it is {rows[0][0]}): a swap study needs pairs")
    return rows[0][1], reader.frame(_ITEM_CANDIDATES_SQL, [dataset_id])


def item_flip_counts(reader: StoreReader, dataset_id: str, study: str, judge: str) -> pd.DataFrame:
    """Per item, the flips (primacy or recency) and classified pairs of one judge's first repetition in a study."""
    return reader.frame(_ITEM_FLIPS_SQL, [dataset_id, study, judge])


def run_judges(reader: StoreReader, run_id: str) -> pd.DataFrame:
    """The dataset, study and judges (with their pairs) of a run's classified pairs (first repetition)."""
    return reader.frame(_RUN_JUDGES_SQL, [run_id])


def earlier_studies(reader: StoreReader, dataset_id: str, judges: Sequence[str]) -> pd.DataFrame:
    """Studies on the dataset where any of ``judges`` has classified pairs, the most classified pairs first."""
    return reader.frame(_EARLIER_STUDIES_SQL, [dataset_id, list(judges)])
