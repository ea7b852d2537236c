"""Pairwise and list-wise position bias over one store snapshot (METHODS.md sections 2 and 3)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.metrics.item_sets import item_set_notes
from judgebias_core.metrics.listwise import ListwiseJudgeMetrics, listwise_from_groups
from judgebias_core.metrics.pairwise import (
    PairwiseJudgeMetrics,
    pairwise_metrics_from_counts,
    unit_metrics_from_counts,
)
from judgebias_core.metrics.pairwise_compare import JudgeComparison, compare_from_shared, win_rate_intervals
from judgebias_core.metrics.pairwise_intervals import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    BoundRule,
    FlipRateBound,
    flip_rate_bound_from_counts,
)
from judgebias_core.metrics.repetition import RepetitionMetrics, repetition_results
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.pairwise_queries import (
    candidate_item_counts,
    item_counts_frame,
    judge_study_items,
    listwise_groups,
    pairwise_inputs,
    repetition_counts,
    shared_flips,
    unit_counts_frame,
)


def pairwise_metrics(reader: StoreReader, dataset_id: str | None = None, judges: Sequence[str] | None = None,
                     study: str | None = None, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                     tasks: Sequence[str] | None = None,
                     candidates: Sequence[str] | None = None) -> list[PairwiseJudgeMetrics]:
    """One result per (dataset, study, judge, repetition) with pairs in the store, optionally within tasks/candidates.

    Repetition stability ignores the task and candidate filters (it is a property of the judge's prompts).
    """
    inputs = pairwise_inputs(reader, dataset_id, study, judges, tasks, candidates)
    return pairwise_metrics_from_counts(inputs.units, inputs.items, inputs.repetitions, resamples, seed,
                                        inputs.floor_items)


def unit_metrics(reader: StoreReader, dataset_id: str, study: str, judges: Sequence[str] | None = None,
                 repetition: int | None = None) -> pd.DataFrame:
    """Per (judge, candidate, task): counts, PC, PF, overall win rate and quality gap (repetitions pooled unless
    ``repetition`` picks one)."""
    return unit_metrics_from_counts(unit_counts_frame(reader, dataset_id, study, judges), repetition)


def repetition_metrics(reader: StoreReader, dataset_id: str | None = None, judges: Sequence[str] | None = None,
                       study: str | None = None) -> list[RepetitionMetrics]:
    """One result per (dataset, study, judge) whose pairwise calls have more than one repetition."""
    return repetition_results(repetition_counts(reader, dataset_id, study, judges))


def listwise_metrics(reader: StoreReader, dataset_id: str | None = None, judges: Sequence[str] | None = None,
                     study: str | None = None) -> list[ListwiseJudgeMetrics]:
    """One result per (dataset, study, judge, repetition, p) with list-wise calls in the store."""
    return listwise_from_groups(listwise_groups(reader, dataset_id, study, judges))


def judge_flip_rate_bound(reader: StoreReader, dataset_id: str, study: str, judge: str,
                          rule: BoundRule = "clustered", resamples: int = BOOTSTRAP_RESAMPLES,
                          seed: int = BOOTSTRAP_SEED) -> FlipRateBound:
    """One judge's flip rate over every repetition of a study, with the upper bound the CI gate decides on: the
    item-clustered one by default (repetitions of an item pooled into its cluster), Wilson on the pairs with
    ``rule="wilson"``.

    NotFoundError when the judge has no pair there, or no pair that parsed.
    """
    items = item_counts_frame(reader, dataset_id, study, [judge])
    if items.empty:
        raise NotFoundError(f"judge {judge!r} has no pairs in study {study!r} of dataset {dataset_id!r}")
    per_item = items.groupby("item_id")[["classified", "consistent"]].sum()
    flips = (per_item["classified"] - per_item["consistent"]).to_numpy()
    bound = flip_rate_bound_from_counts(flips, per_item["classified"].to_numpy(), rule, resamples, seed)
    if bound.classified == 0:
        raise NotFoundError(f"judge {judge!r} has no classified pair (every pair failed to parse)")
    return bound


def compare_judges(reader: StoreReader, dataset_id: str, study: str, judge_a: str, judge_b: str,
                   repetition: int | None = None) -> JudgeComparison:
    """Judge a's flip rate minus judge b's on the pairs both classified, with the paired cluster-robust t interval (a
    degenerate result, said so, when they share no pair). InvalidArgument when a and b are the same judge."""
    if judge_a == judge_b:
        raise InvalidArgument("pick two different judges to compare")
    shared = shared_flips(reader, dataset_id, study, judge_a, judge_b, repetition)
    return compare_from_shared(shared, dataset_id, study, judge_a, judge_b, repetition)


def candidate_win_intervals(reader: StoreReader, dataset_id: str, study: str, judges: Sequence[str] | None = None,
                            repetition: int | None = None, tasks: Sequence[str] | None = None,
                            candidates: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (judge, candidate): the overall win rate's item-clustered interval (``metrics.pairwise_compare``)."""
    counts = candidate_item_counts(reader, dataset_id, study, judges, tasks, candidates, repetition)
    return win_rate_intervals(counts)


def study_item_notes(reader: StoreReader, dataset_id: str) -> dict[tuple[str, str], str]:
    """(judge, study) -> the note a judge measured in several studies of the dataset on different items carries
    beside its figures (``metrics.item_sets``)."""
    return item_set_notes(judge_study_items(reader, dataset_id))
