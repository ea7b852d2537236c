"""What drives pairwise position bias: stepwise OLS over (judge, candidate, task) units of one study."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.metrics.pairwise import unit_metrics_from_counts
from judgebias_core.metrics.stepwise import Start, StepwiseResult, check_target, stepwise_select, stepwise_unit_table
from judgebias_core.metrics.stepwise_baseline import PERMUTATIONS, SEED, BoundBaseline, bound_baseline
from judgebias_core.metrics.stepwise_validation import CrossValidated, cross_validate
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


def stepwise_with_baselines(reader: StoreReader, dataset_id: str, study: str, targets: tuple[str, ...],
                            start: Start = "empty", weights: str = "none"
                            ) -> list[tuple[StepwiseResult, BoundBaseline | None]]:
    """For each target, the selection and its bound baseline (:func:`stepwise_analysis` and
    :func:`stepwise_bound_baseline`) from one unit table and one selection per target, as the report shows them."""
    for target in targets:
        check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    pairs = []
    for target in targets:
        result = stepwise_select(units, target, start=start, units_left_out=left_out, weights=weights)
        pairs.append((result, bound_baseline(units, result)))
    return pairs


@dataclass(frozen=True)
class FactorsAnalysis:
    """What the Factors page shows for one target: the selection, its unit table, bound baseline and validation."""

    result: StepwiseResult
    units: pd.DataFrame
    baseline: BoundBaseline | None
    validation: CrossValidated | None


def factors_analysis(reader: StoreReader, dataset_id: str, study: str, target: str, start: Start = "empty",
                     weights: str = "none", cluster: str = "none") -> FactorsAnalysis:
    """One unit table and one selection for the selection, the bound baseline and the cross-validation (neither
    depends on ``cluster``, which only changes the final model's standard errors)."""
    check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    result = stepwise_select(units, target, start=start, units_left_out=left_out, weights=weights, cluster=cluster)
    return FactorsAnalysis(result, units, bound_baseline(units, result), cross_validate(units, result))
