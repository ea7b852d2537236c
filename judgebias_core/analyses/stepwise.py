"""What drives pairwise position bias: stepwise OLS over (judge, candidate, task) units of one study."""

from __future__ import annotations

import pandas as pd

from judgebias_core.metrics.pairwise import unit_metrics_from_counts
from judgebias_core.metrics.stepwise import Start, StepwiseResult, check_target, stepwise_select, stepwise_unit_table
from judgebias_core.metrics.stepwise_baseline import PERMUTATIONS, SEED, BoundBaseline, bound_baseline
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.pairwise_queries import unit_counts_frame, unit_lengths


def stepwise_units(reader: StoreReader, dataset_id: str, study: str) -> tuple[pd.DataFrame, int]:
    """The unit table (one row per judge, candidate, task; repetitions pooled) and how many units were left out."""
    units = unit_metrics_from_counts(unit_counts_frame(reader, dataset_id, study))
    lengths = unit_lengths(reader, dataset_id, study) if not units.empty else pd.DataFrame()
    return stepwise_unit_table(units, lengths, dataset_id, study)


def stepwise_analysis(reader: StoreReader, dataset_id: str, study: str, target: str,
                      start: Start = "empty", weights: str = "none", cluster: str = "none") -> StepwiseResult:
    """Stepwise regression of ``target`` over the units of one (dataset, study); ``weights`` "pairs" for WLS by
    classified pairs, ``cluster`` for cluster-robust standard errors of the final model."""
    check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    return stepwise_select(units, target, start=start, units_left_out=left_out, weights=weights, cluster=cluster)


def stepwise_bound_baseline(reader: StoreReader, dataset_id: str, study: str, target: str, start: Start = "empty",
                            weights: str = "none", permutations: int = PERMUTATIONS,
                            seed: int = SEED) -> BoundBaseline | None:
    """How much of the selected model's fit the quality gap's bound alone produces (quality margins shuffled)."""
    check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    result = stepwise_select(units, target, start=start, units_left_out=left_out, weights=weights)
    return bound_baseline(units, result, permutations, seed)
