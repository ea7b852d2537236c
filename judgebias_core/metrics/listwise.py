"""List-wise position bias (METHODS.md section 3): p candidates in p cyclic orders, one-vs-all direction."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.metrics.pairwise_intervals import first_slot_test, wilson_interval

GROUP_KEYS = ["dataset_id", "study", "judge", "repetition", "options"]


@dataclass(frozen=True)
class ListwiseJudgeMetrics:
    """Consistency of one judge's list-wise picks. A group is one candidate set of one item under all p orders.

    An inconsistent group is ``primacy`` when the first slot holds more than 1/p of its decisive picks, ``recency``
    (a later slot) when less, ``undirected`` when exactly 1/p. First-slot share is counted over the picks of
    inconsistent groups (one-vs-all) and tested against 1/p.
    """

    dataset: str
    study: str
    judge: str
    repetition: int
    options: int  # p: candidates per call
    groups: int  # including groups with a failed parse or a missing order
    failed_groups: int
    consistent: int
    primacy: int
    recency: int
    undirected: int
    position_consistency: float
    flip_rate: float
    flip_rate_ci_low: float
    flip_rate_ci_high: float
    first_slot_picks: int
    later_slot_picks: int
    first_slot_share: float
    expected_first_slot_share: float
    binomial_p: float


def listwise_from_groups(groups: pd.DataFrame) -> list[ListwiseJudgeMetrics]:
    """One result per (dataset, study, judge, repetition, p) of classified list-wise groups
    (``store.pairwise_queries.listwise_groups``)."""
    if groups.empty:
        return []
    inconsistent = groups["classification"].isin(["primacy", "recency", "undirected"])
    groups = groups.assign(
        inconsistent_first=groups["first_picks"].where(inconsistent, 0),
        inconsistent_later=groups["later_picks"].where(inconsistent, 0),
    )
    classes = groups.pivot_table(index=GROUP_KEYS, columns="classification", values="item_id", aggfunc="size",
                                 fill_value=0)
    picks = groups.groupby(GROUP_KEYS)[["inconsistent_first", "inconsistent_later"]].sum()
    results = []
    for key, row in classes.iterrows():
        count = {name: int(row.get(name, 0)) for name in ("failed", "consistent", "primacy", "recency", "undirected")}
        classified = count["consistent"] + count["primacy"] + count["recency"] + count["undirected"]
        flips = classified - count["consistent"]
        wilson = wilson_interval(flips, classified)
        first, later = int(picks.loc[key, "inconsistent_first"]), int(picks.loc[key, "inconsistent_later"])
        options = int(key[4])
        share, p_value = first_slot_test(first, later, expected=1 / options)
        results.append(ListwiseJudgeMetrics(
            dataset=key[0], study=key[1], judge=key[2], repetition=int(key[3]), options=options,
            groups=sum(count.values()), failed_groups=count["failed"], consistent=count["consistent"],
            primacy=count["primacy"], recency=count["recency"], undirected=count["undirected"],
            position_consistency=count["consistent"] / classified if classified else float("nan"),
            flip_rate=flips / classified if classified else float("nan"),
            flip_rate_ci_low=wilson.low, flip_rate_ci_high=wilson.high,
            first_slot_picks=first, later_slot_picks=later, first_slot_share=share,
            expected_first_slot_share=1 / options, binomial_p=p_value,
        ))
    return results
